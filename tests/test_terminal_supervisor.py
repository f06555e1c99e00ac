"""The terminal supervisor between the host and the PTYs' owner: the order in which it tells the
host of a launch, its output and its exit."""

import asyncio
import os
import threading
from pathlib import Path

import pytest

from wardian_core.pty_backend import chosen_backend
from wardian_core.recording_format import Target
from wardian_host.terminal import process_tree
from wardian_host.terminal.ptys import ExitCodeHandler, OutputHandler
from wardian_host.terminal.supervisor import TerminalSupervisor


class _OwnerAnsweringWithTheExit:
    """An owner whose answer to `open` comes in one read with the command's output and exit: the
    server client dispatches all three before the launch's caller resumes."""

    alive = True

    def __init__(self) -> None:
        self.on_server_lost = lambda: None

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
    ) -> tuple[int, int]:
        on_output(b"boom-42\r\n")
        on_exit(3)
        return os.getpid(), os.getsid(0)


def test_an_exit_that_comes_with_the_launchs_answer_is_told_after_the_launch_returned(tmp_path: Path) -> None:
    told: list[str] = []

    async def launch_and_settle() -> None:
        owner = _OwnerAnsweringWithTheExit()

        async def connect() -> _OwnerAnsweringWithTheExit:
            return owner

        supervisor = TerminalSupervisor(chosen_backend(), connect)  # type: ignore[arg-type]
        await supervisor.launch(
            "agent-key",
            ["sh", "-c", "exit 3"],
            {},
            tmp_path,
            on_output=lambda data: told.append(f"output {data!r}"),
            on_exit=lambda code, reason: told.append(f"exit {code} {reason}"),
        )
        told.append("launch returned")  # what the host records of a running agent, before it awaits
        await asyncio.wait_for(supervisor.wait_exit("agent-key"), 5)

    asyncio.run(launch_and_settle())

    assert told == ["output b'boom-42\\r\\n'", "launch returned", "exit 3 None"]


def test_stops_at_once_each_wait_in_a_thread_of_their_own(monkeypatch: pytest.MonkeyPatch) -> None:
    # More stops than the loop's shared pool has threads (6 on 2 cores, 32 at most): each ends
    # its agent only once every one has begun, as every grace period of a `host stop` then runs
    # at once. In a shared pool the last ones would wait for a first one's grace.
    stops = 40
    all_begun = threading.Barrier(stops, timeout=60)  # a bound for a hang

    def end_processes(find: object, grace_seconds: float, hang_up: object) -> list[object]:
        all_begun.wait()
        return []

    monkeypatch.setattr(process_tree, "end_processes", end_processes)

    async def stop_all() -> list[list[int]]:
        supervisor = TerminalSupervisor(chosen_backend(), connect=None)  # type: ignore[arg-type]
        return await asyncio.gather(*(supervisor.stop(f"agent-{n}", "host stop", 5.0) for n in range(stops)))

    assert asyncio.run(stop_all()) == [[]] * stops
