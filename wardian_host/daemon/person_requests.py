"""Requests a person makes through the web view, answered by the control endpoint's own table.

The page reaches the host's parts only through these routes, so it can do nothing the CLI's
caller rules would refuse a person: its peer is no process at all, which every rule classifies
as caller `none`. Its streaming requests (attach) talk to the page's WebSocket instead of a
socket.
"""

import asyncio
import logging
import os
from typing import Any

from wardian_core.errors import WardianError
from wardian_host.agents.client_stream import ClientStream
from wardian_host.daemon.caller_identity import PeerProcess
from wardian_host.daemon.control_server import RequestContext, Routes

log = logging.getLogger(__name__)

NO_PROCESS = 0  # never a live peer: classify_caller answers `none`


class PersonRequest(RequestContext):
    # RequestContext's own constructor takes a socket's reader and writer; a page has neither.
    def __init__(self, stream: ClientStream | None) -> None:
        self.peer = PeerProcess(NO_PROCESS, os.getuid())
        self.request_id = 0
        self.reader = stream.reader if stream is not None else asyncio.StreamReader()
        self._stream = stream

    async def emit(self, item: dict[str, Any]) -> None:
        if self._stream is not None:
            await self._stream.emit(item)


class PersonRequests:
    """`answer(kind, params, stream)`: what the web view calls for every action."""

    def __init__(self, routes: Routes) -> None:
        self._routes = routes

    async def answer(self, kind: str, params: dict[str, Any], stream: ClientStream | None = None) -> Any:
        route = self._routes.get(kind)
        if route is None:
            raise WardianError("not_supported", f"the web view has no request {kind}", "Use the `wardian` command.")
        try:
            return await route.answer(kind, params, PersonRequest(stream))
        except (WardianError, ConnectionError):
            raise  # an answer, or the page left while its terminal streamed
        # A bug in one request must not take the host down: it is logged and answered.
        except Exception as exc:
            log.error("web request %s failed", kind, exc_info=True)
            raise WardianError("request_failed", f"{kind} failed: {exc}") from None
