"""A usage limit on an in-process host (issue 50's host side): the limit on the record, listed by
`agent list --limited` and carried by `agent wait`'s answer; the resume after the reset with the
provider's keys and text, confirmed by the turn it starts; `limits.resume = "ask"` in the inbox;
a fleet resumed at most `limits.resume_concurrency` at a time.

The example provider's stand-in CLI plays the limit (`limit SECONDS`: its hooks log the limit,
its screen a menu that takes the next key): it proves Wardian's plumbing, not a real CLI's."""

import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from in_process_agents import WAIT_SECONDS, read_state, spawn_params, wait_until

from wardian_core.db.events import list_events
from wardian_core.notices import Notice
from wardian_host.agents.limit_continuing import wait_for_event
from wardian_host.agents.limits import limit_of
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.agents.status_waits import wait_for_status
from wardian_host.daemon.inbox_handlers import inbox_of
from wardian_host.testing.in_process import InProcessHost

sys.path.insert(0, str(Path(__file__).parent / "example_provider"))
pytest_plugins = ["wardian_test_packages"]

LIMIT_STEPS = ("limit_reached", "limit_resume_scheduled", "limit_resume_started", "limit_resumed")


def limits_settings(home: Path, **values: Any) -> None:
    """settings.toml's `[limits]` (read by the host at each use): a resume soon after the reset."""
    values = {"resume_delay_min_seconds": 0.0, "resume_delay_max_seconds": 0.3} | values
    lines = [f"{key} = {json.dumps(value)}" for key, value in values.items()]
    (home / "settings.toml").write_text("[limits]\n" + "\n".join(lines) + "\n", encoding="utf-8")


def example_agents(host: InProcessHost, workspace: Path, *names: str) -> list[LiveAgent]:
    async def spawned() -> None:
        for name in names:
            await host.host.lifecycle.spawn(spawn_params(workspace, name).model_copy(update={"provider": "example"}))

    host.call(spawned())
    for name in names:
        wait_until(host, name, "idle")
    return [host.host.registry.resolve(name) for name in names]


async def limited(host: InProcessHost, agent: LiveAgent, seconds: float) -> dict[str, Any]:
    """Its CLI hits a limit resetting `seconds` from now; the agent once the limit cut its turn."""
    waited = asyncio.ensure_future(wait_for_status(agent, "idle", WAIT_SECONDS, True))
    await asyncio.sleep(0)  # listening before the line is typed
    delivered = await host.host.sender.deliver(agent, f"limit {seconds:g}", None, True)
    assert delivered["result"] == "delivered", delivered
    return (await waited).wire()


async def logged(agent: LiveAgent, kind: str, timeout: float = WAIT_SECONDS) -> dict[str, Any]:  # noqa: ASYNC109
    """The agent's first logged event of `kind`, awaited."""

    def found() -> dict[str, Any] | None:
        return next((entry for entry in agent.event_log if entry["kind"] == kind), None)

    arrived = found() is not None or await wait_for_event(agent, lambda: found() is not None, timeout)
    assert arrived, (kind, list(agent.event_log))
    entry = found()
    assert entry is not None
    return entry


async def on_screen(agent: LiveAgent, text: str) -> str:
    """The agent's screen once it shows `text`, looked at again after each output (awaited)."""
    printed = asyncio.Event()

    def on_output(_: int, __: bytes) -> None:
        printed.set()

    agent.output_listeners.add(on_output)
    try:
        async with asyncio.timeout(WAIT_SECONDS):
            while text not in (screen := "\n".join((await agent.screen.snapshot()).rows)):
                await printed.wait()
                printed.clear()
        return screen
    finally:
        agent.output_listeners.discard(on_output)


def stored_steps(home: Path, agent: LiveAgent) -> list[dict[str, Any]]:
    events = read_state(home, lambda conn: list_events(conn, agent.uuid))
    return [event for event in events if event["kind"].startswith("limit_")]


def wardian(host: InProcessHost, run_wardian: Callable[..., Any], *args: str) -> Any:
    """The real command against the in-process host, which serves meanwhile."""
    return host.call(asyncio.to_thread(run_wardian, *args))


