"""Who a caller is: verified (its process tree confirms the agent), claimed (only its
WARDIAN_SESSION_ID names one), none (a person) — one classifier for every command."""

import json
import os
import sys
from pathlib import Path
from typing import Any

WARDIAN = str(Path(sys.executable).parent / "wardian")


def _finished(run_wardian, name: str, marker: str) -> None:
    done = run_wardian("agent", "watch", name, "--until", f"output:{marker}", "--timeout", "60s")
    assert done.returncode == 0, done.stderr


def test_a_process_that_escaped_its_agents_tree_is_claimed_never_a_person(
    spawn, wait_status, run_wardian, workspace: Path
) -> None:
    spawn("listener", "bash", "--norc", "--noprofile")
    wait_status("listener", "idle")
    asks = (
        f"{WARDIAN} host whoami > {{0}}-whoami.json; {WARDIAN} send 'echo from-{{0}}' --to listener > {{0}}-send.json"
    )
    escaped = f'setsid -f sh -c "{asks.format("escaped")}; echo escaped-DONE"'
    agent = spawn("asker", "bash", "-c", f"{asks.format('inside')}; {escaped}; exec sleep 600")
    _finished(run_wardian, "asker", "escaped-DONE")
    inside = json.loads((workspace / "inside-whoami.json").read_text())["caller"]
    assert (inside["verification"], inside["tie"], inside["agent"]["uuid"]) == ("verified", "ancestry", agent["uuid"])
    outside = json.loads((workspace / "escaped-whoami.json").read_text())["caller"]
    assert (outside["verification"], outside["tie"], outside["agent"]["uuid"]) == ("claimed", None, agent["uuid"])
    sent_inside = json.loads((workspace / "inside-send.json").read_text())
    sent_outside = json.loads((workspace / "escaped-send.json").read_text())
    assert (sent_inside["sender"], sent_inside["sender_verified"]) == ("asker", True)
    assert (sent_outside["sender"], sent_outside["sender_verified"]) == ("asker", False)


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
