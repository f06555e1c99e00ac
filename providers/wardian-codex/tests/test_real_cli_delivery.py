"""A send to a real Codex agent is confirmed by its turn start, through `wardian`."""

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from delivery_checks import assert_a_send_is_confirmed_once
from wardian_cli import WardianCli

from wardian_host.testing.reaping import reap_home

pytestmark = pytest.mark.real_cli

MOCK_API_KEY = "sk-mock-0123456789abcdefghijklmnopqrstuvwxyz"
# Its UserPromptSubmit hook or the rollout's task_started, whichever the host reads first.
TURN_STARTS = {"hook UserPromptSubmit", "event_msg/task_started"}


@pytest.fixture
def wardian(codex_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[WardianCli]:
    """`wardian` with the real Codex: the user's Codex home (HOME/.codex) points at the model server."""
    wardian_home = tmp_path / "wardian-home"
    wardian_home.mkdir(exist_ok=True)
    monkeypatch.setenv("WARDIAN_HOME", str(wardian_home))
    monkeypatch.setenv("WARDIAN_CODEX_EXECUTABLE", str(codex_cli.executable))
    monkeypatch.setenv("MOCK_MODEL_API_KEY", MOCK_API_KEY)
    monkeypatch.setenv("WARDIAN_PLUGINS", "codex")
    monkeypatch.delenv("CODEX_HOME", raising=False)
    try:
        yield WardianCli(wardian_home, codex_cli.workspace.resolve(), codex_cli, "codex")
    finally:
        reap_home(wardian_home)


def test_a_send_is_confirmed_by_the_turn_start(wardian: WardianCli) -> None:
    assert_a_send_is_confirmed_once(wardian, "cx", TURN_STARTS)
    wardian.cli.assert_only_model_server_was_called()
