"""`wardian --remote`, `name@remote` and `agent list --remote all` against a real sshd and a
second home of another local user (tests/support/ssh_machine.py)."""

import json
import os
import shlex
import signal
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from pty_reading import read_until
from ptyprocess import PtyProcess
from ssh_machine import WARDIAN, Machine, free_port

from wardian_core.errors import WardianError
from wardian_host.remote import protocol, ssh
from wardian_host.remote.dispatch import dispatch

ANSWERING = [sys.executable, "-m", "wardian_host.testing.answering_agent"]
REMOTE_PROTOCOL = protocol.PROTOCOL  # the remote machine's, before a test patches this one's


# sh's prompt: an agent running sh is idle when it shows, with no quiet time waited.
SH_PROMPT = ("--provider-setting", "prompt_pattern=\\$ $")


def spawned(
    run_wardian: Any, machine: Machine, name: str, *command: str, options: tuple[str, ...] = ()
) -> dict[str, Any]:
    workspace = str(machine.home.parent)
    args = ["--class", "Coder", "--name", name, "--workspace", workspace, *options, "--", *command]
    result = run_wardian("--remote", "devbox", "agent", "spawn", "--provider", "generic", *args)
    assert result.returncode == 0, result.stderr
    agent: dict[str, Any] = result.json()["agent"]
    return agent


def test_commands_run_on_the_remote_with_its_json_errors_and_exit_codes(devbox: Machine, run_wardian: Any) -> None:
    agent = spawned(run_wardian, devbox, "bob", "sh", options=SH_PROMPT)

    waited = run_wardian("agent", "wait", "bob@devbox", "--until", "idle", "--timeout", "30s")
    shown = run_wardian("agent", "show", "bob@devbox", "--fields", "name,uuid,workspace")
    missing = run_wardian("agent", "show", "nobody@devbox")
    here = run_wardian("agent", "show", "bob")

    assert waited.returncode == 0, waited.stderr
    assert shown.json()["agent"] == {"name": "bob", "uuid": agent["uuid"], "workspace": str(devbox.home.parent)}
    assert missing.returncode == 2 and missing.error()["code"] == "not_found"
    assert missing.error()["details"]["requested"] == "nobody"
    assert here.returncode != 0  # bob lives on devbox only: the local home never heard of it
    sent = run_wardian("send", "echo over-ssh", "--to", "bob@devbox", "--wait-until", "idle", "--timeout", "30s")
    assert sent.returncode == 0, sent.stderr
    screen = run_wardian("--remote", "devbox", "agent", "screen", "bob")
    assert "over-ssh" in screen.stdout.replace("echo over-ssh", "")


def test_list_remote_all_merges_machines_and_names_the_unreachable(
    devbox: Machine, run_wardian: Any, wardian_home: Path
) -> None:
    spawned(run_wardian, devbox, "far", "sh")
    dead = devbox.settings_table("gone").replace(f"port = {devbox.port}", f"port = {free_port()}")
    with (wardian_home / "settings.toml").open("a") as settings:
        settings.write(dead)

    listed = run_wardian("agent", "list", "--remote", "all", "--fields", "name")

    assert listed.returncode == 0, listed.stderr
    answer = listed.json()
    assert {"machine": "devbox", "name": "far"} in answer["agents"]
    machines = {machine["machine"]: machine for machine in answer["machines"]}
    assert set(machines) == {"local", "devbox", "gone"}
    on_devbox = [row for row in answer["agents"] if row["machine"] == "devbox"]
    assert machines["devbox"]["reachable"] and machines["devbox"]["agents"] == len(on_devbox)
    assert not machines["gone"]["reachable"] and machines["gone"]["error"]["code"] == "remote_unreachable"
    alone = run_wardian("--remote", "gone", "agent", "list")
    assert alone.returncode == 8 and alone.error()["details"]["remote"] == "gone"


