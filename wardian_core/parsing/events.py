"""Making a provider event with its evidence: the one helper every parser uses."""

from typing import Any

from wardian_core.provider_models import EventKind, Evidence, OutputSource, ParseResult, ProviderEvent, excerpt

EVIDENCE_CHARS = 300


def event(kind: EventKind, source: OutputSource, rule: str, line: str | None = None, **fields: Any) -> ProviderEvent:
    """`kind` from `source`, decided by `rule` on `line` (kept short as evidence)."""
    evidence = Evidence(source=source.name, rule=rule, line=excerpt(line, EVIDENCE_CHARS) if line else None)
    return ProviderEvent(kind=kind, evidence=evidence, **fields)


def in_turn(result: ParseResult, turn: str | None) -> ParseResult:
    """`result` with each event marked as one of `turn`, the provider's id of its turn (none: as it is)."""
    if not turn or not result.events:
        return result
    return result.model_copy(update={"events": [each.model_copy(update={"turn": turn}) for each in result.events]})


def screen_text(rows: list[str]) -> str:
    """A screen's rows as one text, for rules that look for words across the screen."""
    return "\n".join(rows)
