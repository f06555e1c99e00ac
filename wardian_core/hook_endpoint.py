"""Where the host takes CLI hooks sent over HTTP, and the token each agent's hooks carry.

A CLI that can POST a hook's JSON to a URL (Claude Code's `http` hooks) needs no process per
hook: the command recorder costs a Python start-up (~20-40 ms) before its line is written. The
host listens on 127.0.0.1 at the port it records in `<home>/run/hook-port`, the same one again
after a restart, so the agents it adopts keep reaching it. Loopback is open to every local
user, so a caller proves which agent it speaks for with a token only that agent's owner-only
settings hold: HMAC-SHA256 of the agent's uuid under `<home>/run/hook-secret` (owner-only).
The host checks it without a table of its own, and it stays valid across host restarts.
"""

import hashlib
import hmac
import os
import secrets
from pathlib import Path
from typing import NamedTuple

from wardian_core import paths

PORT_FILE = "hook-port"
SECRET_FILE = "hook-secret"
ROUTE = "/hooks/"


class HookTarget(NamedTuple):
    """What an agent's HTTP hook posts to: the URL, and the header that says who calls."""

    url: str
    headers: dict[str, str]


def _read(path: Path) -> bytes | None:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except (FileNotFoundError, OSError):
        return None
    try:
        return os.read(fd, 4096)
    finally:
        os.close(fd)


def home_secret(home: Path) -> bytes:
    """The home's hook secret, made (owner-only, never through a planted link) on first use."""
    from wardian_core.control.endpoint import ensure_private_dir  # the host makes it, at start

    path = paths.run_dir(home) / SECRET_FILE
    ensure_private_dir(path.parent)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, paths.PRIVATE_FILE_MODE)
    except FileExistsError:
        pass
    else:
        try:
            os.write(fd, secrets.token_hex(32).encode())
        finally:
            os.close(fd)
    return _read(path) or b""


def agent_token(secret: bytes, agent_uuid: str) -> str:
    return hmac.new(secret, agent_uuid.encode(), hashlib.sha256).hexdigest()


def is_agent_token(secret: bytes, agent_uuid: str, token: str) -> bool:
    return bool(secret) and hmac.compare_digest(agent_token(secret, agent_uuid), token)


def recorded_port(home: Path) -> int | None:
    text = (_read(paths.run_dir(home) / PORT_FILE) or b"").strip()
    return int(text) if text.isdigit() else None


def record_port(home: Path, port: int) -> None:
    from wardian_core.atomic_files import replace_file  # the host alone writes it

    replace_file(paths.run_dir(home) / PORT_FILE, f"{port}\n")


def hook_target(home: Path, agent_uuid: str, log_file: Path) -> HookTarget | None:
    """Where the agent's HTTP hooks post to have their payloads appended to `log_file` (a file
    in the agent's folder), or None when no host has served hooks for this home."""
    port, secret = recorded_port(home), _read(paths.run_dir(home) / SECRET_FILE)
    if port is None or not secret:
        return None
    relative = log_file.relative_to(paths.agent_dir(home, agent_uuid)).as_posix()
    token = agent_token(secret, agent_uuid)
    return HookTarget(f"http://127.0.0.1:{port}{ROUTE}{agent_uuid}/{relative}", {"Authorization": f"Bearer {token}"})
