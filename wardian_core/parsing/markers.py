"""Watching a PTY stream for markers: when a TUI rule should look at the screen.

The screen costs a replay, so a TUI parser watches the stream for the markers its screen
rules read, and asks for the screen when one shows. A marker is given squeezed (see
`squeeze`: a TUI draws spaces by moving the cursor) and looked for in the raw bytes, with
what the squeezed text would not show allowed between its characters: escape sequences,
control characters, whitespace. That finds what decoding, stripping and squeezing the
whole stream found, without doing it: the bytes are scanned in C once for each way the
markers start (their first two characters), skipping to the first one
(`benchmarks/parser_feed.py`). A marker cut between two reads is still seen once: the
bytes after the last marker found are kept, at most `TAIL_BYTES`.
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
    starts was slower to search than each alone (sre finds no literal to skip to)."""

    characters: tuple[bytes, ...]
    start: re.Pattern[bytes]


# The first byte of anything `_HIDDEN` matches.
_HIDDEN_FIRST = rb"\x00-\x20\x7f\xc2\xe1\xe2\xe3"


@cache
def compiled(marker: str) -> Marker:
    characters = tuple(character.encode() for character in marker)
    if len(characters) < 2:
        return Marker(characters, re.compile(re.escape(characters[0])))
    # A first character common in escapes ("1", "C") fails at once where neither the second
    # character nor something hidden follows it, without trying every kind of hidden thing.
    follows = b"(?=[" + _HIDDEN_FIRST + re.escape(characters[1][:1]) + b"])"
    start = re.escape(characters[0]) + follows + _GAP_PATTERN + re.escape(characters[1])
    return Marker(characters, re.compile(start))


def _rest_ends(marker: Marker, data: bytes, position: int) -> int | None:
    """Where the marker ends, its start matched up to `position` (None: not the marker)."""
    for character in marker.characters[2:]:
        hidden = _GAP.match(data, position)
        position = hidden.end() if hidden else position
        if not data.startswith(character, position):
            return None
        position += len(character)
    return position


def _last_end(start: re.Pattern[bytes], markers: tuple[Marker, ...], data: bytes) -> int:
    """Where the last whole one of `markers`, which all begin as `start` matches, ends (-1 for
    none). Every start is tried, also inside a marker found: the last one may overlap it (as
    `rfind` finds)."""
    end, found = -1, start.search(data)
    while found is not None:
        for marker in markers:
            whole = _rest_ends(marker, data, found.end())
            if whole is not None and whole > end:
                end = whole
        found = start.search(data, found.start() + 1)
    return end


@cache
def _by_start(markers: tuple[str, ...]) -> tuple[tuple[re.Pattern[bytes], tuple[Marker, ...]], ...]:
    """`markers` grouped by how they start: markers that begin alike ("Do you want to proceed?",
    "Do you want to use this API key?") cost one search of the stream, not one each."""
    groups: dict[bytes, list[Marker]] = {}
    for marker in map(compiled, markers):
        groups.setdefault(marker.start.pattern, []).append(marker)
    return tuple((group[0].start, tuple(group)) for group in groups.values())


@dataclass
class MarkerWatch:
    tail: bytes = b""

    def saw_any(self, data: bytes, markers: tuple[str, ...]) -> bool:
        """Whether one of `markers` (squeezed: see `squeeze`) shows in this chunk."""
        seen = self.tail + data
        last = -1
        for start, alike in _by_start(markers):
            end = _last_end(start, alike, seen)
            if end > last:
                last = end
        self.tail = seen[max(last, 0) :][-TAIL_BYTES:]
        return last >= 0
