"""Who a caller is: verified (its process tree confirms the agent), claimed (only its
WARDIAN_SESSION_ID names one), none (a person) — one classifier for every command."""

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from wardian_cli import output_shows

WARDIAN = str(Path(sys.executable).parent / "wardian")


def _finished(name: str, marker: str) -> None:
    """Return once the agent printed `marker`, however early. Its script may end before a watch
    starts, and `agent watch --until output:` counts only output after its call (under load it
    missed the marker and waited out its timeout), so the output is followed from the oldest kept.
    The timeout bounds a hang; it is no speed target."""
    output_shows(name, marker, timeout=120)


def test_a_process_that_escaped_its_agents_tree_is_claimed_never_a_person(spawn, wait_status, workspace: Path) -> None:
    spawn("listener", "bash", "--norc", "--noprofile")
    wait_status("listener", "idle")
    asks = (
        f"{WARDIAN} host whoami > {{0}}-whoami.json; {WARDIAN} send 'echo from-{{0}}' --to listener > {{0}}-send.json"
    )
    escaped = f'setsid -f sh -c "{asks.format("escaped")}; echo escaped-DONE"'
    agent = spawn("asker", "bash", "-c", f"{asks.format('inside')}; {escaped}; exec sleep 600")
    _finished("asker", "escaped-DONE")
    inside = json.loads((workspace / "inside-whoami.json").read_text())["caller"]
    inside_tie = "cgroup" if inside["cgroups"]["in_use"] else "ancestry"
    assert (inside["verification"], inside["tie"], inside["agent"]["uuid"]) == ("verified", inside_tie, agent["uuid"])
    outside = json.loads((workspace / "escaped-whoami.json").read_text())["caller"]
    # Where agents get cgroups of their own, leaving the tree does not leave the agent's cgroup.
    held = ("verified", "cgroup", True) if outside["cgroups"]["in_use"] else ("claimed", None, False)
    assert (outside["verification"], outside["tie"], outside["agent"]["uuid"]) == (*held[:2], agent["uuid"])
    sent_inside = json.loads((workspace / "inside-send.json").read_text())
    sent_outside = json.loads((workspace / "escaped-send.json").read_text())
    assert (sent_inside["sender"], sent_inside["sender_verified"]) == ("asker", True)
    assert (sent_outside["sender"], sent_outside["sender_verified"]) == ("asker", held[2])


def test_a_person_setting_an_agents_variable_is_claimed_and_an_unknown_one_is_nobody(
    spawn, wait_status, run_wardian
) -> None:
    agent = spawn("target", "bash", "--norc", "--noprofile")
    wait_status("target", "idle")
    claimed: dict[str, Any] = run_wardian("host", "whoami", env={"WARDIAN_SESSION_ID": agent["uuid"]}).json()
    assert claimed["caller"]["verification"] == "claimed" and claimed["caller"]["agent"]["name"] == "target"
    sent = run_wardian("send", "echo hi", "--to", "target", env={"WARDIAN_SESSION_ID": agent["uuid"]}).json()
    assert (sent["sender"], sent["sender_verified"]) == ("target", False)
    env = {key: value for key, value in os.environ.items() if key != "WARDIAN_SESSION_ID"}
    nobody = run_wardian("host", "whoami", env=env | {"WARDIAN_SESSION_ID": "not-an-agent"}).json()["caller"]
    assert (nobody["verification"], nobody["agent"], nobody["tie"]) == ("none", None, None)


def _cgroups_in_use(run_wardian) -> bool:
    return bool(run_wardian("host", "whoami").json()["caller"]["cgroups"]["in_use"])


def test_a_process_that_left_its_agents_tree_and_variable_cannot_answer_as_a_person(
    spawn, wait_status, run_wardian, workspace: Path
) -> None:
    """Issue 30.8's attack: `setsid -f env -u WARDIAN_SESSION_ID ... wardian reply` from agent B."""
    spawn("asked", "bash", "--norc", "--noprofile")
    wait_status("asked", "idle")
    if not _cgroups_in_use(run_wardian):
        pytest.skip("this system gives Wardian no cgroups: only the process tree ties a caller")
    request_id = run_wardian("ask", "asked", "a question", "--no-wait").json()["request_id"]
    forge = f"{WARDIAN} host whoami > forger-whoami.json; {WARDIAN} reply {request_id} --status done forged"
    script = f"setsid -f env -u WARDIAN_SESSION_ID sh -c '{forge} 2> forged.json; echo FORGED-DONE'; exec sleep 600"
    forger = spawn("forger", "bash", "-c", script)
    _finished("forger", "FORGED-DONE")
    caller = json.loads((workspace / "forger-whoami.json").read_text())["caller"]
    assert (caller["verification"], caller["tie"], caller["agent"]["uuid"]) == ("verified", "cgroup", forger["uuid"])
    error = json.loads((workspace / "forged.json").read_text())["error"]
    assert error["code"] == "unauthorized" and error["details"]["caller_agent"] == "forger"
    assert run_wardian("ask", "show", request_id).json()["request"]["status"] == "pending"
