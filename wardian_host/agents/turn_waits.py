"""Whether a CLI call waited on an agent's turn (`send --wait-until idle`, `agent wait --until
idle`, `ask`): whoever ran it has the turn's result, so its end needs no notice that nobody
looked. A call counts from the moment it waits, so a turn that ends in the same instant as its
answer arrives is still its; a wait that gave up leaves no mark on the next turn."""

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass


@dataclass
class TurnWaits:
    calls: int = 0  # CLI calls waiting on the agent now
    this_turn: bool = False  # a call waited at some point of the present turn

    @contextlib.contextmanager
    def waiting(self) -> Iterator[None]:
        self.calls += 1
        self.this_turn = True
        try:
            yield
        finally:
            self.calls -= 1

    def awaited(self, previous: str, current: str) -> bool:
        """At a status change: whether a call waited on the turn this change is part of."""
        if current == "processing" and previous != "action_required":  # a new turn begins
            self.this_turn = self.calls > 0
        return self.this_turn or self.calls > 0
