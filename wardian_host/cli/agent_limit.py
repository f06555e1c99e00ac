"""`wardian agent resume-limit`: continue, now, the turn a usage limit cut (docs/limits.md)."""

import click

from wardian_host.answers.limits import resume_limit_answer
from wardian_host.cli.render import write_json


@click.command("resume-limit")
@click.argument("target", metavar="NAME-OR-UUID")
def resume_limit(target: str) -> None:
    """Continue the turn a usage limit cut, as its provider says, once the turn has started."""
    write_json(resume_limit_answer(target))
