"""Watching a PTY stream for markers: when a TUI rule should look at the screen.

The screen costs a replay, so a TUI parser watches the stream for the markers its screen
rules read, and asks for the screen when one shows. A marker is given squeezed (see
`squeeze`: a TUI draws spaces by moving the cursor) and looked for in the raw bytes, with
what the squeezed text would not show allowed between its characters: escape sequences,
control characters, whitespace. That finds what decoding, stripping and squeezing the
whole stream found, without doing it: the bytes are scanned in C for each marker's first
character (`benchmarks/parser_feed.py`). A marker cut between two reads is still seen
once: the bytes after the last marker found are kept, at most `TAIL_BYTES`.
"""

import re
from dataclasses import dataclass
from functools import cache

from wardian_core.parsing.escapes import ESCAPE_PATTERN

# More than any marker drawn with escapes between its characters spans.
TAIL_BYTES = 1024
# What `strip_escapes` and `squeeze` drop, as UTF-8: escapes, controls, ASCII whitespace
# (not ESC alone: an escape the pattern does not know is text there too), and the other
# characters `str.split` takes for whitespace: U+0085, U+00A0, U+1680, U+2000-U+200A,
# U+2028, U+2029, U+202F, U+205F, U+3000.
_HIDDEN = ESCAPE_PATTERN.encode() + (
    rb"|[\x00-\x1a\x1c-\x20\x7f]"
    rb"|\xc2[\x85\xa0]|\xe1\x9a\x80|\xe2\x80[\x80-\x8a\xa8\xa9\xaf]|\xe2\x81\x9f|\xe3\x80\x80"
)


# Between two characters of a marker, possessive: what is hidden is never given back.
_GAP_PATTERN = b"(?:" + _HIDDEN + b")*+"
_GAP = re.compile(_GAP_PATTERN)


@dataclass(frozen=True)
class Marker:
    """A marker's characters as UTF-8, and where it may start: its first two characters with
    what is hidden between them. Searched for in C from its first character; a pattern of the
    whole marker took ~10 ms to compile, this one 0.5 ms, and one pattern of several markers'
    starts was slower to search than each alone."""

    characters: tuple[bytes, ...]
    start: re.Pattern[bytes]


@cache
def compiled(marker: str) -> Marker:
    characters = tuple(character.encode() for character in marker)
    return Marker(characters, re.compile(_GAP_PATTERN.join(re.escape(character) for character in characters[:2])))


def _rest_ends(marker: Marker, data: bytes, position: int) -> int | None:
    """Where the marker ends, its start matched up to `position` (None: not the marker)."""
    for character in marker.characters[2:]:
        hidden = _GAP.match(data, position)
        position = hidden.end() if hidden else position
        if not data.startswith(character, position):
            return None
        position += len(character)
    return position


def last_end(marker: Marker, data: bytes) -> int | None:
    """Where the last whole `marker` in `data` ends (None for none)."""
    end, found = None, marker.start.search(data)
    while found is not None:
        whole = _rest_ends(marker, data, found.end())
        if whole is not None:
            end = whole
        found = marker.start.search(data, whole if whole is not None else found.start() + 1)
    return end


@dataclass
class MarkerWatch:
    tail: bytes = b""

    def saw_any(self, data: bytes, markers: tuple[str, ...]) -> bool:
        """Whether one of `markers` (squeezed: see `squeeze`) shows in this chunk."""
        seen = self.tail + data
        ends = [end for marker in markers if (end := last_end(compiled(marker), seen)) is not None]
        self.tail = seen[max(ends, default=0) :][-TAIL_BYTES:]
        return bool(ends)
