"""Agent names, creation with unique names, and resolving who an agent is.

Names are CLI-friendly aliases of the uuid, unique whatever their case (`shell` and `SHELL`
cannot both exist, and either finds the agent), kept as typed. The database's UNIQUE index on
the name (COLLATE NOCASE) is what makes them unique, so two concurrent creators cannot both win.
"""

import os
import re
import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from wardian_core.db import agents as agent_rows
from wardian_core.errors import WardianError

Record = TypeVar("Record", bound=Mapping[str, Any])  # a stored row, or the host's typed one

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
        "run",
        "watch",
        "attach",
        "budget",
        "recording",
        "resume-limit",
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
        "worktree",
        "none",
        "null",
    }
)

MAX_NAME_LENGTH = 64

# A name shaped like a uuid would be looked up as one: lookups try the uuid first.
UUID_SHAPE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def _shape_problem(name: str) -> str | None:
    """Why `name` cannot be a name or a class: both are command-line words, and a class is also a
    folder of the home (`classes/<class>`), so nothing in it may lead out of that folder."""
    if not NAME_PATTERN.match(name) or len(name) > MAX_NAME_LENGTH:
        return f"use 1-{MAX_NAME_LENGTH} letters, digits, '-' or '_'"
    if name.startswith("-"):
        return "a name starting with '-' would be read as an option"
    return None


def name_problem(name: str) -> str | None:
    """Why `name` cannot be an agent's name, or None when it can."""
    shape = _shape_problem(name)
    if shape is not None:
        return shape
    if name.lower() in RESERVED_NAMES:
        return "it is a word the CLI reserves"
    if UUID_SHAPE.match(name):
        return "a name shaped like a uuid would be looked up as an agent's uuid"
    return None


def validate_name(name: str) -> str:
    problem = name_problem(name)
    if problem is None:
        return name
    suggestion = valid_name_like(name)
    hint = f"Pick another name, e.g. `{suggestion}` (^[a-zA-Z0-9_][a-zA-Z0-9_-]*$, at most {MAX_NAME_LENGTH})."
    raise WardianError(
        "invalid_name",
        f"invalid agent name {name!r}: {problem}",
        hint,
        {"name": name, "suggestion": suggestion, "reserved": sorted(RESERVED_NAMES)},
    )


def validate_class(class_name: str) -> str:
    """`class_name` when it follows the name rules (reserved words aside: a class is never looked up
    where a name is), else `invalid_name`."""
    problem = _shape_problem(class_name)
    if problem is None:
        return class_name
    suggestion = _within_pattern(class_name) or "Agent"
    raise WardianError(
        "invalid_name",
        f"invalid class {class_name!r}: {problem}",
        f"Pick another class, e.g. `{suggestion}` (^[a-zA-Z0-9_][a-zA-Z0-9_-]*$, at most {MAX_NAME_LENGTH}).",
        {"class": class_name, "suggestion": suggestion},
    )


def with_suffix(base: str, suffix: str) -> str:
    """`base` + `suffix`, `base` cut short so the whole fits the name limit."""
    return base[: MAX_NAME_LENGTH - len(suffix)].rstrip("-") + suffix


def _within_pattern(text: str) -> str:
    """`text` with each run of characters outside the name pattern made one '-', cut to the limit."""
    return re.sub(r"[^a-zA-Z0-9_-]+", "-", text).strip("-")[:MAX_NAME_LENGTH].rstrip("-")


def valid_name_like(name: str) -> str:
    """A valid name close to `name`: what a refusal's hint offers instead."""
    stem = _within_pattern(name) or "agent"
    return stem if name_problem(stem) is None else with_suffix(stem, "-1")


def name_stem(class_name: str) -> str:
    """The class as a name prefix: lower case, anything outside the name pattern dropped."""
    stem = re.sub(r"[^a-z0-9_-]+", "-", class_name.lower()).strip("-_")
    return stem or "agent"


def generate_name(class_name: str) -> str:
    import secrets  # creation only: kept off the CLI's read path

    return with_suffix(name_stem(class_name), f"-{secrets.token_hex(2)}")


def free_name_like(conn: sqlite3.Connection, wanted: str, suffix: str = "") -> str:
    """The first of `wanted+suffix`, `wanted+suffix-2`, ... that is free, each within the name limit."""
    for counter in range(1 if suffix else 2, 1000):
        candidate = with_suffix(wanted, suffix + (f"-{counter}" if counter > 1 else ""))
        if name_problem(candidate) is None and not agent_rows.name_taken(conn, candidate):
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

    validate_class(class_name)
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


def stale_session(session_id: str) -> WardianError:
    """The self-lookup of a WARDIAN_SESSION_ID that names no agent: left from one deleted, or set by hand."""
    return WardianError(
        "not_found",
        f"WARDIAN_SESSION_ID names no agent ({session_id!r}): the agent it belonged to was deleted, "
        "or the variable was set by hand",
        "Unset WARDIAN_SESSION_ID in this shell, or look an agent up by name: `wardian agent <name>` "
        "(`wardian agent list --scope all` lists them).",
        {"requested": "self", "variable": "WARDIAN_SESSION_ID", "session_id": session_id},
    )


def find_in(agents: Sequence[Record], reference: str) -> Record:
    """Resolve by exact uuid first, then name in any case (names are unique whatever their case),
    within a list of records."""
    for agent in agents:
        if agent["uuid"] == reference:
            return agent
    wanted = reference.lower()  # names are ASCII: lower() is SQLite's NOCASE
    for agent in agents:
        if agent["name"].lower() == wanted:
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
