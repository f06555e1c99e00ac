"""Where a forwarded `ask` comes from: this machine's name and the asker it claims to be.

The remote host records both as a claim it cannot verify (`asker_verified: false`) and gives
it no identity: the asker is named in the request, never taken as one of its own agents.
"""

import os
import socket
from pathlib import Path

from wardian_core.errors import WardianError

ASKER_MACHINE_OPTION = "--asker-machine"
ASKER_NAME_OPTION = "--asker-name"
_NOT_AN_ASK = (["show"], ["list"], ["--help"], ["-h"])


def this_machine() -> str:
    """The name this machine gives itself: what a remote records as the asking machine."""
    return socket.gethostname() or "unknown"


def with_asker_claim(args: list[str], asker: str | None) -> list[str]:
    """`args` with the claim added when they are an ask (not `ask show|list`); others as they are."""
    if not args or args[0] != "ask" or args[1:2] in _NOT_AN_ASK:
        return args
    at = 2 if args[1:2] == ["question"] else 1
    claim = [ASKER_MACHINE_OPTION, this_machine(), *([ASKER_NAME_OPTION, asker] if asker else [])]
    return [*args[:at], *claim, *args[at:]]


def local_asker(home: Path) -> str | None:
    """The agent this process's WARDIAN_SESSION_ID names in `home`, if any (else a person asks)."""
    from wardian_core.db.agents import get_agent
    from wardian_core.db.connection import reading

    session_id = os.environ.get("WARDIAN_SESSION_ID", "").strip()
    if not session_id:
        return None
    try:
        with reading(home) as conn:
            row = get_agent(conn, session_id)
    except WardianError:
        return None  # no readable state here: the ask goes on as a person's
    return str(row["name"]) if row else None
