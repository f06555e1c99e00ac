"""One renderer for agent records: JSON, `--pretty`, `--fields` and `--field`."""

import json
import os
import re
import sys
from typing import Any

import click

from wardian_core.errors import SCHEMA_VERSION
from wardian_host.answers.records import OutputOptions, agent_envelope, agents_envelope

# The Wardian status palette: emerald, cyan, amber, gray, red.
STATUS_COLOURS = {
    "idle": "green",
    "processing": "cyan",
    "action_required": "yellow",
    "off": "bright_black",
    "error": "red",
    "starting": "blue",
    "headless": "magenta",
}


# What would end a line for a shell's `read` or a line-splitting parser, or what a terminal
# acts on: control characters other than tab, and Unicode's own line separators.
_BREAKS_A_LINE = re.compile("[\x00-\x08\x0a-\x1f\x7f\x85\u2028\u2029]")
_UNICODE_BREAKS = str.maketrans({"\x85": "\\u0085", "\u2028": "\\u2028", "\u2029": "\\u2029"})


def one_line(text: str) -> str:
    """`text` unchanged, or, when it would not stay on one line (or starts with a quote, so
    the two cannot be confused), as a JSON string: quoted and escaped; `jq -r .` turns it back."""
    if not _BREAKS_A_LINE.search(text) and not text.startswith('"'):
        return text
    return json.dumps(text, ensure_ascii=False).translate(_UNICODE_BREAKS)


def bare(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"))  # one line, still machine-readable
    return one_line(str(value))


def _colours_wanted() -> bool:
    """Colour only on a terminal, and never while NO_COLOR is set to anything (no-color.org)."""
    return sys.stdout.isatty() and not os.environ.get("NO_COLOR")


def _styled_status(text: str, status: Any, padded_to: int = 0) -> str:
    padded = text.ljust(padded_to)
    if not _colours_wanted():
        return padded
    colour = STATUS_COLOURS.get(str(status))
    return click.style(padded, fg=colour) if colour else padded


def _pretty_block(record: dict[str, Any], columns: tuple[str, ...]) -> str:
    width = max(len(name) for name in columns)
    lines = []
    for name in columns:
        value = bare(record[name])
        if name == "status":
            value = _styled_status(value, record[name])
        lines.append(f"{name.ljust(width)}  {value}".rstrip())
    return "\n".join(lines)


def _pretty_table(records: list[dict[str, Any]], columns: tuple[str, ...]) -> str:
    if not records:
        return "no agents"
    cells = [[bare(record[name]) for name in columns] for record in records]
    widths = [max(len(name), *(len(row[i]) for row in cells)) for i, name in enumerate(columns)]
    lines = ["  ".join(name.upper().ljust(widths[i]) for i, name in enumerate(columns)).rstrip()]
    for record, row in zip(records, cells, strict=True):
        parts = [
            _styled_status(text, record[name], widths[i]) if name == "status" else text.ljust(widths[i])
            for i, (name, text) in enumerate(zip(columns, row, strict=True))
        ]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def write_json(envelope: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(envelope, indent=2) + "\n")


def write_notice(notice: dict[str, Any] | None) -> None:
    """A caveat about an answer whose stdout holds bare values or text: it goes to stderr."""
    if notice:
        sys.stderr.write(json.dumps({"schema": SCHEMA_VERSION, "notice": notice}) + "\n")


def emit_agent(record: dict[str, Any], options: OutputOptions, notice: dict[str, Any] | None = None) -> None:
    if options.field is not None:
        sys.stdout.write(bare(record[options.field]) + "\n")
    elif options.pretty:
        sys.stdout.write(_pretty_block(record, options.columns()) + "\n")
    else:
        write_json(agent_envelope(record, options, notice))
        return
    write_notice(notice)


def emit_agents(records: list[dict[str, Any]], options: OutputOptions, notice: dict[str, Any] | None = None) -> None:
    if options.field is not None:
        sys.stdout.write("".join(bare(record[options.field]) + "\n" for record in records))
    elif options.pretty:
        sys.stdout.write(_pretty_table(records, options.columns()) + "\n")
    else:
        write_json(agents_envelope(records, options, notice))
        return
    write_notice(notice)
