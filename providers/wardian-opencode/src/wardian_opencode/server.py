"""The HTTP server of an agent's OpenCode TUI: on a port Wardian chooses on 127.0.0.1, behind a
password of the agent's, followed by the host as the `opencode-events` telemetry source.

`opencode --port P --hostname 127.0.0.1` serves the TUI's own API on that port; with
`OPENCODE_SERVER_PASSWORD` set, every request needs HTTP basic auth (user `opencode`). The
password is made once per agent and kept (mode 0600) in the agent's folder, so the host can
follow a recovered agent too; the port is chosen afresh at each launch.
"""

import base64
import os
import secrets
import socket
from pathlib import Path

from wardian_core.provider import OutputSource, SpawnContext
from wardian_opencode.folder import wardian_dir

EVENTS_SOURCE = "opencode-events"
HOST = "127.0.0.1"
USERNAME = "opencode"
EVENT_PATH = "/event"


def password_file(ctx: SpawnContext) -> Path:
    return wardian_dir(ctx) / "server-password"


def port_file(ctx: SpawnContext) -> Path:
    return wardian_dir(ctx) / "server-port"


def password(ctx: SpawnContext) -> str:
    """The agent's server password, made on first use (readable by its owner only)."""
    path = password_file(ctx)
    try:
        existing = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        existing = ""
    if existing:
        return existing
    path.parent.mkdir(parents=True, exist_ok=True)
    made = secrets.token_urlsafe(24)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="ascii") as handle:
        handle.write(made + "\n")
    return made


def free_port() -> int:
    """A port free on the loopback interface now (the TUI binds it a moment later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return int(probe.getsockname()[1])


def prepare(ctx: SpawnContext) -> dict[str, str]:
    """The variables that make OpenCode's server demand the agent's password."""
    return {"OPENCODE_SERVER_PASSWORD": password(ctx), "OPENCODE_SERVER_USERNAME": USERNAME}


def choose_port(ctx: SpawnContext) -> int:
    """This launch's port, kept for the event source the host opens once the TUI runs."""
    chosen = free_port()
    port_file(ctx).parent.mkdir(parents=True, exist_ok=True)
    port_file(ctx).write_text(f"{chosen}\n", encoding="ascii")
    return chosen


def port(ctx: SpawnContext) -> int | None:
    try:
        return int(port_file(ctx).read_text(encoding="ascii").strip())
    except (OSError, ValueError):
        return None


def authorization(ctx: SpawnContext) -> str:
    token = base64.b64encode(f"{USERNAME}:{password(ctx)}".encode()).decode("ascii")
    return f"Basic {token}"


def events_source(ctx: SpawnContext) -> OutputSource | None:
    """The TUI's event stream, with the credential it demands; None before a launch chose a port."""
    chosen = port(ctx)
    if chosen is None:
        return None
    url = f"http://{HOST}:{chosen}{EVENT_PATH}"
    # The stream opens with `server.connected` once subscribed; the TUI draws its footer before
    # that under load, and a prompt typed then would go unseen: the footer's ready waits for it.
    headers = {"Authorization": authorization(ctx)}
    return OutputSource(name=EVENTS_SOURCE, kind="sse", url=url, headers=headers, holds_ready=True)
