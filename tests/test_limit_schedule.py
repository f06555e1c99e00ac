"""When a limited agent is resumed (`limit_resumer.resume_time`), and the inbox's `limit` entry."""

import json

import pytest
from pydantic import ValidationError

from wardian_core.inbox import machine_entries
from wardian_core.limits import AgentLimit
from wardian_core.settings.model import LimitsSettings
from wardian_host.agents.limit_resumer import resume_time

REACHED = "2026-12-02T21:00:00.000Z"


def _limit(**fields: object) -> AgentLimit:
    return AgentLimit.model_validate(
        {"kind": "session", "state": "cut", "source": "hooks", "reached_at": REACHED} | fields
    )


def test_a_resume_comes_after_the_reset_by_a_delay_within_the_settings() -> None:
    settings = LimitsSettings(resume_delay_min_seconds=5, resume_delay_max_seconds=30)
    picked: list[tuple[float, float]] = []

    def pick(low: float, high: float) -> float:
        picked.append((low, high))
        return 12.5

    at, basis = resume_time(_limit(resets_at="2026-12-02T21:57:00.000Z"), settings, pick)
    assert (at, basis, picked) == ("2026-12-02T21:57:12.500Z", "reset", [(5, 30)])


def test_without_a_reset_time_the_resume_waits_the_unknown_reset_setting() -> None:
    at, basis = resume_time(_limit(), LimitsSettings(unknown_reset_seconds=3600), lambda low, high: 0.0)
    assert (at, basis) == ("2026-12-02T22:00:00.000Z", "unknown_reset")


def test_a_cli_retrying_by_itself_is_given_the_turn_wait_after_its_next_attempt() -> None:
    limit = _limit(state="retrying", retry_at="2026-12-02T21:00:21.000Z")
    at, basis = resume_time(limit, LimitsSettings(turn_wait_seconds=300), lambda low, high: 0.0)
    assert (at, basis) == ("2026-12-02T21:05:21.000Z", "cli_retry")


def test_delays_out_of_order_are_refused() -> None:
    with pytest.raises(ValidationError, match="above"):
        LimitsSettings(resume_delay_min_seconds=40, resume_delay_max_seconds=30)


def _agent(limit: AgentLimit | None, as_text: bool) -> dict[str, object]:
    stored = None if limit is None else (limit.model_dump_json() if as_text else json.loads(limit.model_dump_json()))
    return {"name": "night", "uuid": "u-1", "status": "idle", "last_status_at": REACHED, "limit": stored}


@pytest.mark.parametrize("as_text", [True, False], ids=["host snapshot", "stored record"])
def test_only_an_asked_or_failed_limit_needs_a_person(as_text: bool) -> None:
    def kinds(limit: AgentLimit | None) -> list[str]:
        return [entry.kind for entry in machine_entries([_agent(limit, as_text)], [], [])]

    assert kinds(None) == [] and kinds(_limit(resume="auto")) == []
    (asked,) = machine_entries([_agent(_limit(resume="ask", resets_at="2026-12-02T21:57:00.000Z"), as_text)], [], [])
    assert (asked.kind, asked.command) == ("limit", "wardian agent resume-limit night")
    assert asked.choices[0].action is not None and asked.choices[0].action.kind == "agent.resume_limit"
    (failed,) = machine_entries([_agent(_limit(resume="failed", failure="no turn started"), as_text)], [], [])
    assert "no turn started" in failed.summary
