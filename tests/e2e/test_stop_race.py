"""Spawns racing `wardian host stop`, through the real `wardian` (issue 46): once the host is
stopping no launch outlives it. Each round starts seven spawns of an agent only SIGKILL ends and
stops the host as the first reaches it, when the others are under way: the race that once left
one running with state.db saying `idle`. benchmarks/stop_race.py runs 20 rounds for the figure."""

import pytest
from stop_race import race_round

ROUNDS = 3


@pytest.mark.parametrize("round_number", range(1, ROUNDS + 1))
def test_no_agent_launched_while_the_host_stops_outlives_it(round_number: int) -> None:
    outcome = race_round(spawns=7, delay=0, after_first=True)

    assert outcome.stop_exit == 0
    assert not outcome.new_host, f"round {round_number}: a spawn started a host while or after it stopped"
    assert outcome.left == [], f"round {round_number}: processes outlived `host stop`"
    assert outcome.not_off == {}, f"round {round_number}: state.db calls agents not off"
    assert set(outcome.answers) <= {"spawned", "host_stopping"}, outcome.answers
