"""The relaunch rule, every combination of persistence, global setting and session id."""

import itertools
import typing

import pytest

from wardian_core.provider_models import LaunchConfig
from wardian_core.settings import SessionsSettings
from wardian_host.agents.relaunch import GLOBAL_SETTINGS, PERSISTENCES, effective_persistence, session_mode_for

# (agent persistence, global sessions.regular, has a provider session id) -> session mode
EXPECTED = {
    ("default", "resume", True): "resume",
    ("default", "resume", False): "fresh",
    ("default", "fresh", True): "fresh",
    ("default", "fresh", False): "fresh",
    ("resume", "resume", True): "resume",
    ("resume", "resume", False): "fresh",
    ("resume", "fresh", True): "resume",
    ("resume", "fresh", False): "fresh",
    ("fresh", "resume", True): "fresh",
    ("fresh", "resume", False): "fresh",
    ("fresh", "fresh", True): "fresh",
    ("fresh", "fresh", False): "fresh",
}


def test_the_table_covers_every_combination() -> None:
    assert set(EXPECTED) == set(itertools.product(PERSISTENCES, GLOBAL_SETTINGS, (True, False)))


@pytest.mark.parametrize(("persistence", "global_regular", "has_session_id"), sorted(EXPECTED))
def test_session_mode_for(persistence: str, global_regular: str, has_session_id: bool) -> None:
    assert (
        session_mode_for(persistence, global_regular, has_session_id)
        == EXPECTED[(persistence, global_regular, has_session_id)]
    )


@pytest.mark.parametrize("global_regular", GLOBAL_SETTINGS)
def test_default_follows_the_global_setting_and_the_agents_own_choice_wins(global_regular: str) -> None:
    assert effective_persistence("default", global_regular) == global_regular
    assert effective_persistence("fresh", global_regular) == "fresh"
    assert effective_persistence("resume", global_regular) == "resume"


def test_the_rule_knows_exactly_the_values_the_models_allow() -> None:
    launch_field = LaunchConfig.model_fields["session_persistence"].annotation
    settings_field = SessionsSettings.model_fields["regular"].annotation
    assert set(typing.get_args(launch_field)) == set(PERSISTENCES)
    assert set(typing.get_args(settings_field)) == set(GLOBAL_SETTINGS)


@pytest.mark.parametrize(
    ("persistence", "global_regular"), [("always", "resume"), ("", "fresh"), ("default", "default"), ("resume", "")]
)
def test_unknown_values_are_refused_not_guessed(persistence: str, global_regular: str) -> None:
    with pytest.raises(ValueError):
        session_mode_for(persistence, global_regular, True)
