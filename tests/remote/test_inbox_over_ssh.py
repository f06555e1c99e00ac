"""`wardian inbox` across machines against a real sshd and a second home of another local user
(tests/support/ssh_machine.py): a remote agent in error is listed beside a local one, its
entry's own command answers it over ssh, an unreachable remote is one `machines` line, and
`--follow` prints the remote entry's removal."""

import json
import shlex
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ssh_machine import WARDIAN, Machine, free_port


def _crashes_once(marker: str) -> list[str]:
    """A command that ends in error (exit 5) the first time it runs in its workspace and stays
    up as a shell once restarted: a restart answers its inbox entry for good."""
    script = f"if [ -e {marker} ]; then exec sh; fi; touch {marker}; echo the build broke; exit 5"
    return ["sh", "-c", script]


def _remote_crasher(run_wardian: Any, machine: Machine, name: str) -> None:
    """Spawn `name` on devbox (in the remote user's home directory) and await its error."""
    workspace = str(machine.home.parent)
    identity = ["--class", "Coder", "--name", name, "--workspace", workspace]
    command = _crashes_once(f".{name}-crashed")
    spawned = run_wardian("--remote", "devbox", "agent", "spawn", "--provider", "generic", *identity, "--", *command)
    assert spawned.returncode == 0, spawned.stderr
    waited = run_wardian("agent", "wait", f"{name}@devbox", "--until", "error", "--timeout", "30s")
    assert waited.returncode == 0, waited.stderr


def _add_unreachable(machine: Machine, home: Path) -> None:
    """A remote `gone` whose port nobody listens on."""
    dead = machine.settings_table("gone").replace(f"port = {machine.port}", f"port = {free_port()}")
    with (home / "settings.toml").open("a") as settings:
        settings.write(dead)


def _answered(run_wardian: Any, command: str) -> None:
    """Run an entry's command exactly as a person would type it (`wardian` is the venv's)."""
    words = shlex.split(command)
    assert words[0] == "wardian"
    ran = run_wardian(*words[1:])
    assert ran.returncode == 0, ran.stderr


def test_inbox_lists_local_and_remote_entries_and_the_remote_command_answers_it(
    devbox: Machine, run_wardian: Any, wardian_home: Path, tmp_path: Path
) -> None:
    _remote_crasher(run_wardian, devbox, "far")
    local = run_wardian(
        "agent", "spawn", "--provider", "generic", "--class", "Coder", "--name", "near",
        "--workspace", str(tmp_path), "--", "sh", "-c", "echo tests failed here; exit 3",
    )  # fmt: skip
    assert local.returncode == 0, local.stderr
    assert run_wardian("agent", "wait", "near", "--until", "error", "--timeout", "30s").returncode == 0
    _add_unreachable(devbox, wardian_home)

    listed = run_wardian("inbox")

    assert listed.returncode == 0, listed.stderr
    answer = listed.json()
    shown = {(entry["machine"], entry["kind"], entry["agent"]): entry for entry in answer["entries"]}
    assert set(shown) == {("local", "error", "near"), ("devbox", "error", "far")}
    far, near = shown["devbox", "error", "far"], shown["local", "error", "near"]
    assert far["command"] == "wardian --remote devbox agent restart far"
    assert all(choice["command"].startswith("wardian --remote devbox ") for choice in far["choices"])
    assert far["id"].startswith("devbox:error:")
    assert (far["exit_code"], far["last_lines"][-1]) == (5, "the build broke")
    assert (near["command"], near["exit_code"]) == ("wardian agent restart near", 3)
    machines = {machine["machine"]: machine for machine in answer["machines"]}
    assert set(machines) == {"local", "devbox", "gone"}
    assert machines["devbox"] == {"machine": "devbox", "reachable": True, "entries": 1, "error": None}
    assert machines["local"]["reachable"] and machines["local"]["entries"] == 1
    gone = machines["gone"]
    assert not gone["reachable"] and gone["error"]["code"] == "remote_unreachable"
    assert gone["error"]["message"] and gone["entries"] == 0

    only_here = run_wardian("inbox", "--local").json()
    assert [(entry["machine"], entry["agent"]) for entry in only_here["entries"]] == [("local", "near")]
    assert [machine["machine"] for machine in only_here["machines"]] == ["local"]

    _answered(run_wardian, far["command"])  # it returns with the agent relaunched: no longer in error
    after = run_wardian("inbox").json()
    assert [(entry["machine"], entry["agent"]) for entry in after["entries"]] == [("local", "near")]
    assert {machine["machine"]: machine["entries"] for machine in after["machines"]}["devbox"] == 0


def _lines(follower: subprocess.Popen[str]) -> Iterator[dict[str, Any]]:
    assert follower.stdout is not None
    for line in follower.stdout:
        yield json.loads(line)


def test_follow_prints_a_remote_entrys_removal(devbox: Machine, run_wardian: Any) -> None:
    _remote_crasher(run_wardian, devbox, "late")

    follower = subprocess.Popen([WARDIAN, "inbox", "--follow"], stdout=subprocess.PIPE, text=True)
    deadline = threading.Timer(90, follower.kill)  # a bound for a hang, never reached by a passing test
    deadline.start()
    try:
        lines = _lines(follower)
        added = next(line for line in lines if line.get("entry", {}).get("agent") == "late")
        assert (added["change"], added["entry"]["machine"]) == ("added", "devbox")
        _answered(run_wardian, added["entry"]["command"])
        removed = next(line for line in lines if line["change"] != "machine" and line["id"] == added["id"])
    finally:
        deadline.cancel()
        follower.kill()
        follower.wait()
    assert (removed["change"], removed["id"]) == ("removed", added["id"])
