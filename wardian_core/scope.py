"""`--scope kind[:arg]` for `agent list`, parsed so later kinds slot in."""

from typing import NamedTuple

from wardian_core.errors import WardianError

SUPPORTED_KINDS = ("workspace", "all")
# Kinds the flag keeps for later (teams, agent graphs): recognised, so refused as not supported yet.
RESERVED_KINDS = ("team", "graph")


class Scope(NamedTuple):
    kind: str
    argument: str | None = None


def parse_scope(text: str) -> Scope:
    kind, _, argument = text.partition(":")
    kind = kind.strip()
    if kind not in SUPPORTED_KINDS + RESERVED_KINDS:
        raise WardianError(
            "usage",
            f"unknown scope {kind!r}",
            "Use --scope workspace[:PATH] or --scope all.",
            {"scope": text, "supported": list(SUPPORTED_KINDS)},
        )
    if kind in RESERVED_KINDS:
        raise WardianError(
            "not_supported",
            f"scope {kind!r} is not supported yet",
            "Use --scope workspace[:PATH] or --scope all.",
            {"scope": text, "supported": list(SUPPORTED_KINDS)},
        )
    if kind == "all" and argument:
        raise WardianError("usage", "--scope all takes no argument", "Use --scope all.", {"scope": text})
    return Scope(kind, argument or None)
