"""Shell integration marks (OSC 133) in a PTY stream.

A shell whose start-up Wardian extends (see `shell_startup`) writes `ESC ] 133 ; X BEL`
around each prompt and command: A the prompt starts, B the prompt ends (input starts),
C the command was accepted and runs, D;<exit code> it finished. Terminals that follow
the same convention (VS Code, WezTerm, kitty, iTerm2, fish 4) write the same bytes.
"""

import re
from dataclasses import dataclass
from typing import Literal, cast

MarkKind = Literal["A", "B", "C", "D"]

_MARK = re.compile(rb"\x1b\]133;([ABCD])((?:;[^\x07\x1b]*)?)(?:\x07|\x1b\\)")
_INTRODUCER = b"\x1b]133;"
# Longer than any mark; an unfinished escape beyond this is no mark and is let through.
_LONGEST_MARK = 128


@dataclass(frozen=True)
class ShellMark:
    kind: MarkKind
    params: tuple[str, ...] = ()

    @property
    def exit_code(self) -> int | None:
        """D's first parameter, when it is a number."""
        if self.kind != "D" or not self.params:
            return None
        try:
            return int(self.params[0])
        except ValueError:
            return None


@dataclass
class MarkScanner:
    """Splits a PTY stream at its marks; a mark cut between two reads is kept for the next."""

    pending: bytes = b""

    def feed(self, data: bytes) -> list[bytes | ShellMark]:
        """The output between marks (bytes, without the marks) and the marks, in stream order."""
        data, self.pending = self.pending + data, b""
        pieces: list[bytes | ShellMark] = []
        start = 0
        for match in _MARK.finditer(data):
            pieces.append(data[start : match.start()])
            params = match.group(2).decode("ascii", "replace")
            kind = cast(MarkKind, match.group(1).decode())  # the pattern admits A to D only
            pieces.append(ShellMark(kind, tuple(params[1:].split(";")) if params else ()))
            start = match.end()
        rest = data[start:]
        cut = _unfinished_mark_start(rest)
        if cut is not None:
            rest, self.pending = rest[:cut], rest[cut:]
        pieces.append(rest)
        return [piece for piece in pieces if piece != b""]


def _unfinished_mark_start(data: bytes) -> int | None:
    """Where a mark that the read cut short begins, if `data` ends in one."""
    begun = data.rfind(_INTRODUCER, max(0, len(data) - _LONGEST_MARK))
    if begun >= 0:
        body = data[begun + len(_INTRODUCER) :]
        # Complete marks were split off already: a terminator or another escape here is no mark.
        return begun if b"\x07" not in body and b"\x1b" not in body[:-1] else None
    for length in range(len(_INTRODUCER) - 1, 0, -1):
        if data.endswith(_INTRODUCER[:length]):
            return len(data) - length
    return None
