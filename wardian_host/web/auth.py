"""Who may use the web view: the per-home secret, one-time logins, the cookie, Host and Origin.

The secret sits in `run/web.secret`, owner-only, and never leaves the host but as the cookie's
HMAC. `wardian web` prints an address with a one-time login; the page trades it for an
HttpOnly, SameSite=Strict cookie. Every request must carry the cookie and name an allowed
`Host` (no DNS rebinding); one that can change something (a POST, the WebSocket) must also
come from a page of this view (`Origin`), so another site's page cannot drive an agent.
"""

import hashlib
import hmac
import os
import secrets
import time
from collections.abc import Mapping
from pathlib import Path

from wardian_core import paths
from wardian_core.atomic_files import open_unfollowed, replace_file

SECRET_NAME = "web.secret"
COOKIE_NAME = "wardian_web"
LOGIN_SECONDS = 300.0  # a printed address works this long, once
MAX_PENDING_LOGINS = 64


def load_secret(home: Path) -> bytes:
    """The home's secret, made on first use (owner-only, written whole)."""
    path = paths.run_dir(home) / SECRET_NAME
    try:
        descriptor = open_unfollowed(path, os.O_RDONLY)
    except FileNotFoundError:
        replace_file(path, secrets.token_hex(32) + "\n", mode=0o600)
        descriptor = open_unfollowed(path, os.O_RDONLY)
    with os.fdopen(descriptor, "rb") as secret_file:
        secret = secret_file.read().strip()
    if len(secret) < 32:  # an emptied or truncated file: never accept a guessable cookie
        replace_file(path, secrets.token_hex(32) + "\n", mode=0o600)
        return load_secret(home)
    return secret


class Gate:
    """The checks every request passes; `hosts` are the `Host` values this view answers to."""

    def __init__(self, secret: bytes, hosts: set[str]) -> None:
        self._cookie = hmac.new(secret, b"wardian web cookie", hashlib.sha256).hexdigest()
        self.hosts = hosts
        self._logins: dict[str, float] = {}

    def new_login(self) -> str:
        """A one-time login for the address `wardian web` prints."""
        now = time.monotonic()
        self._logins = {token: until for token, until in self._logins.items() if until > now}
        while len(self._logins) >= MAX_PENDING_LOGINS:
            self._logins.pop(next(iter(self._logins)))
        token = secrets.token_urlsafe(32)
        self._logins[token] = now + LOGIN_SECONDS
        return token

    def redeem(self, token: str) -> str | None:
        """The cookie's value for a login not used before and not expired; None otherwise."""
        until = self._logins.pop(token, None)
        return self._cookie if until is not None and until > time.monotonic() else None

    def refusal(self, method: str, headers: Mapping[str, str], cookies: Mapping[str, str]) -> str | None:
        """Why a request is refused (None when it passes): `host`, `origin` or `cookie`."""
        host = headers.get("Host", "")
        if host not in self.hosts:
            return "host"
        origin = headers.get("Origin")
        changes = method != "GET" or headers.get("Upgrade", "").lower() == "websocket"
        if (origin is not None or changes) and origin != f"http://{host}":
            return "origin"
        if not hmac.compare_digest(cookies.get(COOKIE_NAME, ""), self._cookie):
            return "cookie"
        return None


def allowed_hosts(listen: str, port: int) -> set[str]:
    """The `Host` values of this view: the loopback names, and the address it listens on."""
    names = {"127.0.0.1", "localhost", "[::1]", f"[{listen}]" if ":" in listen else listen}
    return {f"{name}:{port}" for name in names}
