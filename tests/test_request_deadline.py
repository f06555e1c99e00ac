"""The deadline a request carries: the host refuses to start one its client stopped waiting for."""

import math
import time

import pytest

from wardian_core.control.deadline import refuse_if_late
from wardian_core.control.protocol import deadline_after
from wardian_core.errors import WardianError


def test_a_request_within_its_deadline_or_without_one_goes_ahead() -> None:
    refuse_if_late("agent.kill", None)
    refuse_if_late("agent.kill", deadline_after(60))
    assert deadline_after(None) is None


def test_a_request_past_its_deadline_is_refused_as_a_timeout() -> None:
    with pytest.raises(WardianError) as caught:
        refuse_if_late("agent.kill", time.time() - 5)
    error = caught.value
    assert error.code == "control_endpoint_timeout" and "not started" in error.message
    assert error.hint and error.details["kind"] == "agent.kill"


@pytest.mark.parametrize(
    "deadline",
    [
        "soon",
        True,
        math.inf,
        math.nan,
        [1],
        pytest.param(10**400, id="10**400"),
        pytest.param(-(10**400), id="-10**400"),
    ],
)
def test_a_deadline_that_is_not_a_time_is_bad_request(deadline: object) -> None:
    with pytest.raises(WardianError) as caught:
        refuse_if_late("agent.kill", deadline)
    assert caught.value.code == "bad_request" and caught.value.hint
