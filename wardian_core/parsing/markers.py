"""Watching a PTY stream for markers: when a TUI rule should look at the screen.

The screen costs a replay, so a TUI parser watches the stream for the markers its screen
rules read, and asks for the screen when one shows. A marker is given squeezed (see
`squeeze`: a TUI draws spaces by moving the cursor) and looked for in the raw bytes, with
what the squeezed text would not show allowed between its characters: escape sequences,
control characters, whitespace. That finds what decoding, stripping and squeezing the
whole stream found, without doing it: the bytes are scanned in C once for each way the
markers start (their first two characters), skipping to the first one
(`benchmarks/parser_feed.py`). A first character inside an escape (the final byte of a
cursor move, a window title) starts nothing, and a marker another one ends (`1. Yes, …`
and `Yes, …`) is not searched for: it ends where that one does. A marker cut between two
reads is still seen once: the bytes after the last marker found are kept, at most
`TAIL_BYTES`.
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
_ESCAPE = re.compile(ESCAPE_PATTERN.encode())


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


# A CSI's final byte, and what may come between its `ESC [` and that byte (parameters).
_CSI_FINAL = re.compile(rb"[@-~]")
_CSI_PARAMETER = rb"[0-?]"


@cache
def compiled(marker: str) -> Marker:
    characters = tuple(character.encode() for character in marker)
    first = re.escape(characters[0]) + _not_a_csi_end(characters[0])
    if len(characters) < 2:
        return Marker(characters, re.compile(first))
    # A first character common in escapes ("1", "C") fails at once where neither the second
    # character nor something hidden follows it, without trying every kind of hidden thing.
    follows = b"(?=[" + _HIDDEN_FIRST + re.escape(characters[1][:1]) + b"])"
    return Marker(characters, re.compile(first + follows + _GAP_PATTERN + re.escape(characters[1])))


def _not_a_csi_end(character: bytes) -> bytes:
    """Lookbehinds that turn down, in C, a first character ending a short CSI: the `C` of
    `ESC [1C`, how Claude draws a space, is in every few bytes it writes. Only quick: a start
    found is still checked by `_hidden_at`. Placed after the character, so the search still
    skips to it."""
    if not _CSI_FINAL.fullmatch(character):
        return b""
    final = re.escape(character)
    between = (b"", _CSI_PARAMETER, _CSI_PARAMETER * 2)
    return b"".join(rb"(?<!\x1b\[" + parameters + final + b")" for parameters in between)


def _rest_ends(marker: Marker, data: bytes, position: int) -> int | None:
    """Where the marker ends, its start matched up to `position` (None: not the marker)."""
    for character in marker.characters[2:]:
        hidden = _GAP.match(data, position)
        position = hidden.end() if hidden else position
        if not data.startswith(character, position):
            return None
        position += len(character)
    return position


def _hidden_at(data: bytes, position: int) -> bool:
    """Whether the byte at `position` is inside an escape (the final byte of a CSI, a title's
    text). Only the last ESC before it can start one: no escape holds an ESC but its first byte
    and the one of its `ESC \\` ending, which ends it."""
    escape_at = data.rfind(b"\x1b", 0, position)
    if escape_at < 0:
        return False
    escape = _ESCAPE.match(data, escape_at)
    return escape is not None and escape.end() > position


def _last_end(start: re.Pattern[bytes], markers: tuple[Marker, ...], data: bytes) -> int:
    """Where the last whole one of `markers`, which all begin as `start` matches, ends (-1 for
    none). Every start is tried, also inside a marker found: the last one may overlap it (as
    `rfind` finds)."""
    end, found = -1, start.search(data)
    while found is not None:
        for marker in markers:
            whole = _rest_ends(marker, data, found.end())
            if whole is not None and whole > end and not _hidden_at(data, found.start()):
                end = whole
        found = start.search(data, found.start() + 1)
    return end


@cache
def _by_start(markers: tuple[str, ...]) -> tuple[tuple[re.Pattern[bytes], tuple[Marker, ...]], ...]:
    """`markers` grouped by how they start: markers that begin alike ("Do you want to proceed?",
    "Do you want to use this API key?") cost one search of the stream, not one each."""
    groups: dict[bytes, list[Marker]] = {}
    for marker in map(compiled, _without_ones_ending_another(markers)):
        groups.setdefault(marker.start.pattern, []).append(marker)
    return tuple((group[0].start, tuple(group)) for group in groups.values())


def _without_ones_ending_another(markers: tuple[str, ...]) -> tuple[str, ...]:
    """`markers` but those another one ends ("1.Yes,Itrustthisfolder" ends as "Yes,Itrustthisfolder"):
    wherever such a marker ends, the shorter one ends too, so the last end is the same."""
    return tuple(
        marker
        for marker in dict.fromkeys(markers)
        if not any(other != marker and marker.endswith(other) for other in markers)
    )


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
