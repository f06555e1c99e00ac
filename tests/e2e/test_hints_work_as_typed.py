"""The hints of a failed spawn, run exactly as written, do what they say."""

import shlex
import sys
from pathlib import Path

WARDIAN = str(Path(sys.executable).parent / "wardian")


def commands_in(hint: str) -> list[list[str]]:
    """The `wardian …` commands a hint quotes, as argument lists for the installed command."""
    quoted = hint.split("`")[1::2]
    return [[WARDIAN, *shlex.split(text)[1:]] for text in quoted if text.startswith("wardian ")]


def test_the_hint_for_a_generic_spawn_without_a_command_works_as_typed(run_wardian, workspace) -> None:
    refused = run_wardian("agent", "spawn", "--provider", "generic", "--class", "Night-Shift", "--name", "nightly")
    assert refused.returncode == 1
    error = refused.error()
    assert error["code"] == "usage"
    spawn_again = commands_in(error["hint"])[0]
    assert spawn_again[1:3] == ["agent", "spawn"]
    spawned = run_wardian(*spawn_again[1:])
    assert spawned.returncode == 0, spawned.stderr
    assert spawned.json()["agent"]["name"] == "nightly"
    assert run_wardian("agent", "nightly", "--field", "class").stdout == "Night-Shift\n"


def test_a_missing_command_of_the_generic_provider_names_it_and_no_placeholder(run_wardian, workspace) -> None:
    refused = run_wardian("agent", "spawn", "--provider", "generic", "--class", "C", "--", "no-such-command-here")
    error = refused.error()
    assert error["code"] == "request_failed"
    assert "'no-such-command-here'" in error["hint"] and "spawn again" in error["hint"]
    assert "<" not in error["hint"] and "providers." not in error["hint"]


def test_the_missing_cli_hint_names_the_real_setting_and_its_commands_work(run_wardian, tmp_path) -> None:
    empty = tmp_path / "empty-path"
    empty.mkdir()
    no_cli = {"PATH": str(empty)}  # no provider CLI can be found, whatever the machine has installed
    missing = run_wardian("agent", "spawn", "--provider", "claude", "--class", "C", env=no_cli).error()
    assert missing["code"] == "request_failed"
    assert "`wardian settings set providers.claude.executable /path/to/claude`" in missing["hint"]
    assert "<name>" not in missing["hint"]
    (set_path,) = commands_in(missing["hint"])
    assert run_wardian(*set_path[1:]).returncode == 0

    configured = run_wardian("agent", "spawn", "--provider", "claude", "--class", "C", env=no_cli).error()
    assert "'/path/to/claude'" in configured["hint"]
    unset = [command for command in commands_in(configured["hint"]) if "unset" in command]
    assert run_wardian(*unset[0][1:]).json()["removed"] is True
