"""A role played by an agent on another machine (`{"agent": "name@remote"}`): the node's prompt
is asked of that agent over the user's own ssh, as `wardian ask name@remote` asks it, and the
reply is the node's output. The remote machine's host runs the agent; this one only waits."""

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

from wardian_core.workflows.model import AgentNode, RoleMapping
from wardian_host.remote.addressing import ADDRESS
from wardian_host.remote.asker_claims import with_asker_claim

# Past the node's own limit: ssh's connect, and the ask's delivery to a starting agent (as `wardian ask`).
LINK_ALLOWANCE_SECONDS = 180.0


class RemotePlayer(NamedTuple):
    agent: str
    remote: str

    @property
    def address(self) -> str:
        return f"{self.agent}@{self.remote}"


def remote_player(mapping: RoleMapping) -> RemotePlayer | None:
    """The agent on another machine a role names, or None for a player on this one."""
    found: re.Match[str] | None = ADDRESS.match(mapping.agent) if mapping.agent else None
    return RemotePlayer(found.group("agent"), found.group("remote")) if found else None


def ask_args(player: RemotePlayer, node: AgentNode, asker: str) -> list[str]:
    """The remote's command line: the prompt comes on stdin (no argument-length limit)."""
    args = ["ask", player.agent, "--stdin", "--timeout", f"{node.timeout:f}s"]  # never 1e+06s
    return with_asker_claim(args, asker)


async def ask_remote(
    home: Path, player: RemotePlayer, node: AgentNode, prompt: str, asker: str, on_started: Callable[[int], None]
) -> dict[str, Any]:
    """The remote ask's answer (its request, reply and events); its error envelope raised."""
    from wardian_host.remote.host_calls import remote_of, run_on
    from wardian_host.remote.ssh import answer_of

    remote = remote_of(home, player.remote)
    ran = await run_on(remote, ask_args(player, node, asker), prompt.encode(), on_started)
    return answer_of(remote, ran)
