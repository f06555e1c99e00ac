"""`wardian agent screen`: a live agent's visible terminal screen."""

from typing import Any

import click

from wardian_core import paths, roster
from wardian_core.errors import WardianError, not_live
from wardian_host.cli.live import envelope, request
from wardian_host.cli.render import write_json


def _not_live_without_host(target: str) -> WardianError:
    """No host runs, so no agent is live; an unknown name is still `not_found`."""
    record = roster.show_agent(paths.wardian_home(), target)
    return not_live(record["name"], record["status"], "no host runs, so it has no terminal to show")


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


def screen_answer(target: str) -> dict[str, Any]:
    """What `agent screen` prints (and the MCP tool `agent_screen` answers)."""
    try:
        return envelope("screen", request("agent.screen", {"target": target}))
    except WardianError as error:
        if error.code != "app_not_running":
            raise
        raise _not_live_without_host(target) from None
