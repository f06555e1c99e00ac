"""Owns agents' terminals for the host: starts them, writes, resizes, notices exits, stops them.

The rest of the host talks to this part through `TerminalSupervisor`'s methods alone,
naming a terminal by the agent's uuid and hearing back through the two callbacks given
at launch. The PTYs themselves are held by a `PtyOwner`: the terminal server, a process
of its own that outlives the host (`server_client.ServerPtys`). What is the host's alone stays here: the
agent's cgroup, the launch token and the identity of its processes, the stop of its
whole process tree, and why the host stopped it.
"""

import asyncio
import concurrent.futures
import contextlib
import functools
import logging
import os
import signal
import threading
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar

from wardian_core.parsing import DEFAULT_COLS, DEFAULT_ROWS
from wardian_core.process_identity import TOKEN_VARIABLE, ProcessIdentity, new_token
from wardian_core.pty_backend import Backend
from wardian_core.recording_format import Target
from wardian_host.terminal import agent_cgroups, process_tree
from wardian_host.terminal.agent_cgroups import AgentCgroups
from wardian_host.terminal.posix import resolve_executable
from wardian_host.terminal.ptys import ExitCodeHandler, OutputHandler

log = logging.getLogger(__name__)
T = TypeVar("T")

ExitHandler = Callable[[int | None, str | None], None]  # (exit code, the host's stop reason or None)
# The stop reason of a terminal that ended because the terminal server did (killed, out of memory).
SERVER_ENDED = "terminal server ended"


class PtyOwner(Protocol):
    """Where the PTYs live; each answers `open` with the child's pid and session."""

    async def open(
        self,
        key: str,
        argv: list[str],
        env: dict[str, str],
        cwd: Path,
        size: tuple[int, int],
        on_output: OutputHandler,
        on_exit: ExitCodeHandler,
        first_offset: int = 0,
        recording: Target | None = None,
    ) -> tuple[int, int]: ...

    def follow(self, key: str, offset: int, on_output: OutputHandler, on_exit: ExitCodeHandler) -> None: ...

    # Called before the exits of every terminal it held, when the owner itself is gone.
    on_server_lost: Callable[[], None]

    @property
    def alive(self) -> bool: ...

    def write(self, key: str, data: bytes) -> None: ...

    def parsed(self, key: str, offset: int) -> None: ...

    def resize(self, key: str, rows: int, cols: int) -> None: ...


@dataclass(eq=False)
class _Session:
    """One launch; a relaunch makes a new one, so late callbacks of the old are ignored."""

    key: str
    pid: int
    on_output: OutputHandler
    on_exit: ExitHandler
    stop_reason: str | None = None
    exited: asyncio.Event = field(default_factory=asyncio.Event)
    # False until `launch` has its answer. The answer, the first output and the exit of a command
    # that ends at once can come in one read, and the exit is then dispatched before the launch's
    # caller resumes; told then, the caller would record a running agent over its exit.
    launched: bool = True
    exit_held: tuple[int | None] | None = None


