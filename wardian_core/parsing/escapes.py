"""Terminal output as text: the one escape stripper every parser and `agent watch` use.

`TerminalText` decodes a PTY stream incrementally: a UTF-8 character or an escape
sequence cut between two reads is kept for the next one, never shown half.
"""

import codecs
import re

# CSI (colours, cursor movement, erase), OSC (titles, hyperlinks; ended by BEL or ST),
# DCS/SOS/PM/APC strings, character-set selection, and two-byte escapes.
# ASCII only, so the same pattern reads bytes (`markers`) and text.
ESCAPE_PATTERN = (
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"
    r"|\x1b[PX^_][^\x1b]*\x1b\\"
    r"|\x1b[()*+][0-9A-Za-z]"
    r"|\x1b[@-Z\\-_=>78]"
)
ESCAPE = re.compile(ESCAPE_PATTERN)
# An escape the read cut short: kept until the rest arrives.
_UNFINISHED = re.compile(r"\x1b(?:\[[0-?]*[ -/]*|\][^\x07\x1b]*\x1b?|[PX^_][^\x1b]*\x1b?|[()*+])?$")
# Controls other than tab, newline and carriage return.
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]")
# An unfinished escape longer than this is no escape the terminal would wait for.
UNFINISHED_LIMIT = 4096


def strip_escapes(text: str) -> str:
    """`text` without escape sequences and control characters (tab, newline and CR stay)."""
    return _CONTROLS.sub("", ESCAPE.sub("", text))


def normalize_newlines(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\r", "\n")


def strip_ansi(data: bytes) -> str:
    """One complete piece of terminal output as readable text, line endings normalised."""
    return normalize_newlines(strip_escapes(data.decode("utf-8", errors="replace")))


def squeeze(text: str) -> str:
    """`text` without whitespace: a TUI draws spaces by moving the cursor, so a stream
    rule compares squeezed text (the screen, see the parser's `screen`, keeps the spaces)."""
    return "".join(text.split())


class TerminalText:
    """A PTY stream as text, fed chunk by chunk."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._unfinished = ""

    def feed(self, data: bytes) -> str:
        text = self._unfinished + self._decoder.decode(data)
        cut = _UNFINISHED.search(text, max(0, len(text) - UNFINISHED_LIMIT))
        if cut is not None:
            self._unfinished, text = text[cut.start() :], text[: cut.start()]
        else:
            self._unfinished = ""
        return strip_escapes(text)
