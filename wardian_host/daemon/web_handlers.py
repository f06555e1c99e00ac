"""The web view and notices in the host: `web.open`, `web.revoke`, `notify.test`, and what tells
pages to redraw. The view is a person's: an agent asking for a login or a revocation is refused.

The view's server (aiohttp) is imported when a home first asks for it, so a host nobody
views never loads it; a host whose home used the view before serves it again at start, on
its recorded port when loopback, so open tabs reconnect after a restart.
"""

import functools
import logging
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from wardian_core.control.answers import NotifyTestAnswer, WebOpenAnswer, WebRevokeAnswer
from wardian_core.control.models import NoParams, WebOpenParams
from wardian_core.errors import WardianError
from wardian_host.daemon.caller_identity import Caller, PeerProcess
from wardian_host.daemon.control_server import RequestContext, Route, Routes
from wardian_host.daemon.person_requests import PersonRequests
from wardian_host.notify.rules import NoticeRules
from wardian_host.notify.sinks import Sinks

if TYPE_CHECKING:
    from wardian_core.settings.model import BudgetsSettings
    from wardian_host.web.server import WebServer

log = logging.getLogger(__name__)

# Requests after whose answer a page shows something new (the status changes of the rest reach
# pages through the status tracker).
CHANGING_KINDS = {
    "agent.spawn",
    "agent.rename",
    "agent.delete",
    "agent.update",
    "agent.clone",
    "agent.budget",
    "ask",
    "reply",
    "workflow.run",
    "workflow.stop",
    "workflow.approve",
}


class WebView:
    def __init__(
        self,
        home: Path,
        conn: sqlite3.Connection,
        agents: Callable[[], list[dict[str, Any]]],
        notices: NoticeRules,
        sinks: Sinks,
        callers: Callable[[PeerProcess], Caller],
        budgets: Callable[[], "BudgetsSettings"] | None = None,
    ) -> None:
        self._home = home
        self._conn = conn
        self._agents = agents
        self._notices = notices
        self._sinks = sinks
        self._callers = callers  # the classifier `wardian reply` uses, for the CLI and the view's connections
        self._budgets = budgets  # the `[budgets]` in force, for each tile's bars
        self._routes: Routes = {}
        self._server: WebServer | None = None

    def routes(self, routes: Routes) -> Routes:
        """The host's routes, each changing one telling pages, with the view's own."""
        self._routes = {
            kind: self._telling(route) if kind in CHANGING_KINDS else route for kind, route in routes.items()
        }
        return self._routes | {
            "web.open": Route(WebOpenParams, self._open),
            "web.revoke": Route(NoParams, self._revoke),
            "notify.test": Route(NoParams, self._notify_test),
        }

    def changed(self) -> None:
        if self._server is not None:
            self._server.pages.changed()

    async def start(self) -> None:
        """Serve again where a previous host of this home served the view, if on loopback."""
        from wardian_host.web.records import LOOPBACK, read_record

        record = read_record(self._home)
        if record is not None and record.listen == LOOPBACK:
            try:
                await self._serving(LOOPBACK, record.port)
            except OSError as exc:
                log.warning("web view not served again: %s", exc.strerror)

    async def close(self) -> None:
        if self._server is not None:
            await self._server.close()

    async def _serving(self, listen: str | None, port: int = 0, login_page: bool = False) -> dict[str, Any]:
        if self._server is None:
            from wardian_host.web.server import WebServer
            from wardian_host.web.state import page_state

            requests = PersonRequests(self._routes)
            self._server = WebServer(
                self._home,
                requests.answer,
                lambda: page_state(self._agents, self._conn, self._budgets),
                self._notices,
                self._agent_of,
            )
        return await self._server.open(listen, port, login_page)

    async def _open(self, params: WebOpenParams, request: RequestContext) -> WebOpenAnswer:
        self._refuse_agents(request, "log in to the web view")
        opened = await self._serving(params.listen, self._recorded_port(params.listen), params.login_page)
        return WebOpenAnswer.model_validate(opened)

    def _recorded_port(self, listen: str | None) -> int:
        """Where the view last served on this address (the page keeps its port), if not served yet."""
        from wardian_host.web.records import LOOPBACK, read_record

        record = read_record(self._home) if self._server is None else None
        return record.port if record is not None and record.listen == (listen or LOOPBACK) else 0

    async def _revoke(self, _: NoParams, request: RequestContext) -> WebRevokeAnswer:
        self._refuse_agents(request, "end the web view's sessions")
        return WebRevokeAnswer(revoked=self._server.revoke_all() if self._server is not None else 0)

    def _agent_of(self, pid: int, uid: int) -> str | None:
        """The agent a process of a web view connection belongs to; None for a person's."""
        peer = PeerProcess.capture(pid, uid)
        try:
            caller = self._callers(peer)
        finally:
            peer.close()
        return caller.agent.name if caller.agent is not None else None

    def _refuse_agents(self, request: RequestContext, what: str) -> None:
        """The web view acts as a person: an agent's process, verified or only claiming, gets no way in."""
        caller = self._callers(request.peer)
        if caller.agent is None:
            return
        raise WardianError(
            "unauthorized",
            f"an agent may not {what}: this caller is agent {caller.agent.name} ({caller.verification})",
            "The web view is for the person who runs the agents: run `wardian web` in your own terminal.",
            {"caller_agent": caller.agent.name, "verification": caller.verification},
        )

    async def _notify_test(self, _: NoParams, __: RequestContext) -> NotifyTestAnswer:
        notice = self._notices.raise_notice("test", "", "", "Wardian test notice", "notices reach you here")
        return NotifyTestAnswer.model_validate({"notice": notice} | await self._sinks.send(notice))

    def _telling(self, route: Route[Any]) -> Route[Any]:
        @functools.wraps(route.handler)  # keeps the answer model it is typed with
        async def answered(params: Any, request: RequestContext) -> Any:
            try:
                return await route.handler(params, request)
            finally:
                self.changed()

        return Route(route.params, answered)
