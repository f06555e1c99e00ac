"""A settle timer: something a parser saw counts only once it has lasted a while.

A dialog drawn a moment ago may not take a key yet, or may be gone again before a
hook reports it. The parser starts the timer (its delay goes into
`ParseResult.call_again_after`), cancels it when the thing goes away, and asks in
the parser's `quiet` whether it came due.
"""

from dataclasses import dataclass


@dataclass
class Settle:
    seconds: float
    pending: bool = False

    def start(self) -> float:
        """Start (or restart) waiting; the delay to ask the host for."""
        self.pending = True
        return self.seconds

    def cancel(self) -> None:
        self.pending = False

    def due(self) -> bool:
        """In the quiet call: whether what was seen lasted; true once per start."""
        was_pending, self.pending = self.pending, False
        return was_pending
