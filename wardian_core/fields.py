"""The fields an agent record offers to `agent show/list`, as plain data.

The CLI's read path uses these tuples instead of the pydantic AgentRecord so it
starts fast; a test checks they match `wardian_core.models.AgentRecord`.
"""

import json
from typing import Any

from wardian_core.errors import WardianError

DEFAULT_FIELDS = ("name", "uuid", "class", "provider", "workspace", "status")
VERBOSE_FIELDS = (
    *DEFAULT_FIELDS,
    "pid",
    "started_at",
    "last_status_at",
    "launch_config",
    "provider_settings",
    "mcp_tools",
)
ALL_FIELDS = (
    *VERBOSE_FIELDS,
    "status_source",
    "host_gone",
    "description",
    "created_at",
    "provider_session_id",
    "is_off",
    "status_evidence",
    "worktree",
    "worktree_folder",
    "branch",
    "usage",
    "limit",
)
# What an agent launches with when its stored configuration leaves a key out; a test
# checks these against `wardian_core.provider_models.LaunchConfig`.
LAUNCH_CONFIG_DEFAULTS: dict[str, Any] = {
    "model": None,
    "extra_args": [],
    "include_dirs": [],
    "session_persistence": "default",
}


def parse_field_list(text: str, known: tuple[str, ...] = ALL_FIELDS) -> tuple[str, ...]:
    wanted = tuple(name.strip() for name in text.split(",") if name.strip())
    if not wanted:
        raise WardianError("invalid_field", "--fields needs at least one field name", _fields_hint(known))
    for name in wanted:
        check_field(name, known)
    return wanted


def check_field(name: str, known: tuple[str, ...] = ALL_FIELDS) -> str:
    """`name`, when the record offers it (`known`: an agent record's fields unless told)."""
    if name not in known:
        raise WardianError("invalid_field", f"unknown field {name!r}", _fields_hint(known), {"field": name})
    return name


def _fields_hint(known: tuple[str, ...]) -> str:
    return "Known fields: " + ", ".join(known) + "."


def to_record(row: dict[str, Any], status_source: str) -> dict[str, Any]:
    """A stored or live agent row as the record the CLI shows (never its environment)."""
    record = {name: row.get(name) for name in ALL_FIELDS}
    record["is_off"] = bool(row.get("is_off"))
    record["host_gone"] = bool(row.get("host_gone"))
    evidence = record["status_evidence"]
    if isinstance(evidence, str):
        record["status_evidence"] = json.loads(evidence) if evidence else None
    record["launch_config"] = launch_config_record(record["launch_config"])
    settings = record["provider_settings"]
    if isinstance(settings, str):
        record["provider_settings"] = json.loads(settings) if settings else None
    limit = record["limit"]
    if isinstance(limit, str):
        record["limit"] = json.loads(limit) if limit else None
    record["status_source"] = status_source
    return record


def launch_config_record(stored: str | dict[str, Any] | None) -> dict[str, Any]:
    """The stored launch configuration (JSON text in state.db) with every key present."""
    config = json.loads(stored) if isinstance(stored, str) and stored else stored or {}
    # A fresh copy of the default lists, so no caller changes the defaults (copy.deepcopy would
    # cost the read path its import).
    defaults = {key: list(value) if isinstance(value, list) else value for key, value in LAUNCH_CONFIG_DEFAULTS.items()}
    return defaults | config


def select(record: dict[str, Any], names: tuple[str, ...]) -> dict[str, Any]:
    return {name: record[name] for name in names}


def live_agent(snapshot: dict[str, Any], names: tuple[str, ...] = DEFAULT_FIELDS) -> dict[str, Any]:
    """A host's agent snapshot in the shape `agent show` gives it, never a raw row."""
    return select(to_record(snapshot, "live"), names)
