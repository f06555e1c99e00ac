"""`wardian settings`: read and change `<home>/settings.toml`."""

import sys
from typing import Any

import click

from wardian_core import paths
from wardian_core.errors import SCHEMA_VERSION
from wardian_host.cli.render import bare, write_json


@click.group()
def settings() -> None:
    """Global defaults in <home>/settings.toml: list, get, set and unset them by dotted key."""


@settings.command("list")
@click.option("--verbose", is_flag=True, help="Add where each value comes from: file or default.")
@click.option("--pretty", is_flag=True, help="Aligned text for people.")
def list_command(verbose: bool, pretty: bool) -> None:
    """Every setting with its effective value, defaults included."""
    from wardian_core.settings import list_settings

    values, sources = list_settings(paths.wardian_home())
    if pretty:
        _write_table(values, sources if verbose else None)
        return
    envelope: dict[str, Any] = {"schema": SCHEMA_VERSION, "settings": values}
    if verbose:
        envelope["sources"] = sources
    write_json(envelope)


@settings.command("get")
@click.argument("key")
def get_command(key: str) -> None:
    """One setting's effective value and whether it comes from the file or the default."""
    from wardian_core.settings import get_setting

    write_json({"schema": SCHEMA_VERSION, **get_setting(paths.wardian_home(), key)})


@settings.command("set")
@click.argument("key")
@click.argument("value")
def set_command(key: str, value: str) -> None:
    """Write KEY = VALUE, read as the key's type (true/false, a number, or text)."""
    from wardian_core.settings import set_setting

    write_json({"schema": SCHEMA_VERSION, **set_setting(paths.wardian_home(), key, value)})


@settings.command("unset")
@click.argument("key")
def unset_command(key: str) -> None:
    """Remove KEY from the file, so its default applies again."""
    from wardian_core.settings import unset_setting

    write_json({"schema": SCHEMA_VERSION, **unset_setting(paths.wardian_home(), key)})


def _write_table(values: dict[str, Any], sources: dict[str, str] | None) -> None:
    width = max(len(key) for key in values)
    lines = []
    for key, value in values.items():
        text = f"{key.ljust(width)}  {_cell(value)}"
        if sources is not None:
            text += f"  ({sources[key]})"
        lines.append(text)
    sys.stdout.write("\n".join(lines) + "\n")


def _cell(value: Any) -> str:
    """Never blank, so the columns stay aligned: `-` for unset, `""` for empty text (as docs/cli.md)."""
    if value is None:
        return "-"
    return bare(value) or '""'