def test_a_limit_is_on_the_record_listed_with_limited_and_carried_by_the_wait_answer(
    example_host: InProcessHost, tmp_path: Path, wardian_home: Path, run_wardian: Callable[..., Any]
) -> None:
    cut, _ = example_agents(example_host, tmp_path, "cut", "free")
    snapshot = example_host.call(limited(example_host, cut, 600))  # resets in 10 minutes: no resume here

    assert snapshot["status"] == "idle" and snapshot["status_evidence"]["event"] == "limit_reached"
    limit = json.loads(snapshot["limit"])  # on the record before the status that woke the wait
    assert (limit["kind"], limit["state"], limit["source"], limit["resume"]) == ("session", "cut", "hooks", "auto")
    stored = read_state(
        wardian_home, lambda conn: conn.execute('SELECT "limit" FROM agents WHERE name = ?', ("cut",)).fetchone()[0]
    )
    assert json.loads(stored)["resets_at"] == limit["resets_at"]

    listed = wardian(example_host, run_wardian, "agent", "list", "--limited")
    assert listed.returncode == 0, listed.stderr
    agents = listed.json()["agents"]
    assert [agent["name"] for agent in agents] == ["cut"]
    assert agents[0]["limit"]["resets_at"] == limit["resets_at"] and agents[0]["limit"]["resume_at"]

    waited = wardian(example_host, run_wardian, "agent", "wait", "cut", "--until", "idle").json()
    assert waited["idle_reason"] == "limit"
    assert (waited["agent"]["status"], waited["agent"]["limit"]["kind"]) == ("idle", "session")
    plain = wardian(example_host, run_wardian, "agent", "wait", "free", "--until", "idle").json()
    assert "idle_reason" not in plain and "limit" not in plain["agent"]
    assert [step["kind"] for step in stored_steps(wardian_home, cut)] == ["limit_reached", "limit_resume_scheduled"]


def test_after_the_reset_wardian_types_the_providers_keys_then_its_text_and_the_turn_resumes(
    example_host: InProcessHost, tmp_path: Path, wardian_home: Path
) -> None:
    limits_settings(wardian_home)
    (agent,) = example_agents(example_host, tmp_path, "sleeper")
    notices: list[Notice] = []
    example_host.host.notices.subscribe(notices.append)

    example_host.call(limited(example_host, agent, 1))
    resumed = example_host.call(logged(agent, "limit_resumed"))

    assert resumed["by"] == "wardian" and resumed["attempts"] == 1
    assert limit_of(agent) is None and agent.snapshot()["limit"] is None
    screen = example_host.call(on_screen(agent, "you said: continue"))
    # Escape left the CLI's menu without taking its offer; `continue` then started a turn.
    assert "menu closed" in screen and "you said: continue" in screen and "offer taken" not in screen
    steps = stored_steps(wardian_home, agent)
    assert [step["kind"] for step in steps] == list(LIMIT_STEPS)
    scheduled, started = steps[1]["payload"], steps[2]["payload"]
    assert scheduled["basis"] == "reset" and started["how"] == "text"
    assert steps[2]["timestamp"] >= scheduled["resume_at"]  # not before the reset and its delay
    assert [notice.kind for notice in notices if notice.kind == "limit"] == ["limit"] * 3  # reached, scheduled, resumed
    assert "resumed" in notices[-1].title


def test_ask_puts_the_agent_in_the_inbox_and_resume_limit_continues_it(
    example_host: InProcessHost, tmp_path: Path, wardian_home: Path, run_wardian: Callable[..., Any]
) -> None:
    limits_settings(wardian_home, resume="ask")
    (agent,) = example_agents(example_host, tmp_path, "asker")
    example_host.call(limited(example_host, agent, 1))
    asked = example_host.call(logged(agent, "limit_resume_asked"))
    assert asked["command"] == "wardian agent resume-limit asker"

    host = example_host.host
    entries = inbox_of(host.registry, host._conn, host.notices, False).entries
    assert [(entry.kind, entry.agent, entry.command) for entry in entries] == [
        ("limit", "asker", "wardian agent resume-limit asker")
    ]
    assert all(entry["kind"] != "limit_resume_started" for entry in agent.event_log)  # nothing typed unasked

    answered = wardian(example_host, run_wardian, "agent", "resume-limit", "asker")
    assert answered.returncode == 0, answered.stderr
    assert answered.json()["resumed"] is True
    assert example_host.call(logged(agent, "limit_resumed"))["by"] == "wardian"
    assert inbox_of(host.registry, host._conn, host.notices, False).entries == []
    again = wardian(example_host, run_wardian, "agent", "resume-limit", "asker")
    assert again.returncode == 1 and json.loads(again.stderr)["error"]["code"] == "not_limited"


