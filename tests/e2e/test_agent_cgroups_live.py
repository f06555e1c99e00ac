"""Agents' cgroups on this system, when the host may make them: made at launch, gone with the agent."""

import json
from pathlib import Path

import pytest


def test_an_agents_cgroup_goes_once_its_whole_tree_is_ended(spawn, wait_status, run_wardian) -> None:
    spawn("tree", "bash", "-c", "( trap '' HUP; sleep 600 ) & echo up; exec sleep 600")
    wait_status("tree", "idle")
    cgroups = run_wardian("host", "whoami").json()["caller"]["cgroups"]
    if not cgroups["in_use"]:
        pytest.skip(f"this system gives Wardian no cgroups: {cgroups['reason']}")
    agent = run_wardian("agent", "show", "tree", "--fields", "uuid,pid").json()["agent"]
    own = Path(cgroups["folder"]) / agent["uuid"]
    held = [int(pid) for pid in (own / "cgroup.procs").read_text().split()]
    assert agent["pid"] in held and len(held) == 2  # the agent and the subshell it started
    killed = run_wardian("agent", "kill", "tree")
    assert killed.returncode == 0, killed.stderr
    assert not own.exists() and not Path(cgroups["folder"]).exists()
    assert json.loads(killed.stdout)["agent"]["status"] == "off"
