"""Watching a PTY stream for markers: when a TUI rule should look at the screen.

The stream is cheap to scan and the screen costs a replay, so a TUI parser scans the
squeezed stream (a TUI draws spaces by moving the cursor) for the markers its screen
rules read, and asks for the screen when one shows. A marker cut between two reads is
still seen once: the end of the stream after the last marker found is kept.
"""

from dataclasses import dataclass, field

from wardian_core.parsing.escapes import TerminalText, squeeze

# Longer than any marker a parser looks for; what is kept between two reads.
TAIL_CHARS = 200


@dataclass
class MarkerWatch:
    text: TerminalText = field(default_factory=TerminalText)
    tail: str = ""

    def saw_any(self, data: bytes, markers: tuple[str, ...]) -> bool:
        """Whether one of `markers` (squeezed: see `squeeze`) shows in this chunk."""
        squeezed = self.tail + squeeze(self.text.feed(data))
        ends = [squeezed.rfind(marker) + len(marker) for marker in markers if marker in squeezed]
        self.tail = squeezed[max(ends, default=0) :][-TAIL_CHARS:]
        return bool(ends)
