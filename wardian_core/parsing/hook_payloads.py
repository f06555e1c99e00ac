"""What Claude Code's and Codex's hook payloads say about a tool (their shapes are shared)."""

import json
from collections.abc import Collection
from pathlib import Path
from typing import Any

from wardian_core.parsing.jsonl import json_object, lines_newest_first, text_field


def tool_summary(record: dict[str, Any]) -> str:
    """`<tool>: <command>` for a shell tool, else the tool with its input as JSON."""
    tool = text_field(record, "tool_name") or "tool"
    tool_input = record.get("tool_input")
    if isinstance(tool_input, dict) and isinstance(tool_input.get("command"), str):
        return f"{tool}: {tool_input['command']}"
    try:
        return f"{tool}: {json.dumps(tool_input, ensure_ascii=False)}" if tool_input is not None else tool
    except (TypeError, ValueError):
        return tool


def tool_data(record: dict[str, Any]) -> dict[str, Any]:
    """The tool's name, input and call id, for an event's `data`."""
    data: dict[str, Any] = {"tool_name": text_field(record, "tool_name")}
    if isinstance(record.get("tool_input"), dict):
        data["tool_input"] = record["tool_input"]
    if text_field(record, "tool_use_id"):
        data["tool_use_id"] = record["tool_use_id"]
    return data


def hook_payload(line: bytes) -> tuple[dict[str, Any], str] | None:
    """One line of a hook log: the payload and its `hook_event_name`, or None for anything else."""
    record = json_object(line)
    name = text_field(record, "hook_event_name") if record else None
    return (record, name) if record is not None and name is not None else None


def newest_hook(log_file: Path | None, names: Collection[str]) -> tuple[dict[str, Any], str] | None:
    """The newest payload in the hook log whose `hook_event_name` is one of `names`, with that
    name; None without one, without a log (a replay, hooks turned off) or when it cannot be read.
    Read from the end: the newest few payloads decide, and weeks of older hooks stay unread."""
    if log_file is None:
        return None
    try:
        for record, name in filter(None, map(hook_payload, lines_newest_first(log_file))):
            if name in names:
                return record, name
    except OSError:
        return None
    return None
