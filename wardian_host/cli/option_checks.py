"""Option values the CLI refuses itself (`usage`), before anything is sent: the host would
otherwise answer with a `bad_request` naming its internal request kinds."""

import click

from wardian_core import identity


def not_empty(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """A click callback: an option given as "" (or blanks) is a usage error."""
    if value is not None and not value.strip():
        raise click.BadParameter("must not be empty", ctx=ctx, param=param)
    return value


def class_option(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """`--class`: not empty (`usage`), and following the name rules (`invalid_name`)."""
    checked = not_empty(ctx, param, value)
    return identity.validate_class(checked) if checked is not None else None
