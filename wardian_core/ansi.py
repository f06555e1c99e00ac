"""Terminal output as text: escape sequences removed, line endings normalised."""

import re

_ESCAPES = re.compile(
    rb"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor movement, erase
    rb"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC: titles, hyperlinks
    rb"|\x1b[PX^_][^\x1b]*\x1b\\"  # DCS, SOS, PM, APC strings
    rb"|\x1b[()*+][0-9A-Za-z]"  # character set selection
    rb"|\x1b[@-Z\\-_=>78]"  # two-byte escapes
)
_CONTROLS = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1a\x1c-\x1f\x7f]")


def strip_ansi(data: bytes) -> str:
    text = _CONTROLS.sub(b"", _ESCAPES.sub(b"", data))
    return text.replace(b"\r\n", b"\n").replace(b"\r", b"\n").decode("utf-8", errors="replace")
