"""Claude Code itself at a usage limit, driven through `wardian`, against the loopback model
server answering as Anthropic does (`MOCK_LIMIT`: 429 with the unified rate-limit headers),
signed in as a claude.ai plan user (`CLAUDE_CODE_OAUTH_TOKEN`) and with an API key."""

import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import pytest

pytestmark = pytest.mark.real_cli

WAIT = "60s"
OAUTH_TOKEN = "sk-ant-oat01-mock-0123456789abcdefghijklmnop"


def spawn(wardian: Callable, claude_cli: Any, name: str, signed_in: bool) -> None:
    """A Claude agent, idle; `signed_in`: as a plan user (its OAuth token), else its API key."""
    env = {**claude_cli.env, "WARDIAN_CLAUDE_EXECUTABLE": str(claude_cli.executable)}
    env.pop("HOME", None)
    if signed_in:
        env.pop("ANTHROPIC_API_KEY")
        env["CLAUDE_CODE_OAUTH_TOKEN"] = OAUTH_TOKEN
    spawn_args = ("agent", "spawn", "--provider", "claude", "--class", "Coder", "--name", name)
    wardian(*spawn_args, "--workspace", str(claude_cli.workspace), env=env).json()
    wardian("agent", "wait", name, "--until", "idle", "--timeout", WAIT).json()


def limited_turn(wardian: Callable, name: str, resets_at: int, token: str) -> dict[str, Any]:
    """Send a prompt the model server refuses with a plan's session limit until `resets_at`."""
    prompt = f"go on MOCK_LIMIT:five_hour:{resets_at} ECHO:{token}"
    return wardian("send", prompt, "--to", name, "--wait-until", "idle", "--timeout", WAIT).json()


def evidence(wardian: Callable, name: str) -> dict[str, Any]:
    return wardian("agent", name, "--fields", "status,status_evidence").json()["agent"]


def events_of(wardian: Callable, name: str) -> list[dict[str, Any]]:
    return wardian("agent", "watch", name).json()["watch"]["events"]


def limits_reached(wardian: Callable, name: str) -> list[dict[str, Any]]:
    """The limits the host recorded for the agent (`limit_reached` steps), oldest first."""
    return [event["limit"] for event in events_of(wardian, name) if event["kind"] == "limit_reached"]


def iso(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def plan_limited(wardian: Callable, claude_cli: Any, seconds_ahead: int, token: str) -> int:
    """A signed-in (claude.ai plan) agent `cc` whose turn hit the plan's session limit, resetting
    `seconds_ahead` from now; that reset, in epoch seconds."""
    spawn(wardian, claude_cli, "cc", signed_in=True)
    reset = int(time.time()) + seconds_ahead
    limited_turn(wardian, "cc", reset, token)
    return reset


def pinned_version(request: pytest.FixtureRequest) -> str:
    return str(request.node.callspec.params["claude_cli"].version)


def test_an_api_keys_limit_far_ahead_rests_the_agent_without_a_reset(wardian: Callable, claude_cli: Any) -> None:
    spawn(wardian, claude_cli, "cc", signed_in=False)

    limited_turn(wardian, "cc", int(time.time()) + 7200, "key1")

    rested = evidence(wardian, "cc")
    assert (rested["status"], rested["status_evidence"]["event"]) == ("idle", "limit_reached"), rested
    assert (rested["status_evidence"]["source"], rested["status_evidence"]["rule"]) == (
        "claude-hooks",
        "hook StopFailure",
    )
    [limit] = limits_reached(wardian, "cc")
    assert (limit["kind"], limit["resets_at"]) == ("rate", None)
    assert limit["message"].startswith("API Error: Request rejected (429)")


def a_plan_limit_a_few_seconds_ahead_is_continued_once_it_reset(
    wardian: Callable, claude_cli: Any, request: pytest.FixtureRequest
) -> None:
    plan_limited(wardian, claude_cli, 5, "soon1")

    assert evidence(wardian, "cc")["status_evidence"]["event"] == "limit_reached"
    # 2.1.197 waits behind its menu ("1. Stop and wait / 2. Upgrade your plan"): Wardian leaves it
    # with Esc and types `continue`. 2.1.332 continues by itself about a minute after the reset
    # ("Usage limit reset · Continuing automatically"): Wardian waits for it, typing nothing.
    answered = claude_cli.server.wait_for(lambda request: request.reply_kind == "text", timeout=180)
    wardian("agent", "wait", "cc", "--until", "idle", "--timeout", WAIT).json()
    [resumed] = [event for event in events_of(wardian, "cc") if event["kind"] == "limit_resumed"]
    assert resumed["by"] == ("wardian" if pinned_version(request) == "2.1.197" else "cli"), resumed
    assert "MOCK_LIMIT" in answered[0].body_text()  # the cut turn's conversation, continued
    assert evidence(wardian, "cc")["status_evidence"]["event"] == "turn_completed"


def a_plan_limit_rests_the_agent_with_the_reset_the_server_gave(
    wardian: Callable, claude_cli: Any, request: pytest.FixtureRequest
) -> None:
    """The agent `cc`, idle after its turns; the limits it reached before are left aside."""
    earlier = len(limits_reached(wardian, "cc"))
    reset = int(time.time()) + 7200
    limited_turn(wardian, "cc", reset, "plan1")

    rested = evidence(wardian, "cc")
    assert (rested["status"], rested["status_evidence"]["event"]) == ("idle", "limit_reached"), rested
    assert rested["status_evidence"]["source"] == "claude-transcript"
    first, *more = limits_reached(wardian, "cc")[earlier:]
    assert first["kind"] == "session" and first["message"].startswith("You've hit your")
    if pinned_version(request) == "2.1.197":  # its words alone, "resets 5:23am (UTC)": that minute's end
        assert first["resets_at"] == iso(reset - reset % 60 + 60)
        assert more == []
    else:  # 2.1.332's transcript keeps the second, and it continues by itself at the reset
        assert first["resets_at"] == iso(reset)
        assert [(later["retry_at"], later["rule"]) for later in more] == [(iso(reset), "transcript auto-continue")]
    assert "error" not in [event.get("to") for event in events_of(wardian, "cc")]


def test_a_plan_limit_a_few_seconds_ahead_is_continued_then_one_far_ahead_rests_the_agent_with_its_reset(
    wardian: Callable, claude_cli: Any, request: pytest.FixtureRequest
) -> None:
    """One signed-in agent (a Claude start saved): the limit that resets in seconds first, since
    the agent takes turns again after it; then the one two hours ahead, which rests it."""
    a_plan_limit_a_few_seconds_ahead_is_continued_once_it_reset(wardian, claude_cli, request)
    a_plan_limit_rests_the_agent_with_the_reset_the_server_gave(wardian, claude_cli, request)
    claude_cli.assert_only_model_server_was_called()