def test_an_ask_crosses_machines_and_the_reply_comes_back(devbox: Machine, run_wardian: Any) -> None:
    spawned(run_wardian, devbox, "ans", *ANSWERING)
    run_wardian("agent", "wait", "ans@devbox", "--until", "idle", "--timeout", "30s")

    asked = run_wardian("ask", "ans@devbox", "what is six times seven?", "--timeout", "30s")

    assert asked.returncode == 0, asked.stderr
    answer = asked.json()
    assert (answer["status"], answer["reply"]["body"]) == ("done", "answered: what is six times seven?")
    stored = run_wardian("--remote", "devbox", "ask", "show", answer["request_id"]).json()["request"]
    # A person asked from another machine: named by that machine's claim, never verified.
    assert stored["status"] == "done" and stored["asker"] is None
    assert (stored["asker_machine"], stored["asker_verified"]) == (socket.gethostname(), False)


def _remote_runners(user: str) -> list[int]:
    """The remote user's `wardian remote-run` processes still alive."""
    uid = int(subprocess.run(["id", "-u", user], capture_output=True, text=True, check=True).stdout)
    found = []
    for entry in Path("/proc").iterdir():
        try:
            mine = entry.name.isdigit() and entry.stat().st_uid == uid
            if mine and b"remote-run" in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def _session_sshds(server_pid: int) -> list[int]:
    """The sshd processes serving connections (privileged and unprivileged halves), not the
    commands they run: killing them is the link dying."""
    found, pending = [], [server_pid]
    while pending:
        pid = pending.pop()
        children = [int(child) for child in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
        sshds = [child for child in children if Path(f"/proc/{child}/comm").read_text().strip() == "sshd"]
        found += sshds
        pending += sshds
    return found


def test_a_killed_link_mid_wait_is_a_clear_error_and_leaves_nothing(devbox: Machine, wardian_home: Path) -> None:
    spawned_env = {**os.environ}
    spawn = [WARDIAN, "--remote", "devbox", "agent", "spawn", "--provider", "generic", "--name", "w", "--class", "C"]
    run = subprocess.run(
        [*spawn, "--workspace", str(devbox.home.parent), "--", "sh"],
        capture_output=True,
        text=True,
        env=spawned_env,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    waiting = subprocess.Popen(
        [WARDIAN, "agent", "wait", "w@devbox", "--until", "error", "--timeout", "5m"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _await(lambda: bool(_remote_runners(devbox.user)), "the remote wait to start")

    try:
        for pid in _session_sshds(devbox.server.pid):
            os.kill(pid, signal.SIGKILL)  # the connection's sshd processes: the link is gone
        _, stderr = waiting.communicate(timeout=60)
    finally:
        waiting.kill()

    assert waiting.returncode == 8
    error = json.loads(stderr)["error"]
    assert error["code"] == "remote_unreachable" and error["details"]["remote"] == "devbox"
    _await(lambda: not _remote_runners(devbox.user), "the remote wait to end")


def _await(condition: Any, what: str) -> None:
    """Polls /proc: a process's start or end on another user's side sends this test no event."""
    for _ in range(1500):
        if condition():
            return
        subprocess.run(["sleep", "0.02"], check=True)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.mark.parametrize(("here", "older"), [(protocol.PROTOCOL + 1, "older"), (protocol.PROTOCOL - 1, "newer")])
def test_a_version_mismatch_names_the_remote_and_the_fix(
    devbox: Machine, monkeypatch: pytest.MonkeyPatch, here: int, older: str
) -> None:
    monkeypatch.setattr(ssh, "PROTOCOL", here)
    monkeypatch.setattr(protocol, "PROTOCOL", here)

    with pytest.raises(WardianError) as raised:
        dispatch(["--remote", "devbox", "agent", "list"], lambda args: pytest.fail("ran here"))

    error = raised.value
    assert error.code == "protocol_mismatch" and error.details["remote"] == "devbox"
    assert f"runs an {older} Wardian" in error.message or f"runs a {older} Wardian" in error.message
    assert "pip install --upgrade" in (error.hint or "")
    assert error.details["remote_protocol"] == REMOTE_PROTOCOL


def test_a_stale_control_master_is_a_clear_error_not_a_hang(
    devbox: Machine, run_wardian: Any, wardian_home: Path, tmp_path: Path
) -> None:
    control = tmp_path / "master.sock"
    with socket.socket(socket.AF_UNIX) as hung:  # accepts (the kernel's backlog), never answers
        hung.bind(str(control))
        hung.listen()
        with (wardian_home / "settings.toml").open("a") as settings:
            settings.write(f'options = ["ControlMaster=auto", "ControlPath={control}"]\n')

        listed = run_wardian("--remote", "devbox", "agent", "list")

    assert listed.returncode == 8
    error = listed.error()
    assert error["code"] == "remote_unreachable" and "ControlMaster" in error["message"]
    assert error["details"]["control_path"] == str(control) and "ssh -O exit" in error["hint"]


def test_attach_through_ssh_gets_a_real_terminal_on_the_remote(devbox: Machine, run_wardian: Any) -> None:
    spawned(run_wardian, devbox, "seat", "bash", "--norc")
    run_wardian("agent", "wait", "seat@devbox", "--until", "idle", "--timeout", "30s")

    client = PtyProcess.spawn([WARDIAN, "agent", "attach", "seat@devbox"], env=dict(os.environ), dimensions=(30, 100))
    try:
        read_until(client, b"bash-")  # attached: the remote agent's screen was replayed
        client.write(b"echo typed-$((6*7))\r")
        read_until(client, b"typed-42")
        client.write(b"\x1cd")  # Ctrl-\ then d: detach
        shown = read_until(client, b"}\r\n}")
        client.wait()
    finally:
        client.terminate(force=True)

    assert client.exitstatus == 0, shown
    answer = json.loads(shown[shown.index(b"{") :].replace(b"\r\n", b"\n"))
    assert answer["attach"]["reason"] == "detached"


# A Wardian from before remote support: the same program without its `remote-run` command.
WITHOUT_REMOTE_RUN = (
    "import sys; from wardian_host import cli; del cli.cli.lazy_commands['remote-run']; "
    "sys.argv[0] = 'wardian'; cli.main()"
)


def test_a_remote_without_remote_support_is_named_older_with_the_fix(
    devbox: Machine, run_wardian: Any, wardian_home: Path
) -> None:
    older = f"{sys.executable} -c {shlex.quote(WITHOUT_REMOTE_RUN)}"
    table = devbox.settings_table("devbox").replace(f'command = "{WARDIAN}"', f"command = {json.dumps(older)}")
    (wardian_home / "settings.toml").write_text(table)

    listed = run_wardian("agent", "list", "--remote", "devbox")
    environment = run_wardian("agent", "list", env={"WARDIAN_REMOTE": "devbox"})

    machine = listed.json()["machines"][0]
    assert machine["reachable"] and machine["error"]["code"] == "protocol_mismatch"
    error = environment.error()
    assert error["code"] == "protocol_mismatch" and error["details"]["remote"] == "devbox"
    assert "older Wardian" in error["message"] and f"ssh {devbox.user}@127.0.0.1" in error["hint"]


def _workflow(
    home: Path, workflow_id: str, far: dict[str, str], prompt: str = "six times {{nodes.here.output}}?"
) -> None:
    """A local shell node `here`, then per entry of `far` a node of that id whose role is the
    agent it names (an address on another machine)."""
    remote_nodes = [{"id": node, "kind": "agent", "role": node, "prompt": prompt} for node in far]
    definition = {
        "id": workflow_id,
        "roles": {node: {"agent": agent} for node, agent in far.items()},
        "nodes": [{"id": "here", "kind": "shell", "command": "echo seven"}, *remote_nodes],
        "edges": [{"from": "here", "to": node} for node in far],
    }
    (home / "workflows").mkdir(exist_ok=True)
    (home / "workflows" / f"{workflow_id}.json").write_text(json.dumps(definition))


def test_a_workflow_role_on_another_machine_is_asked_there(
    devbox: Machine, run_wardian: Any, wardian_home: Path
) -> None:
    spawned(run_wardian, devbox, "sage", *ANSWERING)
    run_wardian("agent", "wait", "sage@devbox", "--until", "idle", "--timeout", "30s")
    _workflow(wardian_home, "across", {"there": "sage@devbox"})

    ran = run_wardian("workflow", "run", "across", "--wait", "--timeout", "5m", cwd=wardian_home, timeout=330)

    assert ran.returncode == 0, ran.stderr
    run = ran.json()["run"]
    assert run["status"] == "completed", run
    assert run["nodes"]["here"]["output"] == "seven"
    there = run["nodes"]["there"]
    assert there["output"] == "answered: six times seven?" and there["remote"] == "devbox"
    asked = run_wardian("--remote", "devbox", "ask", "show", there["request_id"]).json()["request"]
    # Who asked, from where, as this machine claims it: recorded there, never verified.
    claimed = {key: asked[key] for key in ("asker", "asker_machine", "asker_verified")}
    assert claimed == {"asker": "across/there", "asker_machine": socket.gethostname(), "asker_verified": False}


def test_a_workflow_role_on_an_unreachable_or_older_machine_fails_its_node_with_the_envelope(
    devbox: Machine, run_wardian: Any, wardian_home: Path
) -> None:
    dead = devbox.settings_table("gone").replace(f"port = {devbox.port}", f"port = {free_port()}")
    older = f"{sys.executable} -c {shlex.quote(WITHOUT_REMOTE_RUN)}"
    old = devbox.settings_table("old").replace(f'command = "{WARDIAN}"', f"command = {json.dumps(older)}")
    with (wardian_home / "settings.toml").open("a") as settings:
        settings.write(dead + old)
    _workflow(wardian_home, "lost", {"there": "sage@gone", "past": "sage@old"})

    ran = run_wardian("workflow", "run", "lost", "--wait", "--timeout", "5m", cwd=wardian_home, timeout=330)

    run = ran.json()["run"]
    assert run["status"] == "failed" and run["nodes"]["here"]["state"] == "completed"
    there, past = run["nodes"]["there"], run["nodes"]["past"]
    assert there["state"] == "failed" and there["code"] == "remote_unreachable"
    assert there["remote"] == "gone" and "ssh" in there["hint"] and "did not answer" in there["error"]
    assert past["state"] == "failed" and past["code"] == "protocol_mismatch"
    assert past["remote"] == "old" and "older Wardian" in past["error"] and "pip install" in past["hint"]


def test_stopping_a_run_ends_its_remote_ask_on_both_machines(
    devbox: Machine, run_wardian: Any, wardian_home: Path
) -> None:
    spawned(run_wardian, devbox, "mute", *ANSWERING)
    run_wardian("agent", "wait", "mute@devbox", "--until", "idle", "--timeout", "30s")
    _workflow(wardian_home, "hushed", {"there": "mute@devbox"}, "SILENT: never answer this")  # the agent does not reply
    started = run_wardian("workflow", "run", "hushed", cwd=wardian_home, timeout=120)
    run_id = started.json()["run"]["run_id"]
    _await(lambda: bool(_remote_runners(devbox.user)), "the remote ask to start")

    stopped = run_wardian("workflow", "stop", run_id, timeout=120)

    assert stopped.returncode == 0, stopped.stderr
    run = run_wardian("workflow", "show", "hushed", "--run", run_id).json()["run"]
    assert (run["status"], run["nodes"]["there"]["state"]) == ("stopped", "stopped")
    _await(lambda: not _remote_runners(devbox.user), "the remote ask to end with its ssh link")