def _most_at_once(intervals: list[tuple[str, str]]) -> int:
    """The most intervals open at one moment; one ending when another starts does not overlap it."""
    marks = sorted([(start, 1) for start, _ in intervals] + [(end, -1) for _, end in intervals])
    most = under_way = 0
    for _, change in marks:
        under_way += change
        most = max(most, under_way)
    return most


def test_twenty_agents_limited_together_resume_once_each_at_most_the_concurrency_at_a_time(
    example_host: InProcessHost, tmp_path: Path, wardian_home: Path
) -> None:
    limits_settings(wardian_home, resume_concurrency=3, resume_delay_max_seconds=1.0)
    agents = example_agents(example_host, tmp_path, *(f"fleet-{number:02d}" for number in range(20)))

    async def all_limited_then_resumed() -> None:
        await asyncio.gather(*(limited(example_host, agent, 2) for agent in agents))
        await asyncio.gather(*(logged(agent, "limit_resumed", 120) for agent in agents))

    example_host.call(all_limited_then_resumed())

    intervals = []
    for agent in agents:
        steps = stored_steps(wardian_home, agent)
        kinds = [step["kind"] for step in steps]
        assert kinds == list(LIMIT_STEPS), (agent.name, kinds)  # each resumed once, none failed
        intervals.append((steps[2]["timestamp"], steps[3]["timestamp"]))
    assert _most_at_once(intervals) <= 3, sorted(intervals)


async def retrying(host: InProcessHost, agent: LiveAgent, line: str) -> dict[str, Any]:
    """Its CLI hits a limit it retries by itself (`line`: the stand-in's `retrying …`); the step."""
    delivered = await host.host.sender.deliver(agent, line, None, True)
    assert delivered["result"] == "delivered", delivered
    return await logged(agent, "limit_retrying")


def test_a_cli_retrying_by_itself_is_watched_and_its_retry_recorded(
    example_host: InProcessHost, tmp_path: Path, wardian_home: Path
) -> None:
    limits_settings(wardian_home, turn_wait_seconds=1.0)
    retried, stuck = example_agents(example_host, tmp_path, "retried", "stuck")

    step = example_host.call(retrying(example_host, retried, "retrying 1"))
    assert (step["limit"]["state"], step["limit"]["kind"]) == ("retrying", "rate")
    resumed = example_host.call(logged(retried, "limit_resumed"))
    assert resumed["by"] == "cli" and limit_of(retried) is None
    assert all(entry["kind"] != "limit_resume_started" for entry in retried.event_log)  # nothing typed

    example_host.call(retrying(example_host, stuck, "retrying 1 never"))
    assert stuck.status == "processing"  # still in its turn
    failed = example_host.call(logged(stuck, "limit_resume_failed"))
    assert "retry started no turn" in failed["reason"]
    limit = limit_of(stuck)
    assert limit is not None and limit.resume == "failed"
    host = example_host.host
    entries = inbox_of(host.registry, host._conn, host.notices, False).entries
    assert [(entry.kind, entry.agent) for entry in entries] == [("limit", "stuck")]


def test_a_provider_that_resumes_by_relaunch_gets_its_session_back_then_the_text(
    example_host: InProcessHost, tmp_path: Path, wardian_home: Path
) -> None:
    limits_settings(wardian_home)
    params = spawn_params(tmp_path, "relaunched", settings={"limit_resume": "resume"})
    example_host.call(example_host.host.lifecycle.spawn(params.model_copy(update={"provider": "example"})))
    wait_until(example_host, "relaunched", "idle")
    agent = example_host.host.registry.resolve("relaunched")
    first_pid = agent.row["pid"]

    example_host.call(limited(example_host, agent, 1))
    resumed = example_host.call(logged(agent, "limit_resumed", 60))

    assert resumed["by"] == "wardian" and agent.row["pid"] != first_pid  # a new process took the turn on
    started = next(entry for entry in agent.event_log if entry["kind"] == "limit_resume_started")
    assert started["how"] == "resume"
    assert not any(entry["kind"] == "limit_cleared" for entry in agent.event_log)  # its relaunch is no end
