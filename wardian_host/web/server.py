"""The web view's server: aiohttp inside the host's own loop, on loopback unless told.

Routes: `/` (the page; `/?login=<one-time>` trades the login for a session cookie),
`POST /login` (the same, from `wardian web --open`'s login page), `/static/...` (the page's
script, styles and the vendored xterm.js), `/ws` (the page's one WebSocket),
`POST /api/action` (a person's action, answered by the control endpoint's routes), and the
page's reads `GET /api/inbox` (the person's queue) and `GET /api/spend` (the spend chart). Every
connection is counted first (`connections`); every request passes the gate (`auth.Gate`),
then, once per connection, the caller check: a connection from a process of an agent (the
rule `wardian reply` uses) is refused, so an agent cannot act as a person here. The access
log is off, so no address with a login is written.
"""

import asyncio
import functools
import json
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import WSCloseCode, WSMsgType, web
from pydantic import ValidationError

from wardian_core import paths
from wardian_core.control.frame_checks import invalid_parameters
from wardian_core.errors import WardianError
from wardian_core.settings import load_settings
from wardian_host.notify.rules import NoticeRules
from wardian_host.remote.settings import LOCAL_MACHINE
from wardian_host.web.auth import COOKIE_NAME, LOGIN_SECONDS, Gate, SessionUses, allowed_hosts
from wardian_host.web.connections import AcceptErrorsOncePerMinute, GuardedProtocol, WebConnection, WebConnections
from wardian_host.web.inbox import inbox_route
from wardian_host.web.login_pages import remove_login_pages, write_login_page
from wardian_host.web.models import PageAction
from wardian_host.web.pages import Page, Pages, State
from wardian_host.web.peers import holder_of
from wardian_host.web.records import LOOPBACK, write_record
from wardian_host.web.remotes import RemoteRosters, follow_screen, remote_args, run_remote, with_machines
from wardian_host.web.replay import add_replay_routes
from wardian_host.web.sessions import read_sessions, write_sessions
from wardian_host.web.spend import spend_route
from wardian_host.web.terminals import Answer

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
# The agent a local process (pid, uid) belongs to, by the rule `wardian reply` uses; None for a person.
AgentOf = Callable[[int, int], str | None]
STATIC = Path(__file__).parent / "static"
PAGE_FRAME_BYTES = 128 * 1024
ACTION_BODY_BYTES = 1024 * 1024
PERSON, GONE = "", "\0gone"  # a connection's verdicts besides an agent's name, which is never either
STATUS_OF_CODE = {"not_found": 404, "unauthorized": 401, "ambiguous": 409}
# How long a stopping view waits for its pages to answer the WebSocket's close, then for
# aiohttp's handlers: a page's socket is a request in progress, which aiohttp's shutdown
# otherwise awaits for up to 60 s (a `host restart` with a page open took 45 s).
CLOSE_SECONDS = 1.0


def _refused(code: str, message: str, hint: str, status: int, page: bool = False) -> web.Response:
    """The error envelope (a plain page for the page's own address); the connection then ends,
    so a refused client holds none of the host's connections."""
    if page:
        answer = web.Response(text=f"{message}\n\n{hint}\n", status=status, headers={"Cache-Control": "no-store"})
    else:
        answer = web.json_response(WardianError(code, message, hint).envelope(), status=status)
    answer.force_close()
    return answer


def _agent_refusal(agent: str, page: bool) -> web.Response:
    message = f"the web view is a person's: this connection comes from agent {agent}'s process"
    hint = "An agent works through `wardian` commands and its MCP tools; a person opens the view in their browser."
    return _refused("unauthorized", message, hint, 403, page)


def _gone_refusal(page: bool) -> web.Response:
    message = "no process on this machine holds this connection's other end, so who sent it is unknown"
    return _refused("unauthorized", message, "Open the view in a browser on this machine.", 403, page)


