"""Gemini CLI itself at a plan's usage limit, through `wardian`, against the loopback model server
answering as Code Assist does (`MOCK_LIMIT:QUOTA_EXHAUSTED`: 429 `RESOURCE_EXHAUSTED` with an
`ErrorInfo` and a `RetryInfo`): the agent rests behind Gemini's dialog with the reset it shows, and
once that passed Wardian picks "Stop" and sends the cut prompt again (Gemini dropped it from the
conversation when its request failed), on the same model."""

import json
import time
from datetime import UTC, datetime
from typing import Any

import pytest
from model_server.gemini import conversation
from wardian_cli import WardianCli

pytestmark = pytest.mark.real_cli

MODEL = "gemini-2.5-pro"
# Near enough for a short test: Gemini shows the reset to the minute, and Wardian resumes after
# that minute's end, so the test waits at most about a minute more.
RESET_AHEAD_SECONDS = 8


def a_reset_ahead() -> int:
    """A reset a few seconds ahead, not in a minute's last seconds: Gemini adds the delay to its
    own clock, a moment later than the server's, and must show the server's minute."""
    reset = int(time.time()) + RESET_AHEAD_SECONDS
    return reset + 4 if reset % 60 >= 57 else reset


def end_of_minute(epoch: int) -> str:
    return datetime.fromtimestamp(epoch - epoch % 60 + 60, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def model_turns(server: Any) -> list[tuple[int, str, str, str]]:
    """(status, model, newest prompt, whole body) of each main-model request, oldest first."""
    turns = []
    for request in server.model_requests():
        if request.reply_kind == "schema":
            continue  # the router's own question
        model = request.route.removeprefix("/v1beta/models/").split(":")[0]
        prompt = conversation(json.loads(request.body_text())).prompt
        turns.append((request.reply_status, model, prompt, request.body_text()))
    return turns


def test_a_limit_rests_the_agent_behind_its_dialog_then_wardian_continues_on_the_same_model(
    wardian: WardianCli,
) -> None:
    # A short delay after the reset keeps the test short; the default spreads a fleet over 5-30 s.
    wardian("settings", "set", "limits.resume_delay_min_seconds", "1")
    wardian("settings", "set", "limits.resume_delay_max_seconds", "5")
    wardian.spawn("gm", "--model", MODEL)
    wardian.wait("gm", "idle", "ready", timeout="120s")
    reset = a_reset_ahead()
    prompt = f"go MOCK_LIMIT:QUOTA_EXHAUSTED:{reset} ECHO:l1"

    wardian("send", prompt, "--to", "gm", "--wait-until", "idle")

    limit = wardian.limit_rested("gm", source="pty")
    # The minute Gemini shows, to its end: the first moment the server's reset surely passed.
    assert (limit["kind"], limit["resets_at"]) == ("usage", end_of_minute(reset))
    assert limit["message"].startswith("Usage limit reached for all Pro models. Access resets at ")
    wardian.screen_shows("gm", "1. Keep trying")  # Enter here would retry before the reset

    # After the reset (plus the delay) Wardian types "2" (Stop), Backspace, then the cut prompt.
    wardian("agent", "wait", "gm", "--until", "idle", "--next", "--timeout", "120s", timeout=150)

    wardian.resumed_by_wardian("gm")
    # The server got the continued turn after the reset, on the model the agent had; nothing else
    # reached it between the limit and the resume (no "Keep trying" before the reset).
    turns = model_turns(wardian.cli.server)
    assert [(status, model) for status, model, _, _ in turns] == [(429, MODEL), (200, MODEL)], turns
    # The cut prompt, once: Gemini had rolled it out of the conversation (`continue` alone would
    # have reached a model that never saw it).
    assert turns[-1][2] == prompt and turns[-1][3].count("MOCK_LIMIT") == 1
    wardian.output_shows("gm", "MOCK-REPLY l1")
    wardian.cli.assert_only_model_server_was_called()
