"""Gemini CLI itself at a plan's usage limit, through `wardian`, against the loopback model server
answering as Code Assist does (`MOCK_LIMIT:QUOTA_EXHAUSTED`: 429 `RESOURCE_EXHAUSTED` with an
`ErrorInfo` and a `RetryInfo`): the agent rests behind Gemini's dialog with the reset it shows, and
once that passed Wardian picks "Stop" and sends the cut prompt again (Gemini dropped it from the
conversation when its request failed), on the same model. Then a short per-minute quota, which
Gemini retries by itself: Wardian reports the retry and lets it go on."""

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
# Gemini's retry waits at least 5 s: a reset 3 s ahead has passed when it retries.
RETRY_AHEAD_SECONDS = 3


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

    assert_a_short_rate_limit_is_retried_by_gemini(wardian)
    wardian.cli.assert_only_model_server_was_called()


def assert_a_short_rate_limit_is_retried_by_gemini(wardian: WardianCli) -> None:
    """An API key's per-minute quota, its `RetryInfo` a few seconds: Gemini retries by itself, still
    in its turn, and only its debug log says so. Wardian reports `limit_retrying` with the retry's
    time, once, and the turn goes on by itself: the agent never `error`, and Wardian types nothing."""
    server = wardian.cli.server
    reset = int(time.time()) + RETRY_AHEAD_SECONDS
    sent_at = time.time()
    prompt = f"again MOCK_LIMIT:GenerateRequestsPerMinutePerProjectPerModel:{reset} ECHO:r1"

    wardian("send", prompt, "--to", "gm", "--wait-until", "idle", "--timeout", "90s", timeout=120)

    events = wardian.watch("gm")["events"]
    retrying = [event for event in events if event["kind"] == "limit_retrying"]
    assert len(retrying) == 1, retrying
    limit = retrying[0]["limit"]
    assert (limit["kind"], limit["state"], limit["source"]) == ("rate", "retrying", "gemini-debug-log"), limit
    # Gemini waits max(5 s, the server's delay) plus up to a fifth more, after the 429 it got.
    retry_at = datetime.fromisoformat(limit["retry_at"].replace("Z", "+00:00")).timestamp()
    assert sent_at + 5 <= retry_at <= time.time() + 1, (sent_at, limit)
    assert limit["message"].startswith("Attempt 1 failed: You exceeded your current quota"), limit
    assert [event["by"] for event in events if event["kind"] == "limit_resumed"] == ["wardian", "cli"], events
    assert "error" not in [event.get("to") for event in events]
    agent = wardian("agent", "gm", "--fields", "status,status_evidence,limit")["agent"]
    assert (agent["status"], agent["status_evidence"]["event"], agent["limit"]) == ("idle", "turn_completed", None)
    tries = [request.reply_status for request in server.model_requests() if "ECHO:r1" in request.body_text()]
    assert tries == [429, 200], tries
    wardian.output_shows("gm", "MOCK-REPLY r1")
