"""Other machines' agents in the web view (the remotes of settings.toml, reached over ssh).

A remote host pushes nothing to this one, so the view reads each remote's roster
(`agent list`, as `agent list --remote all` does) every ROSTER_SECONDS while a page is open,
and at once after a person acted on a remote agent. A remote tile shows its agent's screen
(`agent screen`), read every SCREEN_SECONDS while the tile is on screen: no live stream of
its bytes, and no typing into it. A person's actions on a remote agent run as the CLI's
`wardian --remote MACHINE …` does, over the same ssh path (`remote.ssh.run_captured`).
"""

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from wardian_core.errors import WardianError
from wardian_host.remote.options import Remote
from wardian_host.remote.roster import MachineRoster, chosen_remotes, merged, remote_rosters
from wardian_host.remote.settings import LOCAL_MACHINE, remote_named
from wardian_host.remote.ssh import answer_of, run_captured

log = logging.getLogger(__name__)

ROSTER_SECONDS = 5.0
SCREEN_SECONDS = 2.0
REMOTE_SECONDS = 60.0  # one remote command's bound; ssh's own ConnectTimeout names a dead link first
ROSTER_ARGS = ["--scope", "all", "--verbose"]
NO_TERMINAL = ("off", "headless")  # a roster row's statuses with no screen to read

# The agent verbs a page may use on a remote agent, as the CLI spells them.
AGENT_VERBS = {"agent.kill": "kill", "agent.pause": "pause", "agent.resume": "resume",
               "agent.restart": "restart", "agent.clear": "clear",
               "agent.resume_limit": "resume-limit"}  # fmt: skip

Send = Callable[[dict[str, Any]], Awaitable[None]]


def remote_args(kind: str, params: dict[str, Any]) -> list[str]:
    """The `wardian` arguments that do a page's action `kind` on the remote agent it names."""
    if kind in AGENT_VERBS and isinstance(params.get("target"), str):
        return ["agent", AGENT_VERBS[kind], "--", params["target"]]  # a target is never an option
    if kind == "send" and isinstance(params.get("to"), str):
        if params.get("approval") in ("accept", "reject"):
            return ["send", "--approval", params["approval"], "--to", params["to"]]
        if isinstance(params.get("text"), str) and params["text"]:
            return ["send", "--to", params["to"], "--", params["text"]]  # a text may start with "-"
    raise WardianError(
        "not_supported",
        f"the web view cannot do {kind} with these parameters on another machine's agent",
        "Use `wardian --remote MACHINE …` for it.",
        {"kind": kind},
    )


async def run_remote(home: Path, machine: str, args: list[str]) -> dict[str, Any]:
    """`args` run by `machine`'s `wardian`, its JSON answer; its error envelope raised as one."""
    remote = Remote(machine, remote_named(home, machine))
    return answer_of(remote, await asyncio.to_thread(run_captured, remote, args, REMOTE_SECONDS))


def with_machines(state: dict[str, Any], rosters: list[MachineRoster]) -> dict[str, Any]:
    """A page's state with every machine: this one's agents marked `local`, each remote's after."""
    machines = [{"machine": LOCAL_MACHINE, "reachable": True}] + [
        {"machine": roster.machine, "reachable": roster.reachable} | ({"error": roster.error} if roster.error else {})
        for roster in rosters
    ]
    local = [{"machine": LOCAL_MACHINE} | agent for agent in state["agents"]]
    remote = [agent | {"is_running": agent.get("status") not in NO_TERMINAL} for agent in merged(rosters)]
    return state | {"agents": local + remote, "machines": machines}


class RemoteRosters:
    """The remotes' rosters as last read; `changed` is told when they differ."""

    def __init__(self, home: Path, changed: Callable[[], None]) -> None:
        self._home = home
        self._changed = changed
        self.rosters: list[MachineRoster] = []
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._follow())

    def read_soon(self) -> None:
        """A person acted on a remote agent: its status is read now, not at the next turn."""
        self._wake.set()

    async def stop(self) -> None:
        if self._task is not None:
            task, self._task = self._task, None
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def _follow(self) -> None:
        while True:
            try:
                rosters = await asyncio.to_thread(self._read)
            except WardianError as error:  # settings.toml names a remote wrongly: said, and read again later
                log.warning("web view: remotes not read: %s", error.message)
                rosters = []
            # A bug in one read must not end the following for good: logged, and read again later.
            except Exception:
                log.error("web view: remotes not read", exc_info=True)
                rosters = self.rosters
            if rosters != self.rosters:
                self.rosters = rosters
                self._changed()
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), ROSTER_SECONDS)

    def _read(self) -> list[MachineRoster]:
        return remote_rosters(chosen_remotes(self._home, "all"), ROSTER_ARGS)


async def follow_screen(home: Path, machine: str, agent: str, send: Send) -> None:
    """A remote tile's screen, read every SCREEN_SECONDS until cancelled (the tile closed)."""
    with contextlib.suppress(ConnectionError, RuntimeError):  # the page left
        while True:
            try:
                screen = (await run_remote(home, machine, ["agent", "screen", "--", agent]))["screen"]
                item: dict[str, Any] = {"screen": {"rows": screen["rows"], "cursor": screen["cursor"]}}
            except WardianError as error:
                item = {"error": error.envelope()["error"]}
            await send({"op": "terminal", "agent": agent} | item)
            await asyncio.sleep(SCREEN_SECONDS)
