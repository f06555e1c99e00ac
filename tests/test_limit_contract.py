"""The provider contract's usage limits (issue 50): the events that carry a limit, the status
they lead to, and the hook that says how a CLI continues once the limit reset."""

import pytest
from pydantic import ValidationError

from wardian_core.parsing.usage import limit_event
from wardian_core.provider_models import PTY_SOURCE, Evidence, LimitResume, ProviderEvent
from wardian_core.status_rules import next_status
from wardian_host.providers.manager import _default_answer


def test_a_limit_event_carries_its_limit_and_no_other_event_may() -> None:
    reached = limit_event("limit_reached", PTY_SOURCE, "limit banner", "resets 9:57pm", kind="session")
    assert reached.limit is not None and reached.limit.kind == "session" and reached.limit.resets_at is None

    evidence = Evidence(source="pty", rule="r")
    with pytest.raises(ValidationError, match="carry a limit"):
        ProviderEvent(kind="limit_reached", evidence=evidence)
    with pytest.raises(ValidationError, match="carry a limit"):
        ProviderEvent(kind="turn_completed", evidence=evidence, limit=reached.limit)
    with pytest.raises(ValidationError):
        limit_event("limit_reached", PTY_SOURCE, "r", "l", kind="monthly")  # not a kind a CLI names


def test_a_cut_turn_rests_and_a_cli_retrying_by_itself_stays_in_its_turn() -> None:
    assert next_status("processing", "limit_reached") == "idle"
    assert next_status("processing", "limit_retrying") is None


def test_left_out_the_hook_types_continue_and_a_typed_resume_needs_its_text() -> None:
    assert _default_answer("limit_resume") == LimitResume(how="text", keys=[], text="continue")
    assert LimitResume(how="wait", text=None).text is None
    with pytest.raises(ValidationError, match="types a text"):
        LimitResume(how="resume", text=None)
