"""A send to a real Claude Code agent is confirmed by its UserPromptSubmit hook, through `wardian`."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from delivery_checks import assert_a_send_is_confirmed_once
from wardian_cli import WardianCli

from wardian_host.testing.reaping import reap_home

pytestmark = pytest.mark.real_cli


@pytest.fixture
def wardian(claude_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[WardianCli]:
    """`wardian` whose host (and so every agent) inherits what points Claude at the model server."""
    wardian_home = tmp_path / "wardian-home"
    wardian_home.mkdir(exist_ok=True)
    for name, value in claude_cli.env.items():
        if name != "HOME":
            monkeypatch.setenv(name, value)
    monkeypatch.setenv("WARDIAN_HOME", str(wardian_home))
    monkeypatch.setenv("WARDIAN_CLAUDE_EXECUTABLE", str(claude_cli.executable))
    monkeypatch.setenv("WARDIAN_PLUGINS", "claude")
    try:
        yield WardianCli(wardian_home, claude_cli.workspace.resolve(), claude_cli, "claude")
    finally:
        reap_home(wardian_home)


def test_a_send_is_confirmed_by_the_user_prompt_submit_hook(wardian: WardianCli) -> None:
    assert_a_send_is_confirmed_once(wardian, "cc", {"hook UserPromptSubmit"})
    wardian.cli.assert_only_model_server_was_called()
