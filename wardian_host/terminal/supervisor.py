"""Owns agents' terminals: starts them, reads and writes without blocking, notices exits.

Everything runs on the event loop through readiness callbacks: output through
`add_reader` on the PTY, input through a queue drained by `add_writer` (a long paste
into a busy child never blocks the host), exit through the backend's exit watch (a pidfd
on Linux, SIGCHLD elsewhere; EOF on the PTY is not exit: a grandchild may still hold it open).

The rest of the host talks to this part through `TerminalSupervisor`'s methods alone,
naming a terminal by the agent's uuid and hearing back through the two callbacks given
at launch; nothing outside this package holds a PTY, so this part can later move into
a process of its own.
"""

import asyncio
import functools
import logging
import signal
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from wardian_core.parsing import terminal_side
from wardian_core.process_identity import TOKEN_VARIABLE, ProcessIdentity, new_token
from wardian_core.pty_backend import Backend
from wardian_host.terminal import Terminal, agent_cgroups, process_tree, spawn_terminal
from wardian_host.terminal.agent_cgroups import AgentCgroups
from wardian_host.terminal.posix import resolve_executable

log = logging.getLogger(__name__)

READ_BATCH_BYTES = 256 * 1024
WRITE_CHUNK_BYTES = 64 * 1024

OutputHandler = Callable[[bytes], None]
ExitHandler = Callable[[int | None, str | None], None]  # (exit code, the host's stop reason or None)


@dataclass(eq=False)
class _Session:
    """One launch's PTY; a relaunch makes a new one, so late callbacks of the old are ignored."""

    key: str
    terminal: Terminal
    on_output: OutputHandler
    on_exit: ExitHandler
    pending_input: bytearray = field(default_factory=bytearray)
    stop_reason: str | None = None
    exited: asyncio.Event = field(default_factory=asyncio.Event)


class TerminalSupervisor:
    def __init__(self, loop: asyncio.AbstractEventLoop, backend: Backend, cgroups: AgentCgroups | None = None) -> None:
        self._loop = loop
        self.backend = backend
        self.cgroups = cgroups  # each agent's own cgroup, where the system allows one
        self._sessions: dict[str, _Session] = {}

    def launch(
        self, key: str, argv: list[str], env: dict[str, str], cwd: Path, on_output: OutputHandler, on_exit: ExitHandler
    ) -> ProcessIdentity:
        """Start `argv` in a new PTY for agent `key`; returns what identifies its processes."""
        token = new_token()
        procs = self.cgroups.prepare(key) if self.cgroups is not None else None
        if procs is not None:  # resolved first, so a missing executable is still reported as one
            argv = agent_cgroups.entering(procs, resolve_executable(argv[0], env, cwd), argv[1:])
        terminal = spawn_terminal(argv, env | {TOKEN_VARIABLE: token}, cwd, self.backend)
        session = _Session(key, terminal, on_output, on_exit)
        self._sessions[key] = session
        self._loop.add_reader(terminal.fileno(), self._read, session)
        terminal.watch_exit(self._loop, functools.partial(self._exited, session))
        return process_tree.capture(terminal.pid, terminal.session_id, token)

    def _current(self, session: _Session) -> bool:
        return self._sessions.get(session.key) is session

    def _read(self, session: _Session) -> None:
        if not self._current(session):
            return
        terminal = session.terminal
        # Drain what is there (up to a bound) so a flood costs one parser call per batch,
        # not one per 4 KiB read, and other agents still get their turn on the loop.
        batch = bytearray()
        while len(batch) < READ_BATCH_BYTES:
            data = terminal.read_available()
            if data is None:
                break
            if not data:  # every slave end closed; the exit comes through the exit watch
                self._loop.remove_reader(terminal.fileno())
                break
            batch += data
        if batch:
            session.on_output(bytes(batch))

    def _exited(self, session: _Session) -> None:
        if not self._current(session):
            return
        terminal = session.terminal
        terminal.unwatch_exit(self._loop)
        while tail := terminal.read_available():  # what the child wrote just before it died
            session.on_output(tail)
        self._loop.remove_reader(terminal.fileno())
        self._loop.remove_writer(terminal.fileno())
        exit_code = terminal.reap()
        terminal.close()
        del self._sessions[session.key]
        if self.cgroups is not None:
            self.cgroups.release(session.key)
        try:
            session.on_exit(exit_code, session.stop_reason)
        finally:  # whoever stops the agent must hear of the exit even when its handler failed
            session.exited.set()

    def write(self, key: str, data: bytes) -> None:
        session = self._sessions.get(key)
        if session is None:
            raise RuntimeError(f"agent {key} has no terminal")
        session.pending_input += data
        self._flush(session)

    def _flush(self, session: _Session) -> None:
        if not self._current(session):
            return
        terminal = session.terminal
        written = terminal.write_some(bytes(session.pending_input[:WRITE_CHUNK_BYTES]))
        del session.pending_input[:written]
        if session.pending_input:
            self._loop.add_writer(terminal.fileno(), self._flush, session)
        else:
            self._loop.remove_writer(terminal.fileno())

    def resize(self, key: str, rows: int, cols: int) -> None:
        session = self._sessions.get(key)
        if session is not None:
            session.terminal.resize(terminal_side(rows), terminal_side(cols))

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
            hang_up = functools.partial(session.terminal.signal_group, signal.SIGHUP)
        find = functools.partial(process_tree.agent_processes, identity)
        ended = await asyncio.to_thread(process_tree.end_processes, find, grace_seconds, hang_up)
        survivors = [process.pid for process in ended]
        if survivors:
            log.error("agent %s: processes %s survived SIGKILL", key, survivors)
        if session is not None and session.terminal.pid not in survivors:
            await session.exited.wait()
        if self.cgroups is not None:  # its exit came before the rest of its tree was ended
            self.cgroups.release(key)
        return survivors
