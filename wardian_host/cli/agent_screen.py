"""`wardian agent screen`: a live agent's visible terminal screen."""

from typing import Any

import click

from wardian_host.answers.screens import screen_answer
from wardian_host.cli.render import write_json


def draw(screen: dict[str, Any]) -> str:
    """The screen as a person sees it, framed, with the cursor's place below."""
    cols = screen["size"]["cols"]
    title = f" {screen['agent']}" + (f" — {screen['title']} " if screen["title"] else " ")
    top = "┌" + title[:cols].ljust(cols, "─") + "┐"
    body = ["│" + row.ljust(cols)[:cols] + "│" for row in screen["rows"]]
    cursor = screen["cursor"]
    bottom = "└" + "─" * cols + "┘"
    return "\n".join([top, *body, bottom, f"cursor row {cursor['row']} col {cursor['col']}"])


@click.command("screen")
@click.argument("target", metavar="NAME-OR-UUID")
@click.option("--pretty", is_flag=True, help="Draw the screen as a person sees it.")
def screen(target: str, pretty: bool) -> None:
    """The agent's visible screen: rows, cursor, title and size (live agents only)."""
    answer = screen_answer(target)
    if pretty:
        click.echo(draw(answer["screen"]))
    else:
        write_json(answer)
