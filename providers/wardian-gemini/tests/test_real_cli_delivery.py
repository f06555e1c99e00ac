"""A send to a real Gemini CLI agent is confirmed by its BeforeAgent hook, through `wardian`."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from delivery_checks import assert_a_send_is_confirmed_once
from wardian_cli import WardianCli

from wardian_host.testing.reaping import reap_home

pytestmark = pytest.mark.real_cli


@pytest.fixture
def wardian(gemini_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[WardianCli]:
    """`wardian` whose host (and so every agent) inherits what points Gemini at the model server."""
    wardian_home = tmp_path / "wardian-home"
    wardian_home.mkdir(exist_ok=True)
    monkeypatch.setenv("WARDIAN_HOME", str(wardian_home))
    monkeypatch.setenv("WARDIAN_GEMINI_EXECUTABLE", str(gemini_cli.executable))
    monkeypatch.setenv("WARDIAN_PLUGINS", "gemini")
    for name in ("GEMINI_CLI_HOME", "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GEMINI_CLI_NO_RELAUNCH"):
        monkeypatch.setenv(name, gemini_cli.env[name])
    try:
        yield WardianCli(wardian_home, gemini_cli.workspace.resolve(), gemini_cli, "gemini")
    finally:
        reap_home(wardian_home)


def test_a_send_is_confirmed_by_the_before_agent_hook(wardian: WardianCli) -> None:
    assert_a_send_is_confirmed_once(wardian, "gem", {"hook BeforeAgent"})
    wardian.cli.assert_only_model_server_was_called()
