"""A page's live terminals: each one the host's own `agent attach`, answering to the WebSocket.

A tile streams read-only (it never resizes the agent); the enlarged one is the person's
terminal, sized by the page, typing into the PTY as `agent attach` does. The attach path keeps
the viewer rules: several viewers at once, a viewer that reads slower than the agent writes
is dropped to recent output (`lagged`), and nothing queues without bound, since every
frame the page cannot take holds its attach until the socket drains.
"""

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any

from wardian_core.errors import WardianError
from wardian_host.remote.settings import LOCAL_MACHINE
from wardian_host.web.models import PageFrame

log = logging.getLogger(__name__)

Send = Callable[[dict[str, Any]], Awaitable[None]]
Answer = Callable[..., Awaitable[Any]]
# Another machine's agent's screen, sent to the page until cancelled: (machine, agent, send).
FollowScreen = Callable[[str, str, Send], Coroutine[Any, Any, None]]


class PageStream:
    """The stream an attach talks to: its items go to the page tagged with the agent; the
    page's input reaches it as the attach client's frames."""

    def __init__(self, agent: str, send: Send) -> None:
        self.reader = asyncio.StreamReader()
        self._agent = agent
        self._send = send

    async def emit(self, item: dict[str, Any]) -> None:
        await self._send({"op": "terminal", "agent": self._agent} | item)

    def client_frame(self, frame: dict[str, Any]) -> None:
        self.reader.feed_data(json.dumps(frame).encode() + b"\n")


class PageTerminals:
    def __init__(self, answer: Answer, send: Send, follow_screen: FollowScreen) -> None:
        self._answer = answer
        self._send = send
        self._follow_screen = follow_screen
        self._open: dict[str, tuple[PageStream, bool, asyncio.Task[None]]] = {}
        self._screens: dict[str, asyncio.Task[None]] = {}  # other machines' agents

    def handle(self, frame: PageFrame) -> None:
        if frame.op == "open" and frame.machine is not None and frame.machine != LOCAL_MACHINE:
            self.follow(frame.machine, frame.agent)
        elif frame.op == "open":
            self.open(frame.agent, frame.typing, frame.rows, frame.cols)
        elif frame.op == "close":
            self.close(frame.agent)
        elif (opened := self._open.get(frame.agent)) is not None and opened[1]:  # only the typing one
            stream = opened[0]
            if frame.op == "input" and frame.data is not None:
                stream.client_frame({"input": frame.data})
            elif frame.op == "resize" and frame.rows and frame.cols:
                stream.client_frame({"resize": [frame.rows, frame.cols]})

    def open(self, agent: str, typing: bool, rows: int | None, cols: int | None) -> None:
        self.close(agent)
        stream = PageStream(agent, self._send)
        params = {"target": agent, "read_only": not typing, "rows": rows, "cols": cols}
        task = asyncio.get_running_loop().create_task(self._attach(agent, stream, params))
        self._open[agent] = (stream, typing, task)

    def follow(self, machine: str, agent: str) -> None:
        self.close(agent)
        loop = asyncio.get_running_loop()
        self._screens[agent] = loop.create_task(self._follow_screen(machine, agent, self._send))

    def close(self, agent: str) -> None:
        screen = self._screens.pop(agent, None)
        if screen is not None:
            screen.cancel()
        opened = self._open.pop(agent, None)
        if opened is not None:
            opened[0].client_frame({"detach": True})
            opened[2].cancel()

    async def close_all(self) -> None:
        tasks = [opened[2] for opened in self._open.values()] + list(self._screens.values())
        for agent in [*self._open, *self._screens]:
            self.close(agent)
        await asyncio.gather(*tasks, return_exceptions=True)

    async def _attach(self, agent: str, stream: PageStream, params: dict[str, Any]) -> None:
        try:
            answer = await self._answer("agent.attach", params, stream)
            ended = {"reason": answer.get("reason"), "status": answer.get("status")}
        except WardianError as error:
            ended = {"error": error.envelope()["error"]}
        except (ConnectionError, RuntimeError):
            return  # the page left while its terminal streamed
        if self._open.get(agent, (None,))[0] is stream:
            del self._open[agent]
        with contextlib.suppress(ConnectionError, RuntimeError):  # the page left meanwhile
            await self._send({"op": "closed", "agent": agent} | ended)
