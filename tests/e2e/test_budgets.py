"""Budgets through the real `wardian` command: a budget the agent's use reached holds it across a
host restart and a crash, `send` is refused with `budget_reached`, and `agent budget --raise`
lifts it. A minutes budget is reached by time alone, so a generic agent proves the whole path."""

from host_restarts import crash_host


def test_a_held_agent_stays_held_across_a_restart_and_a_crash_until_raised(
    run_wardian, generic_spawn_args, wait_status, wardian_home
) -> None:
    for bad, code in (("minutes", "usage"), ("tokens=1.5", "validation_failed")):
        refused = run_wardian(*generic_spawn_args("nobody", "--budget", bad, "--", "bash", "--norc"))
        assert refused.error()["code"] == code and "--budget" in refused.error()["hint"]
    spawned = run_wardian(*generic_spawn_args("shell", "--budget", "minutes=0.01", "--", "bash", "--norc"))
    assert spawned.returncode == 0, spawned.stderr
    wait_status("shell", "idle")  # a quiet bash is idle after 1.5 s: past its 0.6 s

    refused = run_wardian("send", "echo held-$((6*7))", "--to", "shell")
    assert refused.returncode == 1 and refused.error()["code"] == "budget_reached"
    assert "wardian agent budget shell --raise minutes=+60" in refused.error()["hint"]
    entries = run_wardian("inbox").json()["entries"]
    assert [entry["command"] for entry in entries if entry["kind"] == "budget"] == [
        "wardian agent budget shell --raise minutes=+60"
    ]

    assert run_wardian("host", "restart").returncode == 0
    assert run_wardian("send", "echo held", "--to", "shell").error()["code"] == "budget_reached"
    crash_host(wardian_home)
    assert run_wardian("agent", "budget", "shell").json()["held"]["reached"] == ["minutes"]  # from state.db
    assert run_wardian("host", "start").returncode == 0
    assert run_wardian("send", "echo held", "--to", "shell").error()["code"] == "budget_reached"

    raised = run_wardian("agent", "budget", "shell", "--raise", "minutes=+60").json()
    assert raised["held"] is None and raised["budget"]["minutes"] > 60 and raised["sources"] == {"minutes": "agent"}
    sent = run_wardian("send", "echo lifted-$((6*7))", "--to", "shell", "--wait-until", "idle", "--timeout", "20s")
    assert sent.returncode == 0, sent.stderr
    output = run_wardian("agent", "watch", "shell").json()["watch"]["output"]
    assert "lifted-42" in output and "held-42" not in output
    assert not [entry for entry in run_wardian("inbox").json()["entries"] if entry["kind"] == "budget"]
