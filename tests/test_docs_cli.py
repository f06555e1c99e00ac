"""docs/cli.md must name every command, flag and error code, so it cannot drift."""

from collections.abc import Iterator
from pathlib import Path

import click

from wardian_core.errors import EXIT_CODES
from wardian_host.cli import cli

DOC = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text()


def walk(command: click.Command, path: str) -> Iterator[tuple[str, click.Command]]:
    yield path, command
    if isinstance(command, click.Group):
        context = click.Context(command, info_name=path.split()[-1])
        for name in command.list_commands(context):
            sub = command.get_command(context, name)
            assert sub is not None, f"{path} {name} failed to load"
            # A hidden subcommand is its group's own form (`wardian ask AGENT` runs `ask question`).
            yield from walk(sub, path if sub.hidden else f"{path} {name}")


def test_every_command_is_documented() -> None:
    missing = [path for path, _ in walk(cli, "wardian") if f"`{path}" not in DOC]
    assert missing == []


def test_every_flag_is_documented() -> None:
    missing = [
        f"{path} {flag}"
        for path, command in walk(cli, "wardian")
        for param in command.params
        if isinstance(param, click.Option)
        for flag in param.opts
        if flag.startswith("--") and flag not in ("--help", "--version") and f"`{flag}" not in DOC
    ]
    assert missing == []


def test_every_error_code_is_documented_with_its_exit_code() -> None:
    for code, exit_code in EXIT_CODES.items():
        assert f"| `{code}` | {exit_code} |" in DOC, code
