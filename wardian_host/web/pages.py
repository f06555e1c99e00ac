"""The pages open now, each with its one WebSocket, and what the host pushes to them.

A page gets the whole state first (agents, pending asks, workflow runs), then again after
every change the host tells (`changed`), then notices. A page that reads slowly only ever has
the latest state waiting for it and at most MAX_WAITING_NOTICES notices: one tab's backlog
never grows with the host's activity, and never holds another tab back.
"""

import asyncio
import contextlib
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import ValidationError

from wardian_core.notices import Notice
from wardian_host.web.models import PageFrame
from wardian_host.web.terminals import Answer, FollowScreen, PageTerminals

log = logging.getLogger(__name__)

MAX_WAITING_NOTICES = 64

State = Callable[[], dict[str, Any]]
Send = Callable[[dict[str, Any]], Awaitable[None]]
Seen = Callable[[str], None]


class Page:
    def __init__(self, send: Send, answer: Answer, state: State, seen: Seen, follow_screen: FollowScreen) -> None:
        self._send = send
        self._state = state
        self._seen = seen
        self.terminals = PageTerminals(answer, send, follow_screen)
        self._dirty = asyncio.Event()
        self._dirty.set()  # the whole state first
        self._notices: deque[Notice] = deque(maxlen=MAX_WAITING_NOTICES)
        self._pusher = asyncio.get_running_loop().create_task(self._push())

    def changed(self) -> None:
        self._dirty.set()

    def notice(self, notice: Notice) -> None:
        self._notices.append(notice)
        self._dirty.set()

    def take(self, raw: str) -> str | None:
        """Act on one frame from the page; the answer is the reason it was refused, if it was."""
        try:
            frame = PageFrame.model_validate_json(raw)
        except ValidationError as exc:
            return f"a frame the view cannot take: {exc.errors()[0]['msg']}"
        if frame.op == "seen":
            self._seen(frame.agent)
        else:
            if frame.op == "open" and frame.typing:
                self._seen(frame.agent)
            self.terminals.handle(frame)
        return None

    async def close(self) -> None:
        self._pusher.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._pusher
        await self.terminals.close_all()

    async def _push(self) -> None:
        try:
            while True:
                await self._dirty.wait()
                self._dirty.clear()
                await self._send({"op": "state"} | self._state())
                while self._notices:
                    await self._send({"op": "notice", "notice": self._notices.popleft().model_dump()})
        except (ConnectionError, RuntimeError):
            pass  # the page left


class Pages:
    """Every open page; the host tells them what changed."""

    def __init__(self) -> None:
        self._pages: set[Page] = set()
        self._scheduled = False

    def add(self, page: Page) -> None:
        self._pages.add(page)

    def remove(self, page: Page) -> None:
        self._pages.discard(page)

    def any(self) -> bool:
        return bool(self._pages)

    def changed(self) -> None:
        """Something a page shows changed; several changes in one loop turn push once."""
        if self._scheduled:
            return
        self._scheduled = True
        asyncio.get_running_loop().call_soon(self._push_changed)

    def notice(self, notice: Notice) -> None:
        for page in self._pages:
            page.notice(notice)

    def _push_changed(self) -> None:
        self._scheduled = False
        for page in self._pages:
            page.changed()
