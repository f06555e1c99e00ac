"""A tool call's way to the host's routes from inside the host: what a `wardian` command's
`ControlClient` is to the CLI, with the relay's peer as the caller.

A tool's answer is computed by the same function its CLI command calls, which talks to the host
as a control client would (`request`, `exchange`). Run in a worker thread of the host, that
function is handed an `InHostClient`: each request is the route's own coroutine, run on the
host's loop with a context whose peer is the relay's (so the caller rules are the CLI's), its
stream items passed to the thread as a socket would pass them.
"""

import asyncio
import concurrent.futures
import queue
from collections.abc import Generator
from typing import Any

from wardian_core.control.client import DEFAULT, result_of
from wardian_core.control.protocol import default_timeout
from wardian_core.errors import WardianError
from wardian_host.daemon.caller_identity import PeerProcess
from wardian_host.daemon.control_server import RequestContext, Routes

_DONE = object()


class InHostContext(RequestContext):
    """A request's context with the relay's peer; its stream items go to the calling thread."""

    # RequestContext's own constructor takes a socket's reader and writer; this has neither.
    def __init__(self, peer: PeerProcess, items: "queue.SimpleQueue[Any]", loop: asyncio.AbstractEventLoop) -> None:
        self.peer = peer
        self.request_id = 0
        # At EOF when the call is cancelled: "the client left". Made in a worker thread, for the loop.
        self.reader = asyncio.StreamReader(loop=loop)
        self._items = items

    async def emit(self, item: dict[str, Any]) -> None:
        self._items.put(item)


class InHostClient:
    """`request` and `exchange` as `ControlClient` has them, answered by `routes` on `loop`."""

    def __init__(self, routes: Routes, peer: PeerProcess, loop: asyncio.AbstractEventLoop) -> None:
        self._routes = routes
        self._peer = peer
        self._loop = loop
        self._running: set[concurrent.futures.Future[Any]] = set()
        self._contexts: set[InHostContext] = set()
        self.cancelled = False

    def __enter__(self) -> "InHostClient":
        return self

    def __exit__(self, *exc_info: object) -> None:
        pass  # nothing to close: the connection is the relay's

    def close(self) -> None:
        pass

    def exchange(
        self, kind: str, params: dict[str, Any] | None = None, timeout: float | None = DEFAULT
    ) -> Generator[dict[str, Any], None, Any]:
        if self.cancelled:
            raise concurrent.futures.CancelledError()
        route = self._routes.get(kind)
        if route is None:
            raise WardianError("not_supported", f"unknown request kind {kind!r}", "Upgrade the host.")
        items: queue.SimpleQueue[Any] = queue.SimpleQueue()
        context = InHostContext(self._peer, items, self._loop)
        answer = asyncio.run_coroutine_threadsafe(route.answer(kind, params or {}, context), self._loop)
        answer.add_done_callback(lambda _: items.put(_DONE))
        self._running.add(answer)
        self._contexts.add(context)
        try:
            limit = default_timeout() if timeout == DEFAULT else timeout
            while (item := items.get(timeout=limit)) is not _DONE:
                yield item
            return answer.result()
        except queue.Empty:
            answer.cancel()
            message = f"the host did not answer {kind!r} within {limit} s"
            raise WardianError("control_endpoint_timeout", message) from None
        finally:
            self._running.discard(answer)
            self._contexts.discard(context)

    def request(self, kind: str, params: dict[str, Any] | None = None, timeout: float | None = DEFAULT) -> Any:
        return result_of(self.exchange(kind, params, timeout))

    def cancel(self) -> None:
        """Called on the loop: the MCP call was cancelled or its client left. Each request under
        way sees its client leave, and the thread waiting on it is woken."""
        self.cancelled = True
        for context in list(self._contexts):
            context.reader.feed_eof()
        for answer in list(self._running):
            answer.cancel()
