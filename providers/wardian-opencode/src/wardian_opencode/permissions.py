"""What OpenCode's event stream told of permission requests, shared by the two parsers of one
launch: the screen reports a permission panel only as the fallback for one the stream did not.

The stream (the server's socket) and the screen (the PTY, through the terminal server) reach the
host by separate ways, and either may be behind the other. Under load the screen is read late: a
panel the stream had asked and answered, and whose turn it had ended, was still on the screen the
host read, and reported then it opened a dialog after the turn's end (OpenCode 1.18.33, a
rejected permission: the turn ends 20 ms after the answer).
"""

from dataclasses import dataclass, field
from weakref import WeakValueDictionary

from wardian_core.provider import SpawnContext
from wardian_opencode import server


@dataclass(eq=False)
class PermissionLedger:
    # Asked and not answered yet, by request id.
    pending: set[str] = field(default_factory=set)
    # Every ask and answer read so far: the screen notes it at each look without a panel.
    told: int = 0

    def asked(self, request: str | None) -> None:
        self.told += 1
        if request is not None:
            self.pending.add(request)

    def replied(self, request: str | None) -> None:
        self.told += 1
        self.pending.discard(request or "")

    def told_of_panel(self, told_when_none_showed: int) -> bool:
        """Whether the panel on the screen is one the stream told of: one is asked now, or one
        was asked or answered since the screen last showed none (the one still drawn)."""
        return bool(self.pending) or self.told != told_when_none_showed


# The host asks for each source's parser apart, each with its own copy of the launch's context:
# the two parsers of one launch (its agent, its server's port) meet here. An entry lives as long
# as a parser holds it.
_LEDGERS: WeakValueDictionary[tuple[str, int | None], PermissionLedger] = WeakValueDictionary()


def ledger_for(ctx: SpawnContext) -> PermissionLedger:
    """The ledger of `ctx`'s launch, made by whichever of its parsers comes first."""
    key = (ctx.agent_uuid, server.port(ctx))
    ledger = _LEDGERS.get(key)
    if ledger is None:
        ledger = _LEDGERS[key] = PermissionLedger()
    return ledger
