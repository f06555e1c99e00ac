"""Generic agents' statuses through the real `wardian` command: bash and zsh with shell
integration marks, a program with a prompt pattern, and the quiet-time fallback.

A short quiet time (0.5 s) makes the old behaviour fail plainly: a command silent for
longer than it would have counted as finished.
"""

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

SHELL_RC = {"bash": ".bashrc", "zsh": ".zshrc"}
QUIET = "idle_quiet_seconds=0.5"


@pytest.fixture
def spawn_with(run_wardian, generic_spawn_args: Callable[..., list[str]]) -> Callable[..., dict[str, Any]]:
    def spawn(name: str, settings: list[str], *command: str) -> dict[str, Any]:
        options = [option for setting in settings for option in ("--provider-setting", setting)]
        result = run_wardian(*generic_spawn_args(name, *options, "--", *command))
        assert result.returncode == 0, result.stderr
        return result.json()["agent"]

    return spawn


@pytest.fixture
def send_and_wait(run_wardian) -> Callable[[str, str], dict[str, Any]]:
    """`send TEXT --to NAME --wait-until idle`; the agent as it was when the send returned."""

    def send(name: str, text: str) -> dict[str, Any]:
        result = run_wardian("send", text, "--to", name, "--wait-until", "idle", "--timeout", "30s")
        assert result.returncode == 0, result.stderr
        return result.json()["agent"]

    return send


@pytest.fixture
def idle_evidence(wait_status, show) -> Callable[[str], dict[str, Any]]:
    """Wait until the agent is idle; the evidence of that status."""

    def evidence(name: str) -> dict[str, Any]:
        wait_status(name, "idle")
        return show(name)["status_evidence"]

    return evidence


def output_of(run_wardian, name: str) -> str:
    return run_wardian("agent", "watch", name).json()["watch"]["output"]


@pytest.mark.parametrize("shell", ["bash", "zsh"])
def test_a_shell_agent_is_processing_until_its_command_finishes_with_the_exit_code_as_evidence(
    shell: str, spawn_with, idle_evidence, send_and_wait, run_wardian
) -> None:
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed")
    home = Path(os.environ["HOME"])
    # A start-up silent for longer than the quiet time (cc32: a loaded zsh) is still starting until its prompt.
    (home / SHELL_RC[shell]).write_text("sleep 1\nUSER_RC=ran\n")
    spawn_with("sh1", [QUIET], shell)
    assert idle_evidence("sh1")["rule"] == "shell mark A (prompt)"

    finished = send_and_wait("sh1", "sleep 2; echo done")
    # D is written after `echo done` ran; quiet time would have ended the turn during the sleep.
    assert finished["status_evidence"] == {
        "source": "pty",
        "event": "turn_completed",
        "rule": "shell mark D (command finished)",
        "message": "exit code 0",
    }
    assert "done" in output_of(run_wardian, "sh1")
    assert send_and_wait("sh1", "false")["status_evidence"]["message"] == "exit code 1"

    # The user's own start-up ran first, and a shell started inside the agent reads the user's files.
    send_and_wait("sh1", 'echo "rc:$USER_RC zdotdir:${ZDOTDIR:-unset}"')
    expected_zdotdir = str(home) if shell == "zsh" else "unset"
    assert f"rc:ran zdotdir:{expected_zdotdir}" in output_of(run_wardian, "sh1")
    events = run_wardian("agent", "watch", "sh1").json()["watch"]["events"]
    rules = [(entry["to"], entry["evidence"]["rule"]) for entry in events]
    assert rules[-2:] == [("processing", "shell mark C (command started)"), ("idle", "shell mark D (command finished)")]


def test_a_prompt_pattern_agent_is_idle_when_its_prompt_shows_not_when_quiet(
    spawn_with, idle_evidence, send_and_wait, run_wardian
) -> None:
    spawn_with("py", [QUIET, "prompt_pattern=>>> "], "python3", "-i")
    assert idle_evidence("py")["rule"] == "prompt_pattern >>> "
    finished = send_and_wait("py", 'import time; time.sleep(2); print("do" + "ne")')
    assert finished["status_evidence"]["rule"] == "prompt_pattern >>> "
    assert finished["status_evidence"]["event"] == "turn_completed"
    assert "done" in output_of(run_wardian, "py")
    # A line that prints nothing is a turn too: the newline that ends the prompt's line starts it.
    assert send_and_wait("py", "answer = 6 * 7")["status_evidence"]["event"] == "turn_completed"
    events = run_wardian("agent", "watch", "py").json()["watch"]["events"]
    rules = [(entry["to"], entry["evidence"]["rule"]) for entry in events]
    assert rules[-2:] == [("processing", "input submitted at the prompt"), ("idle", "prompt_pattern >>> ")]


def test_without_marks_or_pattern_quiet_time_decides_and_says_so(spawn_with, idle_evidence) -> None:
    spawn_with("plain", [QUIET, "shell_integration=false"], "bash")
    assert idle_evidence("plain")["rule"] == "quiet for 0.5s"


@pytest.mark.parametrize("setting", ["idle_quiet_seconds=-1", "prompt_pattern=(unclosed"])
def test_a_bad_setting_value_is_validation_failed_and_no_agent_is_made(
    run_wardian, generic_spawn_args: Callable[..., list[str]], setting: str
) -> None:
    refused = run_wardian(*generic_spawn_args("tuned", "--provider-setting", setting, "--", "bash"))
    error = refused.error()
    assert (refused.returncode, error["code"]) == (1, "validation_failed")  # as docs/cli.md says
    assert error["details"]["setting"] == setting.split("=")[0] and error["hint"]
    assert run_wardian("agent", "list", "--scope", "all").json()["agents"] == []


def test_a_command_printing_from_launch_is_processing_not_starting(spawn_with, wait_status, show) -> None:
    spawn_with("chatty", [QUIET], "sh", "-c", "while :; do echo tick; sleep 0.05; done")
    wait_status("chatty", "processing")  # it stayed `starting` for ever
    evidence = show("chatty")["status_evidence"]
    assert (evidence["event"], evidence["rule"]) == ("turn_started", "output through 0.5s from launch")
