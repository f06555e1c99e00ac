"""Running a provider headless once (workflow nodes, tests): pipes instead of a PTY.

stdin is closed, the process gets its own session and process group, stdout is fed
line by line to the same parser as the interactive launch (source `headless`), and a
timeout ends the whole group. The run's statuses follow the same rules as a live
agent's, but stay in the run's answer: the agent's own status is its terminal's.
"""

import asyncio
import os
import signal
from collections.abc import Callable
from typing import Any

from wardian_core.errors import WardianError
from wardian_core.provider_models import LaunchPlan, ParseResult, ProviderEvent, SpawnContext
from wardian_core.status_rules import StatusCourse
from wardian_core.statuses import Status
from wardian_host.providers.source_parser import SourceParser

STDERR_TAIL_BYTES = 4000
# A run that exits 0 in one of these has ended its turn all the same.
WORKING = ("processing",)


class HeadlessRun:
    def __init__(self, parser: SourceParser) -> None:
        self._parser = parser
        self.events: list[dict[str, Any]] = []
        self._course = StatusCourse()
        self.timeline: list[dict[str, Any]] = []
        self.session_id: str | None = None

    def _take(self, result: ParseResult) -> None:
        for event in result.events:
            self._record(event)

    def _record(self, event: ProviderEvent) -> None:
        self.events.append(event.model_dump(mode="json", exclude_defaults=True))
        if event.kind == "session_started" and event.session_id:
            self.session_id = event.session_id
        before = self._course.status
        target = self._course.apply(event.kind, event.turn)
        if target is not None:
            self.timeline.append({"from": before, "to": target, "event": event.kind, "rule": event.evidence.rule})

    def _end(self, to: Status, event: str, rule: str) -> None:
        """An end of the run no provider event told: a timeout, a non-zero exit, a quiet exit 0."""
        self.timeline.append({"from": self._course.status, "to": to, "event": event, "rule": rule})
        self._course.status, self._course.before_dialog = to, None

    async def run(
        self,
        ctx: SpawnContext,
        plan: LaunchPlan,
        env: dict[str, str],
        # The run's timeout, whose expiry ends the process group and is recorded as the run's end.
        timeout: float,  # noqa: ASYNC109
        on_start: Callable[[int], None] | None = None,
    ) -> dict[str, Any]:
        """`on_start` is told the process's pid (its process group's too) once it runs. A cancelled
        run ends the whole group before it gives way."""
        process = await asyncio.create_subprocess_exec(
            *plan.argv,
            cwd=plan.cwd,
            env=env,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,
            limit=16 * 1024 * 1024,
        )
        if on_start is not None:
            on_start(process.pid)
        self._take(self._parser.opened(ctx))
        assert process.stderr is not None  # stderr=PIPE above
        stderr_task = asyncio.ensure_future(process.stderr.read())
        timed_out = False
        try:
            await asyncio.wait_for(self._read_lines(ctx, process), timeout)
            exit_code = await process.wait()
        except TimeoutError:
            timed_out = True
            exit_code = await end_group(process)
        except asyncio.CancelledError:
            stderr_task.cancel()
            await end_group(process)
            raise
        stderr = (await stderr_task)[-STDERR_TAIL_BYTES:].decode(errors="replace")
        if timed_out:
            self._end("error", "timeout", f"{timeout:g}s")
        elif exit_code != 0 and self._course.status != "error":
            self._end("error", "exit", f"exit {exit_code}")
        elif exit_code == 0 and self._course.status in WORKING:
            # The CLI ended its run without a record saying so (OpenCode's `run` after a refused tool).
            self._end("idle", "exit", "exit 0 while working")
        return {
            "status": self._course.status,
            "exit_code": exit_code,
            "timed_out": timed_out,
            "session_id": self.session_id,
            "events": self.events,
            "timeline": self.timeline,
            "stderr_tail": stderr,
        }

    async def _read_lines(self, ctx: SpawnContext, process: asyncio.subprocess.Process) -> None:
        assert process.stdout is not None
        async for raw in process.stdout:
            line = raw.rstrip(b"\r\n")
            if line:
                self._take(self._parser.parse(ctx, line))


def kill_group(pid: int) -> None:
    """End the process group `pid` leads (its session's: started with start_new_session)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(pid, sig)
        except ProcessLookupError:
            return


async def end_group(process: asyncio.subprocess.Process) -> int:
    """End `process`'s group and reap its leader: whoever stops a run may say at once that its
    process is gone. A SIGKILL is delivered in the kernel's own time and a killed child lingers
    as a zombie until reaped, so without the wait a stopped node's process was seen still there."""
    kill_group(process.pid)
    return await process.wait()


def check_capability(provider: str, capabilities: list[str]) -> None:
    if "headless" not in capabilities:
        raise WardianError(
            "not_supported",
            f"provider {provider!r} cannot run headless",
            "Use a provider with the `headless` capability (see `wardian providers list`).",
            {"provider": provider},
        )
