"""`wardian inbox` through the real command against a host process: a dialog (the example
provider's fake CLI proves the plumbing) before an agent in error, each answered by the command
its entry names; `--pretty`; and `--follow` printing the change an answer makes."""

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from wardian_core.errors import SCHEMA_VERSION

sys.path.insert(0, str(Path(__file__).parents[1] / "example_provider"))
pytest_plugins = ["wardian_test_packages"]

FAKE_CLIS = Path(__file__).parent / "fake_clis"
EXAMPLE_ENV = {"PATH": f"{FAKE_CLIS}{os.pathsep}{os.environ['PATH']}", "WARDIAN_PLUGINS": "generic,example"}
WARDIAN = str(Path(sys.executable).parent / "wardian")
RunWardian = Callable[..., Any]


def _lines(follower: subprocess.Popen[str]) -> Iterator[dict[str, Any]]:
    assert follower.stdout is not None
    for line in follower.stdout:
        yield json.loads(line)


def test_inbox_lists_a_dialog_before_an_error_and_follow_prints_the_answer(
    provider_packages: Path,
    spawn: Callable[..., dict[str, Any]],
    wait_status: Callable[..., dict[str, Any]],
    run_wardian: RunWardian,
    workspace: Path,
) -> None:
    example = run_wardian(
        "agent", "spawn", "--provider", "example", "--class", "Coder", "--name", "asker",
        "--workspace", str(workspace), env=EXAMPLE_ENV,
    )  # fmt: skip
    assert example.returncode == 0, example.stderr
    spawn("crasher", "bash", "-c", "echo the build broke; exit 5")
    wait_status("crasher", "error")
    wait_status("asker", "idle")
    run_wardian("send", "tool touch accepted.txt", "--to", "asker")
    wait_status("asker", "action_required")

    listed = run_wardian("inbox", "--local")
    assert listed.returncode == 0, listed.stderr
    answer = listed.json()
    assert answer["schema"] == SCHEMA_VERSION
    assert [(entry["kind"], entry["agent"]) for entry in answer["entries"]] == [
        ("dialog", "asker"),
        ("error", "crasher"),
    ]
    dialog, error = answer["entries"]
    assert dialog["command"] == "wardian send --approval accept --to asker"
    assert (error["exit_code"], error["last_lines"][-1]) == (5, "the build broke")
    assert answer["machines"] == [{"machine": "local", "reachable": True, "entries": 2, "error": None}]

    pretty = run_wardian("inbox", "--local", "--pretty")
    assert pretty.returncode == 0, pretty.stderr
    assert pretty.stdout.index("DIALOG") < pretty.stdout.index("ERROR")
    assert "accept: wardian send --approval accept --to asker" in pretty.stdout
    assert "| the build broke" in pretty.stdout

    follower = subprocess.Popen([WARDIAN, "inbox", "--local", "--follow"], stdout=subprocess.PIPE, text=True)
    deadline = threading.Timer(60, follower.kill)  # a bound for a hang, never reached by a passing test
    deadline.start()
    try:
        lines = _lines(follower)
        first = [next(lines), next(lines)]
        assert [(line["change"], line["entry"]["kind"]) for line in first] == [("added", "dialog"), ("added", "error")]
        # The entry's own command answers it, as a person would type it.
        accepted = run_wardian(*dialog["command"].split()[1:], env=EXAMPLE_ENV)
        assert accepted.returncode == 0, accepted.stderr
        removed = next(lines)
        assert (removed["change"], removed["id"]) == ("removed", dialog["id"])
    finally:
        deadline.cancel()
        follower.kill()
        follower.wait()
    assert (workspace / "accepted.txt").exists()
    assert [entry["kind"] for entry in run_wardian("inbox", "--local").json()["entries"]] == ["error"]


def test_an_empty_home_needs_nothing_and_bad_flags_get_the_usage_envelope(run_wardian: RunWardian) -> None:
    empty = run_wardian("inbox", "--local", "--pretty")
    assert (empty.returncode, empty.stdout.splitlines()[0]) == (0, "nothing needs you")
    refused = run_wardian("inbox", "--pretty", "--follow")
    assert refused.returncode != 0 and json.loads(refused.stderr)["error"]["code"] == "usage"
