"""`wardian agent budget NAME`: its budget, what it used and what is left; `--raise`, `--clear`."""

import click

from wardian_host.answers.budgets import budget_answer
from wardian_host.cli.render import write_json


@click.command("budget")
@click.argument("target", metavar="NAME-OR-UUID")
@click.option("--raise", "raise_by", metavar="tokens=+N,usd=+X,minutes=+M", help="Add to its budget (N: set it).")
@click.option("--clear", is_flag=True, help="No budget for this agent, whatever settings.toml says.")
@click.option("--pretty", is_flag=True, help="Bars for people instead of JSON.")
def budget(target: str, raise_by: str | None, clear: bool, pretty: bool) -> None:
    """Show an agent's budget; raising or clearing it lifts its hold."""
    answer = budget_answer(target, raise_by, clear)
    if pretty:
        from wardian_host.cli.budget_bars import pretty_budget

        click.echo(pretty_budget(answer))
    else:
        write_json(answer)
