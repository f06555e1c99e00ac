"""The JSON envelopes answers come in, and the output options that choose an agent record's fields."""

from typing import Any, NamedTuple

from wardian_core import fields
from wardian_core.errors import SCHEMA_VERSION, WardianError


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


def envelope(key: str, value: Any, notice: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"schema": SCHEMA_VERSION, key: value} | ({"notice": notice} if notice else {})


def agent_envelope(
    record: dict[str, Any], options: OutputOptions, notice: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The JSON of one agent record, as `agent show` prints it (and the MCP tool answers)."""
    return envelope("agent", fields.select(record, options.columns()), notice)


def agents_envelope(
    records: list[dict[str, Any]], options: OutputOptions, notice: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The JSON of agent records, as `agent list` prints it (and the MCP tool answers)."""
    columns = options.columns()
    return envelope("agents", [fields.select(record, columns) for record in records], notice)


def live_agent_envelope(snapshot: dict[str, Any], verbose: bool = False) -> dict[str, Any]:
    """The JSON a lifecycle command prints for the agent the host answered with."""
    return agent_envelope(fields.to_record(snapshot, "live"), OutputOptions(verbose=verbose))
