"""Codex itself at a plan's usage limit, through `wardian`, against the loopback model server
answering as the ChatGPT backend does (`MOCK_LIMIT`: 429 `usage_limit_reached`, `x-codex-*`
windows): the agent rests with the reset the server gave, and once it passed Wardian continues
the turn past Codex's switch-model popup, on the same model."""

import json
import time
from datetime import UTC, datetime
from typing import Any

import pytest
from wardian_cli import WardianCli

pytestmark = pytest.mark.real_cli

# Far enough for the agent to be seen resting before the reset, near enough for a short test.
RESET_AHEAD_SECONDS = 12


def iso(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def model_turns(server: Any) -> list[tuple[int, str, str]]:
    """(status, model, newest user text) of each model request, oldest first."""
    turns = []
    for request in server.model_requests():
        body = json.loads(request.body_text())
        users = [item for item in body.get("input", []) if isinstance(item, dict) and item.get("role") == "user"]
        text = json.dumps(users[-1]) if users else ""
        turns.append((request.reply_status, body.get("model"), text))
    return turns


def test_a_limit_rests_the_agent_then_wardian_continues_it_on_the_same_model(wardian: WardianCli) -> None:
    # A short delay after the reset keeps the test short; the default spreads a fleet over 5-30 s.
    # (`settings set` checks one key against the other's default: 5 passes, 2 would not.)
    wardian("settings", "set", "limits.resume_delay_min_seconds", "1")
    wardian("settings", "set", "limits.resume_delay_max_seconds", "5")
    wardian.spawn("cx")
    wardian.wait("cx", "idle", "ready")
    reset = int(time.time()) + RESET_AHEAD_SECONDS

    wardian("send", f"go MOCK_LIMIT:primary:{reset} ECHO:l1", "--to", "cx", "--wait-until", "idle", "--timeout", "60s")

    limit = wardian.limit_rested("cx", source="rollout")
    # The 5-hour window, to the second the server gave; Codex's own words.
    assert (limit["kind"], limit["resets_at"]) == ("session", iso(reset))
    assert limit["message"].startswith("You\u2019ve hit your usage limit.") and "try again at" in limit["message"]
    wardian.screen_shows("cx", "Switch to gpt-6-luna")  # the popup that would take the text

    # At the reset (plus the delay) Wardian presses Esc, then types `continue`: the next idle is that turn's end.
    wardian("agent", "wait", "cx", "--until", "idle", "--next", "--timeout", "90s", timeout=120)

    wardian.resumed_by_wardian("cx")
    # The server got the continued turn after the reset, on the model the agent had: Esc left the
    # popup on it (Enter there would have switched to gpt-6-luna and lost the text).
    last_status, last_model, last_text = model_turns(wardian.cli.server)[-1]
    assert (last_status, last_model) == (200, "mock-model") and "continue" in last_text
    assert all(model == "mock-model" for _, model, _ in model_turns(wardian.cli.server))
    wardian.output_shows("cx", "MOCK-REPLY")
    wardian.cli.assert_only_model_server_was_called()
