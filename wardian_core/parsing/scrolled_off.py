"""Plain text that scrolls off the screen before it is read: left out of a replay.

A screen look at a flooding agent replayed its last 64 KiB into the emulator, ~60 ms of CPU
on the host's loop twice a second, most of it drawing lines that scroll away unseen. Text of
printable ASCII, carriage returns and line feeds only (no escape, no tab, no other control)
moves the cursor in a way that can be skipped exactly, as long as everything the screen then
shows is drawn by what is kept after the skip:

- a run of printable characters with no line end wraps every `cols` characters, so dropping
  a whole number of rows' worth from its start leaves every later character in its column.
  `rows + 1` rows of it are kept: its first row (which may share a row with older text)
  scrolls away, and every row after it is drawn whole or made blank by a scroll;
- after a `\\r\\n` the cursor is at column 0 of a new row, whatever came before; starting a
  replay there with `\\r\\n` of its own puts it in the same column. Lines may be short and
  leave older text beside them, so at least `2 * rows + 2` line feeds are kept: from any row
  that many scroll the whole screen away at least once, and every visible row is one the
  kept text started blank, in the replay and in the real terminal alike.

That holds only while lines wrap, characters overwrite and a line feed at the bottom scrolls
the whole screen: `ScreenModel.plain_text_scrolls` checks the emulator is in that state before
a stretch is cut. What is skipped changes nothing the screen shows, its cursor or its title.
"""

import re

# Shorter stretches cost little to draw: not worth a scan.
SMALLEST_STRETCH_BYTES = 4096
# A stretch is looked for only where plain text begins: tried at every byte, a run just short
# of the smallest was read again from each of its bytes, and a TUI's rows of 1000 columns
# between cursor moves held the host's loop 1.3 s in one search of 1 MiB.
PLAIN_STRETCH = re.compile(rb"(?<![\x20-\x7e\r\n])[\x20-\x7e\r\n]{%d,}" % SMALLEST_STRETCH_BYTES)
_RUN = re.compile(rb"[\x20-\x7e]+")


def kept_lines(rows: int) -> int:
    return 2 * rows + 2


def scrolled_off(stretch: bytes, rows: int, cols: int) -> bytes:
    """`stretch` (of plain text only, as `PLAIN_STRETCH` finds) without what scrolls off unseen."""
    kept_run = (rows + 1) * cols

    def shorter(run: re.Match[bytes]) -> bytes:
        text = run.group()
        whole_rows = (len(text) - kept_run) // cols
        return text[whole_rows * cols :] if whole_rows > 0 else text

    return _from_line_start(_RUN.sub(shorter, stretch), kept_lines(rows))


def _from_line_start(stretch: bytes, keep: int) -> bytes:
    """From the `\\r\\n` with at least `keep` line feeds after it, the latest such."""
    position = len(stretch)
    for _ in range(keep):
        position = stretch.rfind(b"\n", 0, position)
        if position < 0:
            return stretch
    start = stretch.rfind(b"\r\n", 0, position)
    if start <= 0:
        return stretch  # nothing before it to leave out
    return stretch[start:]
