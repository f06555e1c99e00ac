"""Following the stdout of a command the host runs for a provider (a log follower, an event client).

The command runs in its own session, so closing it reaches whatever it started too
(`sh -c "tail -f … | jq"` leaves no orphan behind). It is restarted when it ends while
the agent runs, with a backoff so a command that fails at once does not spin.
"""

import asyncio
import contextlib
import logging
import os
import signal
from collections.abc import Callable

log = logging.getLogger(__name__)

MAX_LINE_BYTES = 1 << 20
FIRST_RETRY_SECONDS = 0.1
MAX_RETRY_SECONDS = 2.0
TERMINATE_GRACE_SECONDS = 2.0


class CommandStream:
    """Calls `on_line(line)` per line of the command's stdout, without the newline."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        argv: list[str],
        env: dict[str, str],
        on_line: Callable[[bytes], object],
    ) -> None:
        self._loop = loop
        self.argv = list(argv)
        self._env = dict(env)
        self._on_line = on_line
        self._process: asyncio.subprocess.Process | None = None
        self._task: asyncio.Task[None] | None = None
        self._closed = False

    @property
    def pid(self) -> int | None:
        """The running command's process id (its process group's id too)."""
        process = self._process
        return None if process is None or process.returncode is not None else process.pid

    def start(self) -> None:
        self._task = self._loop.create_task(self._follow())

    def close(self) -> None:
        """Stop following; the command's process group is terminated, then killed, and reaped."""
        if self._closed:
            return
        self._closed = True
        self._signal_group(signal.SIGTERM)  # now, in case the loop is not run much longer
        if self._task is not None:
            self._task.cancel()

    async def wait_closed(self) -> None:
        """Wait until, after `close()`, the command has been reaped."""
        if self._task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await self._task

    async def _follow(self) -> None:
        delay, failing = FIRST_RETRY_SECONDS, False
        try:
            while True:
                started = self._loop.time()
                try:
                    await self._run_once()
                    failing = False
                except OSError as error:
                    # Once, not every two seconds for as long as the agent runs.
                    log.log(logging.DEBUG if failing else logging.WARNING, "could not run %s: %s", self.argv[0], error)
                    failing = True
                # A run that lasted is no crash loop: the next one may start again soon.
                if self._loop.time() - started >= MAX_RETRY_SECONDS:
                    delay = FIRST_RETRY_SECONDS
                await asyncio.sleep(delay)
                delay = min(delay * 2, MAX_RETRY_SECONDS)
        except asyncio.CancelledError:
            await self._stop()
            raise

    async def _run_once(self) -> None:
        # A pipe of our own rather than stdout=PIPE: asyncio's wait() also waits for the pipes to
        # close, which a descendant that left the process group could keep open forever.
        read_end, write_end = os.pipe()
        # Wraps the pipe just made: no disk to wait on.
        with open(read_end, "rb", buffering=0) as pipe:  # noqa: ASYNC230
            try:
                process = await asyncio.create_subprocess_exec(
                    *self.argv,
                    stdin=asyncio.subprocess.DEVNULL,
                    stdout=write_end,
                    stderr=asyncio.subprocess.DEVNULL,
                    env={**os.environ, **self._env},
                    start_new_session=True,
                )
            finally:
                os.close(write_end)  # the command has its copy: its end of output is our end of file
            self._process = process
            stdout = asyncio.StreamReader(MAX_LINE_BYTES)
            transport, _ = await self._loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(stdout), pipe)
            try:
                await self._read_lines(stdout)
            finally:
                transport.close()
        await process.wait()
        # What it started and left running would be orphans once it is restarted.
        self._signal_group(signal.SIGTERM)
        self._process = None

    async def _read_lines(self, stdout: asyncio.StreamReader) -> None:
        dropping = False  # inside a line over the limit, whose pieces are thrown away
        while True:
            try:
                line = await stdout.readuntil(b"\n")
            except asyncio.IncompleteReadError as end:
                if end.partial and not dropping:
                    self._deliver(end.partial)
                return
            except asyncio.LimitOverrunError as over:
                await stdout.readexactly(over.consumed)
                if not dropping:
                    log.warning("dropped a line over %d bytes from %s", MAX_LINE_BYTES, self.argv[0])
                dropping = True
                continue
            if dropping:
                dropping = False
            else:
                self._deliver(line[:-1])

    def _deliver(self, line: bytes) -> None:
        try:
            self._on_line(line)
        except Exception:
            log.exception("handling a line of %s failed", self.argv[0])

    async def _stop(self) -> None:
        process = self._process
        if process is None:
            return
        self._signal_group(signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), TERMINATE_GRACE_SECONDS)
        except TimeoutError:
            self._signal_group(signal.SIGKILL)
            await process.wait()
        # Members that outlived their leader: the agent is going away, they have had their SIGTERM.
        self._signal_group(signal.SIGKILL)
        self._process = None

    def _signal_group(self, signal_number: int) -> None:
        process = self._process
        if process is None:
            return
        # The group outlives its leader while a member is left; its id is not reused meanwhile.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal_number)
