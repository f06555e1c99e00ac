"""Which turns a CLI call waited on: those need no notice that nobody looked at them."""

from wardian_host.agents.turn_waits import TurnWaits


def test_a_turn_begun_and_ended_while_a_call_waits_is_awaited_even_after_the_call_left() -> None:
    waits = TurnWaits()
    with waits.waiting():  # `send --wait-until idle`: listening before the first keystroke
        assert waits.awaited("idle", "processing")
        assert waits.awaited("processing", "action_required")
        assert waits.awaited("action_required", "processing")  # the same turn goes on
    # `ask` answered by `wardian reply` mid-turn: the call left before the turn ended.
    assert waits.awaited("processing", "idle")


def test_a_call_that_gave_up_while_idle_leaves_the_next_turn_unawaited() -> None:
    waits = TurnWaits()
    with waits.waiting():
        pass  # an `agent wait` that timed out with the agent idle
    assert not waits.awaited("idle", "processing")
    assert not waits.awaited("processing", "idle")


def test_a_call_waiting_from_mid_turn_awaits_that_turn_only() -> None:
    waits = TurnWaits()
    waits.awaited("idle", "processing")
    with waits.waiting():  # `agent wait --until idle` while the agent works
        assert waits.awaited("processing", "idle")
    assert not waits.awaited("idle", "processing") and not waits.awaited("processing", "idle")
