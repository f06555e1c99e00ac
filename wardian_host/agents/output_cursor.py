"""A streaming client's place in an agent's output (`agent watch --follow`, `agent attach`).

The client reads the agent's own bounded buffer from its cursor, a page at a time,
instead of having every chunk queued for it: one that stops reading costs the host
its cursor and the page in flight, never memory that grows with the output. When the
buffer has dropped bytes the client had not read yet, the client lagged: `lag()`
says what it missed and moves it on to where the caller's policy resumes.
"""

import asyncio
from collections.abc import Callable
from typing import Any

from wardian_host.agents.live_agent import LiveAgent
from wardian_host.output.buffer import OutputBuffer

# One stream frame's output: base64 or JSON escapes grow it at most sixfold, far below
# the control frame limit, and a stalled client's socket holds at most one such page.
STREAM_PAGE_BYTES = 64 * 1024

ResumePolicy = Callable[[OutputBuffer], int]


def oldest_kept(buffer: OutputBuffer) -> int:
    return buffer.start_cursor


class OutputCursor:
    """Use as a context manager: it listens to the agent's output while open."""

    def __init__(self, agent: LiveAgent, cursor: int, resume: ResumePolicy = oldest_kept) -> None:
        self.agent = agent
        # A cursor from the future reads nothing twice. One the buffer has not reached while a new
        # host refills it from the terminal server's ring is no such cursor: it is kept, or the
        # reader would be handed again the bytes it had before the host restart.
        self.cursor = min(cursor, agent.buffer.known_end)
        self._resume = resume
        self._wake = asyncio.Event()
        self._wake_at_unread = 1  # output wakes a wait once this much is unread

    def __enter__(self) -> "OutputCursor":
        self.agent.output_listeners.add(self._on_output)
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.agent.output_listeners.discard(self._on_output)

    @property
    def unread(self) -> int:
        """Bytes the agent wrote past this cursor."""
        return self.agent.buffer.end_cursor - self.cursor

    def _on_output(self, _cursor: int, _data: bytes) -> None:
        if self.unread >= self._wake_at_unread:
            self._wake.set()

    def wake(self) -> None:
        """Something besides output (a status change) wants the reader's loop to run."""
        self._wake.set()

    def lag(self) -> dict[str, int] | None:
        """What the reader missed if the buffer dropped bytes it had not read; it moves on."""
        buffer = self.agent.buffer
        if self.cursor >= buffer.start_cursor:
            return None
        missed_from, self.cursor = self.cursor, self._resume(buffer)
        return {"cursor": self.cursor, "missed_from": missed_from, "dropped_bytes": self.cursor - missed_from}

    def read(self, up_to: int | None = None) -> bytes:
        """The next page, stopping before cursor `up_to` if given; empty when caught up.

        Call `lag()` first: a reader behind what is kept reads nothing until it moved on.
        """
        limit = STREAM_PAGE_BYTES if up_to is None else min(STREAM_PAGE_BYTES, up_to - self.cursor)
        page = self.agent.buffer.read_page(self.cursor, max(limit, 0)) or b""
        self.cursor += len(page)
        return page

    # A wait that returns at `timeout` as at any other wake: the caller reads what there is.
    async def wait(self, *others: "asyncio.Future[Any]", timeout: float | None = None, unread: int = 1) -> None:  # noqa: ASYNC109
        """Until `unread` bytes of output are unread (new output, by default) or a `wake()`, or
        one of `others` is done, or `timeout` seconds passed.

        Call it only when `read()` had nothing, or less than `unread`: the loop runs no callback
        between the two.
        """
        self._wake.clear()
        self._wake_at_unread = unread
        woken = asyncio.ensure_future(self._wake.wait())
        try:
            await asyncio.wait({woken, *others}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            woken.cancel()
            self._wake_at_unread = 1
