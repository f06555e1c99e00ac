"""The lifecycle operations on the in-process host (`running_host`): a failure names the
`AgentLifecycle` function that broke. The same paths through `wardian` are in tests/e2e."""

import asyncio
from pathlib import Path
from typing import Any

import psutil
import pytest
from in_process_agents import spawn, spawn_params, stored_agents, wait_until
from living_processes import carrying

from wardian_core import paths
from wardian_core.errors import WardianError
from wardian_host.testing.in_process import InProcessHost


def test_kill_ends_the_process_and_records_off_with_the_hosts_reason(
    running_host: InProcessHost, tmp_path: Path
) -> None:
    spawned = spawn(running_host, tmp_path, "sleeper", "sleep", "600")
    process = psutil.Process(spawned["pid"])

    killed = running_host.call(running_host.host.lifecycle.stop("sleeper", "kill")).wire()

    assert (killed["status"], killed["status_evidence"]["rule"]) == ("off", "kill")
    assert not process.is_running()
    stored = stored_agents(running_host.host.home)[spawned["uuid"]]
    assert (stored["status"], stored["pid"]) == ("off", None)


def test_an_unexpected_exit_is_error_with_the_code_and_the_last_output(
    running_host: InProcessHost, tmp_path: Path
) -> None:
    spawn(running_host, tmp_path, "crash", "sh", "-c", "echo boom-$((40+2)); exit 3")

    crashed = wait_until(running_host, "crash", "error")

    evidence = crashed["status_evidence"]
    assert (evidence["event"], evidence["rule"], evidence["exit_code"]) == ("exit", "unexpected exit", 3)
    assert "boom-42" in evidence["output_tail"]


def test_pause_then_resume_relaunches_the_same_agent_in_a_new_process(
    running_host: InProcessHost, tmp_path: Path
) -> None:
    spawned = spawn(running_host, tmp_path, "napper", "sleep", "600")
    lifecycle = running_host.host.lifecycle

    paused = running_host.call(lifecycle.stop("napper", "pause")).wire()
    resumed = running_host.call(lifecycle.resume("napper")).wire()

    assert (paused["status"], paused["pid"]) == ("off", None)
    assert resumed["uuid"] == spawned["uuid"] and resumed["status"] == "starting"
    assert resumed["pid"] != spawned["pid"] and psutil.Process(resumed["pid"]).is_running()
    assert resumed["status_evidence"]["action"] == "resume"


def test_a_spawn_whose_command_is_missing_leaves_nothing_behind(running_host: InProcessHost, tmp_path: Path) -> None:
    home = running_host.host.home

    with pytest.raises(WardianError) as refused:
        spawn(running_host, tmp_path, "ghost", "no-such-command-anywhere")

    assert refused.value.code == "request_failed"
    assert refused.value.details["executable"] == "no-such-command-anywhere"
    assert running_host.host.registry.all() == [] and stored_agents(home) == {}
    assert list(paths.agents_dir(home).iterdir()) == []


def test_a_stopping_host_launches_nothing_and_keeps_no_half_made_agent(
    running_host: InProcessHost, tmp_path: Path
) -> None:
    running_host.host.lifecycle.stop_launching()

    with pytest.raises(WardianError) as refused:
        spawn(running_host, tmp_path, "late", "sleep", "600")

    assert refused.value.code == "host_stopping"
    assert running_host.host.registry.all() == [] and stored_agents(running_host.host.home) == {}


def test_a_launch_under_way_when_the_host_stops_is_ended_with_the_rest(
    running_host: InProcessHost, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    host = running_host.host
    lifecycle, owner = host.lifecycle, host.terminals.owner
    opened, stop_decided = asyncio.Event(), asyncio.Event()
    real_open, real_stop_launching = owner.open, lifecycle.stop_launching

    async def open_held_until_the_stop(*args: Any, **kwargs: Any) -> tuple[int, int]:
        launched = await real_open(*args, **kwargs)  # the agent's process runs
        opened.set()
        await stop_decided.wait()  # its answer reaches the host only once the host is stopping
        return launched

    def stop_launching() -> None:
        real_stop_launching()
        stop_decided.set()

    monkeypatch.setattr(owner, "open", open_held_until_the_stop)
    monkeypatch.setattr(lifecycle, "stop_launching", stop_launching)

    async def race() -> dict[str, Any]:
        spawning = asyncio.ensure_future(lifecycle.spawn(spawn_params(tmp_path, "late", "sleep", "600")))
        await opened.wait()
        await lifecycle.stop_all()
        return (await spawning).wire()

    spawned = running_host.call(race())

    assert carrying(spawned["uuid"]) == [], "the agent launched as the host stopped outlived the stop"
    assert stored_agents(host.home)[spawned["uuid"]]["status"] == "off"
