"""`wardian usage`: what the agents cost, as their CLIs recorded it, totalled per agent, class,
provider and day (UTC), from state.db (the host writes each turn as it is reported)."""

from typing import Any

import click

from wardian_core import paths
from wardian_core.errors import SCHEMA_VERSION
from wardian_host.cli.render import write_json

GROUPINGS = ("agent", "class", "provider", "day")
# The columns of `--pretty`, with their headings; a figure no turn reported shows as "-".
PRETTY_COLUMNS = (
    ("turns", "TURNS"),
    ("input_tokens", "INPUT"),
    ("output_tokens", "OUTPUT"),
    ("cache_read_tokens", "CACHE READ"),
    ("cache_write_tokens", "CACHE WRITE"),
    ("reasoning_tokens", "REASONING"),
    ("cost_usd", "COST USD"),
)


@click.command("usage")
@click.option("--by", "groupings", type=click.Choice(GROUPINGS), multiple=True, help="Only these totals (repeatable).")
@click.option("--since", metavar="WHEN", help="Only turns since a day (UTC), a moment, or a span back: 24h, 7d.")
@click.option("--pretty", is_flag=True, help="Tables for people instead of JSON.")
def usage(groupings: tuple[str, ...], since: str | None, pretty: bool) -> None:
    """Tokens, cost and turns per agent, class, provider and day; null where no CLI reported a figure."""
    report = usage_report(groupings or GROUPINGS, since)
    if pretty:
        click.echo(pretty_report(report))
    else:
        write_json({"schema": SCHEMA_VERSION, "usage": report})


def usage_report(groupings: tuple[str, ...], since: str | None) -> dict[str, Any]:
    from wardian_core.db.connection import reading
    from wardian_core.db.usage import totals
    from wardian_core.usage_since import since_timestamp

    start = since_timestamp(since) if since is not None else None
    with reading(paths.wardian_home()) as conn:
        report: dict[str, Any] = {"since": start, "total": totals(conn, None, start)[0]}
        for grouping in groupings:
            report[f"by_{grouping}"] = totals(conn, grouping, start)  # type: ignore[arg-type]  # a GROUPINGS name
        report["budgets"] = budgets_beside(conn)
    return report


def budgets_beside(conn: Any) -> list[dict[str, Any]]:
    """Each agent with a budget (or held by one): its budget, what it used since its spawn, what is
    left (`wardian agent budget NAME`'s answer, without the schema)."""
    from wardian_core.db.agents import list_agents
    from wardian_core.db.budgets import agent_budget
    from wardian_core.settings import load_settings

    settings = load_settings(paths.wardian_home()).budgets
    answers = [agent_budget(conn, settings, dict(row)) for row in list_agents(conn)]
    return [
        answer
        for answer in answers
        if answer["held"]
        or any(v is not None for k, v in answer["budget"].items() if k in ("tokens", "usd", "minutes"))
    ]


def pretty_report(report: dict[str, Any]) -> str:
    sections = [f"since {report['since']}" if report["since"] else "all stored turns"]
    sections.append(_table("TOTAL", [{"total": "all"} | report["total"]], "total"))
    sections.extend(
        _table(grouping.upper(), report[f"by_{grouping}"], grouping)
        for grouping in GROUPINGS
        if f"by_{grouping}" in report
    )
    if report.get("budgets"):
        from wardian_host.cli.budget_bars import pretty_budget

        sections.append(
            "BUDGETS (use since spawn)\n" + "\n".join(pretty_budget(answer) for answer in report["budgets"])
        )
    return "\n\n".join(sections)


def _table(heading: str, rows: list[dict[str, Any]], key: str) -> str:
    if not rows:
        return f"{heading}\n(no turns)"
    headings = [heading, *(title for _, title in PRETTY_COLUMNS)]
    cells = [[str(row[key]), *(_figure(row[name]) for name, _ in PRETTY_COLUMNS)] for row in rows]
    widths = [max(len(headings[i]), *(len(line[i]) for line in cells)) for i in range(len(headings))]
    lines = ["  ".join(text.ljust(widths[i]) for i, text in enumerate(headings)).rstrip()]
    # Names left, figures right, as a person reads a table of numbers.
    lines += [
        "  ".join([line[0].ljust(widths[0]), *(t.rjust(widths[i + 1]) for i, t in enumerate(line[1:]))])
        for line in cells
    ]
    return "\n".join(lines)


def _figure(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.6f}".rstrip("0").rstrip(".") or "0"
    return str(value)
