"""One renderer for agent records: JSON, `--pretty`, `--fields` and `--field`."""

import json
import os
import re
import sys
from typing import Any, NamedTuple

import click

from wardian_core import fields
from wardian_core.errors import SCHEMA_VERSION, WardianError

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


class OutputOptions(NamedTuple):
    fields: tuple[str, ...] | None = None
    field: str | None = None
    verbose: bool = False
    pretty: bool = False

    @classmethod
    def from_flags(
        cls,
        fields_text: str | None,
        field: str | None,
        verbose: bool,
        pretty: bool,
        record_fields: tuple[str, ...] | None = None,
    ) -> "OutputOptions":
        """The output flags checked against an agent record's fields, or against `record_fields`:
        the keys of another kind of record (a workflow node run's), all shown by default."""
        if field is not None and (fields_text is not None or pretty):
            raise WardianError(
                "usage",
                "--field cannot be combined with --fields or --pretty",
                "Use --field NAME alone for a bare value, or --fields a,b for JSON.",
            )
        known = record_fields or fields.ALL_FIELDS
        chosen = fields.parse_field_list(fields_text, known) if fields_text is not None else record_fields
        return cls(chosen, fields.check_field(field, known) if field is not None else None, verbose, pretty)

    def columns(self) -> tuple[str, ...]:
        if self.fields is not None:
            return self.fields
        return fields.VERBOSE_FIELDS if self.verbose else fields.DEFAULT_FIELDS


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


def _envelope(key: str, value: Any, notice: dict[str, Any] | None) -> dict[str, Any]:
    return {"schema": SCHEMA_VERSION, key: value} | ({"notice": notice} if notice else {})


def write_notice(notice: dict[str, Any] | None) -> None:
    """A caveat about an answer whose stdout holds bare values or text: it goes to stderr."""
    if notice:
        sys.stderr.write(json.dumps({"schema": SCHEMA_VERSION, "notice": notice}) + "\n")


def agent_envelope(
    record: dict[str, Any], options: OutputOptions, notice: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The JSON of one agent record, as `agent show` prints it (and the MCP tool answers)."""
    return _envelope("agent", fields.select(record, options.columns()), notice)


def agents_envelope(
    records: list[dict[str, Any]], options: OutputOptions, notice: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The JSON of agent records, as `agent list` prints it (and the MCP tool answers)."""
    columns = options.columns()
    return _envelope("agents", [fields.select(record, columns) for record in records], notice)


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
