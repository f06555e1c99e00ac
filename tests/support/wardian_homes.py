"""The `wardian` a provider's real-CLI tests drive: a Wardian home of the test's own, and the
user's environment that points the CLI at the model server, which the host (and so every
agent) inherits — the way a user's own environment reaches their agents."""

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest
from wardian_cli import WardianCli

from wardian_host.testing.reaping import reap_home

Made = TypeVar("Made", bound=WardianCli)


@contextlib.contextmanager
def wardian_for(
    cli: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    inherited: dict[str, str],
    made: type[Made],
) -> Iterator[Made]:
    """`wardian` with the real CLI of `cli` (a `<provider>_cli` fixture's RealCli) and only its
    provider loaded, as a `made` (a provider's own WardianCli with its helpers); every host the
    test started is reaped afterwards."""
    wardian_home = tmp_path / "wardian-home"
    wardian_home.mkdir(exist_ok=True)
    # The CLI fixtures drop every WARDIAN_ variable: the test's home is set again.
    monkeypatch.setenv("WARDIAN_HOME", str(wardian_home))
    monkeypatch.setenv(f"WARDIAN_{cli.name.upper()}_EXECUTABLE", str(cli.executable))
    monkeypatch.setenv("WARDIAN_PLUGINS", cli.name)
    for name, value in inherited.items():
        monkeypatch.setenv(name, value)
    try:
        yield made(wardian_home, cli.workspace.resolve(), cli, cli.name)
    finally:
        reap_home(wardian_home)


def wardian_fixture(
    cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, inherited: dict[str, str]
) -> Iterator[WardianCli]:
    """The body of a provider's `wardian` fixture (`yield from`): `wardian_for` held open."""
    with wardian_for(cli, tmp_path, monkeypatch, inherited, WardianCli) as wardian:
        yield wardian
