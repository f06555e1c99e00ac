"""Agent names, creation with unique names, and resolving who an agent is.

Names are CLI-friendly aliases of the uuid; the database's UNIQUE constraint is
what makes them unique, so two concurrent creators cannot both win.
"""

import os
import re
import sqlite3
from pathlib import Path
from typing import Any

from wardian_core.db import agents as agent_rows
from wardian_core.errors import WardianError

NAME_PATTERN = re.compile(r"^[a-zA-Z0-9_-]+$")

# Words the CLI gives meaning to where a name is expected (`wardian agent <x>`,
# `send --to <x>`), so an agent called one of them could never be addressed.
RESERVED_NAMES = frozenset(
    {
        "all",
        "self",
        "list",
        "show",
        "screen",
        "help",
        "spawn",
        "kill",
        "pause",
        "resume",
        "clone",
        "wait",
        "watch",
        "attach",
        "rename",
        "delete",
        "update",
        "restart",
        "clear",
        "send",
        "ask",
        "reply",
        "class",
        "workspace",
        "none",
        "null",
    }
)

MAX_NAME_LENGTH = 64


def validate_name(name: str) -> str:
    if not NAME_PATTERN.match(name) or len(name) > MAX_NAME_LENGTH:
        raise WardianError(
            "invalid_name",
            f"invalid agent name {name!r}",
            f"Use 1-{MAX_NAME_LENGTH} letters, digits, '-' or '_' (pattern ^[a-zA-Z0-9_-]+$).",
            {"name": name},
        )
    if name.lower() in RESERVED_NAMES:
        raise WardianError(
            "invalid_name",
            f"{name!r} is a word the CLI reserves",
            f"Pick another name, e.g. {name}-1.",
            {"name": name, "reserved": sorted(RESERVED_NAMES)},
        )
    return name


def name_stem(class_name: str) -> str:
    """The class as a name prefix: lower case, anything outside the name pattern dropped."""
    stem = re.sub(r"[^a-z0-9_-]+", "-", class_name.lower()).strip("-_")
    return stem or "agent"


def generate_name(class_name: str) -> str:
    import secrets  # creation only: kept off the CLI's read path

    return f"{name_stem(class_name)}-{secrets.token_hex(2)}"


def free_name_like(conn: sqlite3.Connection, wanted: str) -> str:
    for counter in range(2, 1000):
        candidate = f"{wanted}-{counter}"
        if not agent_rows.name_taken(conn, candidate):
            return candidate
    return generate_name(wanted)


def duplicate_name(conn: sqlite3.Connection, name: str, other_way: str = "") -> WardianError:
    """The refusal of a taken name, with a free one like it (`other_way` ends the hint)."""
    free = free_name_like(conn, name)
    return WardianError(
        "duplicate_name",
        f"an agent named {name!r} already exists",
        f"Choose another name, e.g. `{free}`{other_way}.",
        {"name": name, "suggestion": free},
    )


def resolve_workspace(workspace: str | os.PathLike[str]) -> str:
    return str(Path(workspace).expanduser().resolve())


def create_agent(
    conn: sqlite3.Connection,
    *,
    class_name: str,
    provider: str,
    workspace: str | os.PathLike[str] | None,
    name: str | None = None,
    description: str | None = None,
) -> dict[str, Any]:
    """Create an agent row. An explicit taken name is an error, never a silent rename."""
    import uuid as uuid_module  # creation only: kept off the CLI's read path

    def insert(agent_name: str) -> dict[str, Any]:
        return agent_rows.insert_agent(
            conn,
            agent_uuid=str(uuid_module.uuid4()),
            name=agent_name,
            class_name=class_name,
            provider=provider,
            workspace=resolve_workspace(workspace) if workspace is not None else None,
            description=description,
        )

    if name is not None:
        validate_name(name)
        try:
            return insert(name)
        except sqlite3.IntegrityError:
            raise duplicate_name(conn, name, ", or omit --name to get a generated one") from None
    while True:  # a generated name that collides is simply drawn again
        try:
            return insert(generate_name(class_name))
        except sqlite3.IntegrityError:
            continue


def not_found(reference: str) -> WardianError:
    return WardianError(
        "not_found",
        f"no agent named or with uuid {reference!r}",
        "List the agents with `wardian agent list --scope all`.",
        {"requested": reference},
    )


def find_in(agents: list[dict[str, Any]], reference: str) -> dict[str, Any]:
    """Resolve by exact uuid first, then exact name, within a list of records."""
    for key in ("uuid", "name"):
        for agent in agents:
            if agent[key] == reference:
                return agent
    raise not_found(reference)


def resolve_agent(conn: sqlite3.Connection, reference: str) -> dict[str, Any]:
    found = agent_rows.get_agent(conn, reference) or agent_rows.find_agent_by_name(conn, reference)
    if found is None:
        raise not_found(reference)
    return found


def session_id_from_env(environ: "os._Environ[str] | dict[str, str] | None" = None) -> str:
    """The caller's own agent uuid, from WARDIAN_SESSION_ID."""
    env = os.environ if environ is None else environ
    session_id = env.get("WARDIAN_SESSION_ID", "").strip()
    if not session_id:
        raise WardianError(
            "not_in_session",
            "WARDIAN_SESSION_ID environment variable is not set",
            "This command must run inside a Wardian-managed agent process. To look up a specific agent "
            "from outside one, pass a name or uuid: `wardian agent <name>`.",
            {"command": "agent", "requested": "self"},
        )
    return session_id