class WebServer:
    def __init__(self, home: Path, answer: Answer, state: State, rules: NoticeRules, agent_of: AgentOf) -> None:
        self._home = home
        self._answer = answer
        self._state = state
        self._rules = rules
        self._agent_of = agent_of
        self.pages = Pages()
        self._remotes = RemoteRosters(home, self.pages.changed)
        self._runner: web.AppRunner | None = None
        self._listener: asyncio.Server | None = None
        self.connections = WebConnections()
        self._sockets: set[web.WebSocketResponse] = set()  # each open page's, closed first on stop
        self._gate: Gate | None = None
        self._unsubscribe = rules.subscribe(self.pages.notice)
        self._accept_errors = AcceptErrorsOncePerMinute()
        logging.getLogger("asyncio").addFilter(self._accept_errors)
        self.listen = LOOPBACK
        self.port = 0
        self.port_taken: int | None = None  # the port asked for, when another process held it
        remove_login_pages(home)
        # Sessions were once an HMAC of this file, which any agent could read: it is no longer used.
        (paths.run_dir(home) / "web.secret").unlink(missing_ok=True)

    def revoke_all(self) -> int:
        """End every session and pending login, and close the connections that used them."""
        if self._gate is None:
            return 0
        revoked = self._gate.revoke_all()
        self.connections.close_authenticated()
        return revoked

    async def open(self, listen: str | None, port: int = 0, login_page: bool = False) -> dict[str, Any]:
        """Serve on `listen` (loopback by default), starting or moving the server as needed, and
        answer the address with a new one-time login (in an owner-only page with `login_page`)."""
        wanted = listen or LOOPBACK
        if self._runner is None or wanted != self.listen:
            serving = self._runner is not None
            await self._stop_serving()
            try:
                await self._serve(wanted, port or (self.port if wanted == self.listen else 0))
            except OSError as exc:
                if serving:  # the pages open where it served go on being served
                    await self._serve(self.listen, self.port)
                raise WardianError(
                    "request_failed",
                    f"the web view cannot listen on {wanted}: {exc.strerror or exc}",
                    "Give an address of this machine (`ip address` lists them), or leave out --listen.",
                    {"listen": wanted},
                ) from None
        assert self._gate is not None
        self._gate.idle_seconds = load_settings(self._home).web.session_idle
        shown = f"[{self.listen}]" if ":" in self.listen else self.listen
        address = f"http://{shown}:{self.port}"
        answer = {"listen": self.listen, "port": self.port, "loopback": self.listen == LOOPBACK}
        if self.port_taken is not None:
            answer["port_taken"] = self.port_taken
        if not login_page:
            return {"url": f"{address}/?login={self._gate.new_login()}"} | answer
        page = self._gate.new_login_page(functools.partial(write_login_page, self._home, address))
        # The page goes with its login: when used, or at the latest once it expired.
        asyncio.get_running_loop().call_later(LOGIN_SECONDS + 1, self._gate.forget_expired_logins)
        return {"url": f"{address}/", "login_page": str(page)} | answer

    async def _serve(self, listen: str, port: int) -> None:
        app = web.Application(middlewares=[self._check], client_max_size=ACTION_BODY_BYTES)
        app.router.add_get("/", self._index)
        app.router.add_post("/login", self._login_form)
        app.router.add_get("/ws", self._websocket)
        app.router.add_post("/api/action", self._action)
        app.router.add_get("/api/inbox", inbox_route(self._answer, lambda: self._remotes.rosters))
        app.router.add_get("/api/spend", spend_route(self._home))
        add_replay_routes(app, self._home)
        app.router.add_static("/static", STATIC, follow_symlinks=False)
        runner = web.AppRunner(app, access_log=None, handle_signals=False, shutdown_timeout=CLOSE_SECONDS)
        await runner.setup()
        try:
            self._listener = await self._listen(runner, listen, port)
        except OSError:
            await runner.cleanup()
            raise
        self._runner = runner
        self.listen = listen
        self.port = self._listener.sockets[0].getsockname()[1]
        hosts = allowed_hosts(listen, self.port)
        if self._gate is None:
            kept = read_sessions(self._home)
            self._gate = Gate(hosts, load_settings(self._home).web.session_idle, kept, self._keep_sessions)
        self._gate.hosts = hosts  # sessions outlive a move to another address
        write_record(self._home, listen, self.port)
        log.info("web view serving on %s port %d", listen, self.port)

    async def _listen(self, runner: web.AppRunner, listen: str, port: int) -> asyncio.Server:
        """aiohttp's protocol behind `connections`, which meets each connection first."""
        assert runner.server is not None
        server = runner.server

        def guarded() -> asyncio.Protocol:
            return GuardedProtocol(server(), self.connections)

        loop = asyncio.get_running_loop()
        try:
            listener = await loop.create_server(guarded, listen, port, reuse_address=True)
        except OSError:
            if not port:
                raise
            # The recorded port is taken: a new one, said in the log and in `wardian web`'s answer.
            listener = await loop.create_server(guarded, listen, 0, reuse_address=True)
            log.warning("web view port %d is taken; serving on port %d", port, listener.sockets[0].getsockname()[1])
            self.port_taken = port
            return listener
        self.port_taken = None
        return listener

    async def close(self) -> None:
        self._unsubscribe()
        logging.getLogger("asyncio").removeFilter(self._accept_errors)
        await self._remotes.stop()
        await self._stop_serving()
        if self._gate is not None:
            self._gate.forget_logins()  # removes the login pages not used
            self._keep_sessions(self._gate.kept_sessions())  # with their last use, for the next host

    def _keep_sessions(self, sessions: SessionUses) -> None:
        try:
            write_sessions(self._home, sessions)
        except OSError as exc:  # the sessions still work; only the next host will ask for a login
            log.warning("web view sessions not kept for the next host: %s", exc)

    async def _stop_serving(self) -> None:
        if self._listener is not None:
            self._listener.close()
            self._listener = None
        await self._close_pages()
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()

    async def _close_pages(self) -> None:
        """Tell every open page the view is going away (1001), so its socket's handler ends now;
        the page reconnects to the next host or address."""
        sockets, self._sockets = list(self._sockets), set()
        closing = [socket.close(code=WSCloseCode.GOING_AWAY, message=b"the view is moving") for socket in sockets]
        if closing:
            await asyncio.wait([asyncio.ensure_future(close) for close in closing], timeout=CLOSE_SECONDS)

    @web.middleware
    async def _check(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        assert self._gate is not None
        page = request.method == "GET" and request.path == "/"
        if (page and "login" in request.query) or request.path == "/login":
            return await handler(request)  # the login's own checks, in _log_in
        refusal = self._gate.refusal(request.method, request.headers, request.cookies)
        if refusal == "cookie":
            return _refused(
                "unauthorized", "this page needs a login", "Run `wardian web` for a new address.", 401, page
            )
        if refusal is not None:
            message = f"the request's {refusal.title()} header is not this view's"
            return _refused("unauthorized", message, "Open the address `wardian web` prints, as printed.", 403, page)
        return await self._from_a_person(request, handler, page)

    async def _from_a_person(self, request: web.Request, handler: Handler, page: bool) -> web.StreamResponse:
        """Answer with `handler` unless the connection comes from a process of an agent."""
        connection = self.connections.of(request.transport)
        if connection is None:
            return _gone_refusal(page)
        if connection.verdict is None:
            connection.verdict = await self._caller_of(connection)
        if connection.verdict == GONE:
            return _gone_refusal(page)
        if connection.verdict != PERSON:
            return _agent_refusal(connection.verdict, page)
        self.connections.passed(connection)
        return await handler(request)

    async def _caller_of(self, connection: WebConnection) -> str:
        """Who holds the connection's other end: PERSON (or a peer beyond this machine), GONE, or
        the name of the agent whose process it is."""
        if connection.owner is None:
            return PERSON
        pid = await asyncio.to_thread(holder_of, connection.owner)
        if pid is None:
            return GONE
        return self._agent_of(pid, connection.owner.uid) or PERSON

    async def _index(self, request: web.Request) -> web.StreamResponse:
        login = request.query.get("login")
        if login is not None:
            return await self._log_in(request, login, web.HTTPSeeOther("/"))
        return web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    async def _login_form(self, request: web.Request) -> web.StreamResponse:
        login = (await request.post()).get("login")
        # The page a file posted from is another site's, so a cookie that is SameSite=Strict would not
        # go with a redirect; a page of this view that moves on to `/` takes it along.
        onward = web.Response(
            text='<!doctype html><meta http-equiv="refresh" content="0;url=/"><a href="/">Wardian</a>',
            content_type="text/html",
            headers={"Cache-Control": "no-store"},
        )
        return await self._log_in(request, login if isinstance(login, str) else "", onward)

    async def _log_in(self, request: web.Request, login: str, answer: web.Response) -> web.StreamResponse:
        assert self._gate is not None
        if request.headers.get("Host", "") not in self._gate.hosts:
            return _refused("unauthorized", "the request's Host header is not this view's", "", 403, True)

        async def redeem(_: web.Request) -> web.StreamResponse:
            assert self._gate is not None
            session = self._gate.redeem(login)
            if session is None:
                hint = "Run `wardian web` again: each address logs in once, within a minute."
                return _refused("unauthorized", "this login was used or has expired", hint, 401, True)
            answer.set_cookie(COOKIE_NAME, session, httponly=True, samesite="Strict", path="/")
            return answer

        return await self._from_a_person(request, redeem, True)  # an agent's process redeems nothing

    async def _action(self, request: web.Request) -> web.Response:
        try:
            action = PageAction.model_validate_json(await request.read())
            result = await self._act(action)
        except ValidationError as exc:
            refused = invalid_parameters("web action", exc)
            hint = "Reload the page: it sends only what this host takes."
            envelope = WardianError(refused.code, refused.message, hint, refused.details).envelope()
            return web.json_response(envelope, status=400)
        except WardianError as error:
            return web.json_response(error.envelope(), status=STATUS_OF_CODE.get(error.code, 400))
        self.pages.changed()
        return web.json_response({"ok": True, "result": result})

    async def _act(self, action: PageAction) -> Any:
        if action.machine is None or action.machine == LOCAL_MACHINE:
            return await self._answer(action.kind, action.params)
        args = remote_args(action.kind, action.params)
        try:
            return await run_remote(self._home, action.machine, args)
        finally:
            self._remotes.read_soon()  # what the action changed there shows without waiting a turn

    def _state_of_machines(self) -> dict[str, Any]:
        return with_machines(self._state(), self._remotes.rosters)

    async def _websocket(self, request: web.Request) -> web.WebSocketResponse:
        socket = web.WebSocketResponse(heartbeat=30.0, max_msg_size=PAGE_FRAME_BYTES, timeout=CLOSE_SECONDS)
        await socket.prepare(request)
        self._sockets.add(socket)

        async def send(item: dict[str, Any]) -> None:
            await socket.send_str(json.dumps(item))

        follow = functools.partial(follow_screen, self._home)
        page = Page(send, self._answer, self._state_of_machines, self._rules.looked_at, follow)
        self.pages.add(page)
        self._remotes.start()  # other machines are read while someone views them
        assert self._gate is not None
        try:
            async for message in socket:
                self._gate.touch(request.cookies)  # a page in use keeps its session
                if message.type == WSMsgType.TEXT and (refused := page.take(message.data)) is not None:
                    await send({"op": "refused", "message": refused})
        finally:
            self._sockets.discard(socket)
            self._gate.touch(request.cookies)
            self.pages.remove(page)
            await page.close()
            if not self.pages.any():
                await self._remotes.stop()
        return socket
