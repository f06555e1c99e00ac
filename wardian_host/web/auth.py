"""Who may use the web view: one-time logins, the host's sessions, Host and Origin.

`wardian web` prints an address with a one-time login (or, with `--open`, writes it into an
owner-only file the browser opens, so no command line carries it); the page trades it for a
session: a random token, sent back as an HttpOnly, SameSite=Strict cookie. The host keeps only
its SHA-256 digest, in memory and in `run/web-sessions.json` for the next host (`sessions`), so
no file an agent can read gives or derives a cookie, and open pages come back live after a host
restart. A session unused for the idle limit (`web.session_idle`) ends, and `wardian web
--revoke-all` ends them all. Every request must carry a session and name an allowed `Host` (no DNS rebinding);
one that can change something (a POST, the WebSocket) must also come from a page of this
view (`Origin`), so another site's page cannot drive an agent.
"""

import contextlib
import secrets
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from wardian_host.web.sessions import digest

COOKIE_NAME = "wardian_web"
LOGIN_SECONDS = 60.0  # a login works this long, once
MAX_PENDING_LOGINS = 64
MAX_SESSIONS = 64  # past it, the longest unused session ends


@dataclass(frozen=True)
class Login:
    until: float
    file: Path | None  # the owner-only page that carries it (`wardian web --open`), removed with it

    def forget(self) -> None:
        if self.file is not None:
            with contextlib.suppress(FileNotFoundError):
                self.file.unlink()


# Each session's digest and when it was last used, in seconds since the epoch (what a file keeps).
SessionUses = Mapping[str, float]


class Gate:
    """The checks every request passes; `hosts` are the `Host` values this view answers to.
    `kept`: the sessions a previous host kept; `keep` is told the sessions whenever one begins or
    all end (and by the view as it stops, with their last use)."""

    def __init__(
        self,
        hosts: set[str],
        idle_seconds: float,
        kept: SessionUses | None = None,
        keep: Callable[[SessionUses], None] | None = None,
    ) -> None:
        self.hosts = hosts
        self.idle_seconds = idle_seconds
        self._logins: dict[str, Login] = {}
        self._sessions: dict[str, float] = {}  # a session's digest -> when last used (monotonic)
        self._keep = keep
        wall, now = time.time(), time.monotonic()
        newest = sorted((kept or {}).items(), key=lambda item: item[1])[-MAX_SESSIONS:]
        for session, used in newest:
            if wall - used <= idle_seconds:
                self._sessions[session] = now - max(wall - used, 0.0)

    def kept_sessions(self) -> dict[str, float]:
        """Each session's digest and when it was last used, in seconds since the epoch."""
        wall, now = time.time(), time.monotonic()
        return {session: wall - (now - used) for session, used in self._sessions.items()}

    def _kept(self) -> None:
        if self._keep is not None:
            self._keep(self.kept_sessions())

    def new_login(self) -> str:
        """A one-time login, for the address `wardian web` prints."""
        token = self._room_for_a_login()
        self._logins[token] = Login(time.monotonic() + LOGIN_SECONDS, None)
        return token

    def new_login_page(self, write_page: Callable[[str], Path]) -> Path:
        """A one-time login written by `write_page` into a file, removed with the login."""
        token = self._room_for_a_login()
        page = write_page(token)
        self._logins[token] = Login(time.monotonic() + LOGIN_SECONDS, page)
        return page

    def _room_for_a_login(self) -> str:
        self.forget_expired_logins()
        while len(self._logins) >= MAX_PENDING_LOGINS:
            self._logins.pop(next(iter(self._logins))).forget()
        return secrets.token_urlsafe(32)

    def forget_expired_logins(self) -> None:
        now = time.monotonic()
        for token, login in list(self._logins.items()):
            if login.until <= now:
                del self._logins[token]
                login.forget()

    def redeem(self, token: str) -> str | None:
        """A new session for a login not used before and not expired; None otherwise."""
        login = self._logins.pop(token, None)
        if login is None:
            return None
        login.forget()
        if login.until <= time.monotonic():
            return None
        if len(self._sessions) >= MAX_SESSIONS:
            del self._sessions[min(self._sessions, key=self._sessions.__getitem__)]
        session = secrets.token_urlsafe(32)
        self._sessions[digest(session)] = time.monotonic()
        self._kept()
        return session

    def revoke_all(self) -> int:
        """End every session and pending login; how many sessions there were."""
        revoked = len(self._sessions)
        self._sessions.clear()
        self._kept()
        self.forget_logins()
        return revoked

    def forget_logins(self) -> None:
        """Drop the pending logins and their login pages (the sessions go on)."""
        for login in self._logins.values():
            login.forget()
        self._logins.clear()

    def touch(self, cookies: Mapping[str, str]) -> None:
        """The session is in use now (a message on its page's WebSocket)."""
        session = digest(cookies.get(COOKIE_NAME, ""))
        if session in self._sessions:
            self._sessions[session] = time.monotonic()

    def _session_valid(self, presented: str) -> bool:
        # A digest is looked up, not compared: its timing tells nothing of a session's token.
        now = time.monotonic()
        for session, used in list(self._sessions.items()):
            if now - used > self.idle_seconds:
                del self._sessions[session]
        if not presented or (session := digest(presented)) not in self._sessions:
            return False
        self._sessions[session] = now
        return True

    def refusal(self, method: str, headers: Mapping[str, str], cookies: Mapping[str, str]) -> str | None:
        """Why a request is refused (None when it passes): `host`, `origin` or `cookie`."""
        host = headers.get("Host", "")
        if host not in self.hosts:
            return "host"
        origin = headers.get("Origin")
        changes = method != "GET" or headers.get("Upgrade", "").lower() == "websocket"
        if (origin is not None or changes) and origin != f"http://{host}":
            return "origin"
        if not self._session_valid(cookies.get(COOKIE_NAME, "")):
            return "cookie"
        return None


def allowed_hosts(listen: str, port: int) -> set[str]:
    """The `Host` values of this view: the loopback names, and the address it listens on."""
    names = {"127.0.0.1", "localhost", "[::1]", f"[{listen}]" if ":" in listen else listen}
    return {f"{name}:{port}" for name in names}