class TerminalSupervisor:
    def __init__(
        self, backend: Backend, connect: Callable[[], Awaitable[PtyOwner]], cgroups: AgentCgroups | None = None
    ) -> None:
        self._connect = connect
        self._owner: PtyOwner | None = None  # reached in `start`, again by a launch after it ended
        self.backend = backend
        self.cgroups = cgroups  # each agent's own cgroup, where the system allows one
        self._sessions: dict[str, _Session] = {}

    async def start(self) -> None:
        """Reach the PTYs' owner (the terminal server: started if none runs)."""
        owner = await self._connect()
        owner.on_server_lost = self._server_lost
        self._owner = owner

    def _server_lost(self) -> None:
        """Every terminal's exit that follows was the server's end, not the agent's own."""
        for session in self._sessions.values():
            session.stop_reason = session.stop_reason or SERVER_ENDED

    @property
    def owner(self) -> PtyOwner:
        if self._owner is None:
            raise RuntimeError("the host has no terminals yet: it is still starting")
        return self._owner

    async def launch(
        self,
        key: str,
        argv: list[str],
        env: dict[str, str],
        cwd: Path,
        on_output: OutputHandler,
        on_exit: ExitHandler,
        first_offset: int = 0,
        recording: Target | None = None,
    ) -> ProcessIdentity:
        """Start `argv` in a new PTY for agent `key`; returns what identifies its processes.

        `first_offset` is the offset its first byte of output gets (the agent's output cursor:
        cursors handed out stay valid for a host that adopts the terminal later)."""
        if self._owner is None or not self._owner.alive:  # the server ended: a new one is started
            await self.start()
        token = new_token()
        procs = self.cgroups.prepare(key) if self.cgroups is not None else None
        if procs is not None:  # resolved first, so a missing executable is still reported as one
            argv = agent_cgroups.entering(procs, resolve_executable(argv[0], env, cwd), argv[1:])
        session = _Session(key, 0, on_output, on_exit, launched=False)
        self._sessions[key] = session  # before the answer: a server's first output may come with it
        try:
            pid, session_id = await self.owner.open(
                key,
                argv,
                env | {TOKEN_VARIABLE: token},
                cwd,
                (DEFAULT_ROWS, DEFAULT_COLS),
                functools.partial(self._output, session),
                functools.partial(self._exited, session),
                first_offset,
                recording,
            )
        except BaseException:
            if self._current(session):
                del self._sessions[key]
            raise
        session.pid, session.launched = pid, True
        identity = process_tree.capture(pid, session_id, token)
        if session.exit_held is not None:  # told once the caller has recorded the launch
            asyncio.get_running_loop().call_soon(self._exited, session, *session.exit_held)
        return identity

    def adopt(self, key: str, pid: int, offset: int, on_output: OutputHandler, on_exit: ExitHandler) -> None:
        """Take on a terminal a previous host launched, hearing its output from `offset` on."""
        session = _Session(key, pid, on_output, on_exit)
        self._sessions[key] = session
        self.owner.follow(
            key, offset, functools.partial(self._output, session), functools.partial(self._exited, session)
        )

    def _current(self, session: _Session) -> bool:
        return self._sessions.get(session.key) is session

    def _output(self, session: _Session, data: bytes) -> None:
        if self._current(session):
            session.on_output(data)

    def _exited(self, session: _Session, exit_code: int | None) -> None:
        if not self._current(session):
            return
        if not session.launched:
            session.exit_held = (exit_code,)
            return
        del self._sessions[session.key]
        if self.cgroups is not None:
            self.cgroups.release(session.key)
        try:
            session.on_exit(exit_code, session.stop_reason)
        finally:  # whoever stops the agent must hear of the exit even when its handler failed
            session.exited.set()

    def parsed(self, key: str, offset: int) -> None:
        """The agent's output up to `offset` was parsed and its events reported (kept by the owner
        for a host that adopts the terminal later)."""
        if key in self._sessions:
            self.owner.parsed(key, offset)

    def write(self, key: str, data: bytes) -> None:
        if key not in self._sessions:
            raise RuntimeError(f"agent {key} has no terminal")
        self.owner.write(key, data)

    def resize(self, key: str, rows: int, cols: int) -> None:
        if key in self._sessions:
            self.owner.resize(key, rows, cols)

    async def wait_exit(self, key: str) -> None:
        """Return once agent `key`'s current terminal has exited (at once if none runs)."""
        session = self._sessions.get(key)
        if session is not None:
            await session.exited.wait()

    async def stop(
        self, key: str, reason: str, grace_seconds: float, identity: ProcessIdentity | None = None
    ) -> list[int]:
        """End the agent's whole process tree; `reason` marks the exit as caused by the host.

        `identity` is what the agent's launch recorded: its processes are found by it
        (also when no terminal of ours runs them: an agent that outlived a previous host).
        Returns the pids of processes that outlived SIGKILL (none, unless stuck in the kernel).
        """
        session = self._sessions.get(key)
        hang_up = None
        if session is not None:
            session.stop_reason = reason
            # As when a terminal window closes: shells and TUIs that ignore SIGTERM end on a hangup.
            # Sent once the processes are found and frozen, so none is re-parented before it is seen.
            hang_up = functools.partial(_signal_group, session.pid, signal.SIGHUP)
        find = functools.partial(process_tree.agent_processes, identity)
        ended = await _in_own_thread(functools.partial(process_tree.end_processes, find, grace_seconds, hang_up))
        survivors = [process.pid for process in ended]
        if survivors:
            log.error("agent %s: processes %s survived SIGKILL", key, survivors)
        if session is not None and session.pid not in survivors:
            await session.exited.wait()
        if self.cgroups is not None:  # its exit came before the rest of its tree was ended
            self.cgroups.release(key)
        return survivors


async def _in_own_thread(blocking: Callable[[], T]) -> T:
    """`blocking()` in a thread of its own. A stop waits out its grace period in its thread, and
    the loop's shared pool has a handful of threads on a small machine (6 on 2 cores): the
    seventh agent of a `host stop` waited for a first one's grace before its own began."""
    done: concurrent.futures.Future[T] = concurrent.futures.Future()

    def run() -> None:
        if not done.set_running_or_notify_cancel():
            return
        try:
            done.set_result(blocking())
        except Exception as error:  # noqa: BLE001 - handed to the awaiting task, which raises it
            done.set_exception(error)

    # Not a daemon: a host exiting meanwhile finishes the stop, as with the loop's own pool.
    threading.Thread(target=run, name="wardian-stop").start()
    return await asyncio.wrap_future(done)


def _signal_group(leader: int, signal_number: int) -> None:
    """The agent's process group: its leader is the agent's own process (a new session's)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(leader, signal_number)
