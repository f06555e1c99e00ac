"""The web view's server: aiohttp inside the host's own loop, on loopback unless told.

Routes: `/` (the page; `/?login=<one-time>` trades the login for the cookie), `/static/...`
(the page's script, styles and the vendored xterm.js), `/ws` (the page's one WebSocket) and
`POST /api/action` (a person's action, answered by the control endpoint's routes). Every one
passes the gate (`auth.Gate`); the access log is off, so no address with a login is written.
"""

import functools
import json
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web
from pydantic import ValidationError

from wardian_core.control.frame_checks import invalid_parameters
from wardian_core.errors import WardianError
from wardian_host.notify.rules import NoticeRules
from wardian_host.remote.settings import LOCAL_MACHINE
from wardian_host.web.auth import COOKIE_NAME, Gate, allowed_hosts, load_secret
from wardian_host.web.models import PageAction
from wardian_host.web.pages import Page, Pages, State
from wardian_host.web.records import LOOPBACK, write_record
from wardian_host.web.remotes import RemoteRosters, follow_screen, remote_args, run_remote, with_machines
from wardian_host.web.terminals import Answer

log = logging.getLogger(__name__)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
STATIC = Path(__file__).parent / "static"
PAGE_FRAME_BYTES = 128 * 1024
ACTION_BODY_BYTES = 1024 * 1024
STATUS_OF_CODE = {"not_found": 404, "unauthorized": 401, "ambiguous": 409}


def _refused(code: str, message: str, hint: str, status: int) -> web.Response:
    return web.json_response(WardianError(code, message, hint).envelope(), status=status)


class WebServer:
    def __init__(self, home: Path, answer: Answer, state: State, rules: NoticeRules) -> None:
        self._home = home
        self._answer = answer
        self._state = state
        self._rules = rules
        self._secret = load_secret(home)
        self.pages = Pages()
        self._remotes = RemoteRosters(home, self.pages.changed)
        self._runner: web.AppRunner | None = None
        self._gate: Gate | None = None
        self._unsubscribe = rules.subscribe(self.pages.notice)
        self.listen = LOOPBACK
        self.port = 0

    async def open(self, listen: str | None, port: int = 0) -> dict[str, Any]:
        """Serve on `listen` (loopback by default), starting or moving the server as needed, and
        answer the address with a new one-time login."""
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
        shown = f"[{self.listen}]" if ":" in self.listen else self.listen
        url = f"http://{shown}:{self.port}/?login={self._gate.new_login()}"
        return {"url": url, "listen": self.listen, "port": self.port, "loopback": self.listen == LOOPBACK}

    async def _serve(self, listen: str, port: int) -> None:
        app = web.Application(middlewares=[self._check], client_max_size=ACTION_BODY_BYTES)
        app.router.add_get("/", self._index)
        app.router.add_get("/ws", self._websocket)
        app.router.add_post("/api/action", self._action)
        app.router.add_static("/static", STATIC, follow_symlinks=False)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, listen, port)
        try:
            await site.start()
        except OSError:
            if not port:
                await runner.cleanup()
                raise
            site = web.TCPSite(runner, listen, 0)  # the recorded port is taken: any other
            await site.start()
        self._runner = runner
        self.listen = listen
        self.port = runner.addresses[0][1]
        self._gate = Gate(self._secret, allowed_hosts(listen, self.port))
        write_record(self._home, listen, self.port)
        log.info("web view serving on %s port %d", listen, self.port)

    async def close(self) -> None:
        self._unsubscribe()
        await self._remotes.stop()
        await self._stop_serving()

    async def _stop_serving(self) -> None:
        if self._runner is not None:
            runner, self._runner = self._runner, None
            await runner.cleanup()

    @web.middleware
    async def _check(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        assert self._gate is not None
        if request.path == "/" and "login" in request.query:
            return await handler(request)  # the login's own checks, in _index
        refusal = self._gate.refusal(request.method, request.headers, request.cookies)
        if refusal == "cookie":
            return _refused("unauthorized", "this page needs a login", "Run `wardian web` for a new address.", 401)
        if refusal is not None:
            message = f"the request's {refusal.title()} header is not this view's"
            return _refused("unauthorized", message, "Open the address `wardian web` prints, as printed.", 403)
        return await handler(request)

    async def _index(self, request: web.Request) -> web.StreamResponse:
        assert self._gate is not None
        login = request.query.get("login")
        if login is not None:
            if request.headers.get("Host", "") not in self._gate.hosts:
                return _refused("unauthorized", "the request's Host header is not this view's", "", 403)
            cookie = self._gate.redeem(login)
            if cookie is None:
                hint = "Run `wardian web` again: each address logs in once, within minutes."
                return _refused("unauthorized", "this login was used or has expired", hint, 401)
            answer = web.HTTPSeeOther("/")
            answer.set_cookie(COOKIE_NAME, cookie, httponly=True, samesite="Strict", path="/")
            return answer
        return web.FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

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
        socket = web.WebSocketResponse(heartbeat=30.0, max_msg_size=PAGE_FRAME_BYTES)
        await socket.prepare(request)

        async def send(item: dict[str, Any]) -> None:
            await socket.send_str(json.dumps(item))

        follow = functools.partial(follow_screen, self._home)
        page = Page(send, self._answer, self._state_of_machines, self._rules.looked_at, follow)
        self.pages.add(page)
        self._remotes.start()  # other machines are read while someone views them
        try:
            async for message in socket:
                if message.type == WSMsgType.TEXT and (refused := page.take(message.data)) is not None:
                    await send({"op": "refused", "message": refused})
        finally:
            self.pages.remove(page)
            await page.close()
            if not self.pages.any():
                await self._remotes.stop()
        return socket
