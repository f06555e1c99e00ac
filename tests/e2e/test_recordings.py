"""An agent's recording, through the real `wardian` and the real `asciinema` (Debian's): what the
agent printed is in it across a host restart and a `kill -9` of the host, once each, and
`asciinema play` and `asciinema cat` read the export; turned off, nothing is recorded."""

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from host_restarts import crash_host
from pty_reading import read_while
from ptyprocess import PtyProcess
from recording_talker import Talker, wait_recorded

from wardian_core import recording_format as fmt

needs_asciinema = pytest.mark.skipif(shutil.which("asciinema") is None, reason="needs asciinema (apt-get install)")


def through_a_terminal(*argv: str) -> str:
    """What `argv` shows in a terminal of its own (asciinema reads /dev/tty), to its end."""
    terminal = PtyProcess.spawn(list(argv), dimensions=(40, 120))
    try:
        shown = read_while(terminal, lambda _: True, 30.0, "the end of " + argv[1])
    finally:
        terminal.close(force=True)
    return shown.decode("utf-8", "replace").replace("\r", "")


@pytest.fixture
def talker(tmp_path: Path) -> Talker:
    folder = tmp_path / "talk"
    folder.mkdir()
    return Talker(folder)


@needs_asciinema
def test_a_recording_holds_what_was_printed_across_a_restart_and_a_crash_once_each(
    run_wardian: Callable[..., Any], generic_spawn_args: Callable[..., list[str]], talker: Talker, wardian_home: Path
) -> None:
    spawned = run_wardian(*generic_spawn_args("talk", *talker.argv()))
    assert spawned.returncode == 0, spawned.stderr
    uuid = spawned.json()["agent"]["uuid"]
    talker.say("before-restart")
    assert run_wardian("host", "restart").returncode == 0
    talker.say("after-restart")
    crash_host(wardian_home)
    talker.say("while-no-host")  # the terminal server records it: no host runs
    assert run_wardian("host", "start").returncode == 0
    talker.say("after-crash")
    wait_recorded(wardian_home, uuid, b"said:after-crash")

    cast = wardian_home.parent / "talk.cast"
    exported = run_wardian("agent", "recording", "talk", "--format", "asciicast", "--output", str(cast))
    assert exported.returncode == 0, exported.stderr
    header, *events = [json.loads(line) for line in cast.read_text().splitlines()]
    assert header["version"] == 2 and (header["width"], header["height"]) == (120, 40)
    assert [event[0] for event in events] == sorted(event[0] for event in events)

    shown = through_a_terminal("asciinema", "cat", str(cast))
    words = ["before-restart", "after-restart", "while-no-host", "after-crash"]
    assert [line for line in shown.splitlines() if line.startswith("said:")] == [f"said:{w}" for w in words]
    played = through_a_terminal("asciinema", "play", "--idle-time-limit", "0.1", str(cast))
    assert "said:after-crash" in played


def test_an_agent_spawned_with_no_recording_records_nothing(
    run_wardian: Callable[..., Any], generic_spawn_args: Callable[..., list[str]], talker: Talker, wardian_home: Path
) -> None:
    spawned = run_wardian(*generic_spawn_args("quiet", "--no-recording", *talker.argv()))
    assert spawned.returncode == 0, spawned.stderr
    talker.say("unrecorded")
    talker.say("again")  # the first word was read from the PTY by now: the host shows the second
    assert not fmt.folder(wardian_home / "agents" / spawned.json()["agent"]["uuid"]).exists()
    refused = run_wardian("agent", "recording", "quiet")
    assert refused.returncode == 1
    error = json.loads(refused.stderr)["error"]
    assert error["code"] == "recording_off" and "--no-recording" in error["message"]


def test_a_home_with_recording_off_records_no_agent(
    run_wardian: Callable[..., Any], generic_spawn_args: Callable[..., list[str]], talker: Talker, wardian_home: Path
) -> None:
    assert run_wardian("settings", "set", "recording.enabled", "false").returncode == 0
    spawned = run_wardian(*generic_spawn_args("quiet", *talker.argv()))
    assert spawned.returncode == 0, spawned.stderr
    talker.say("unrecorded")
    assert not fmt.folder(wardian_home / "agents" / spawned.json()["agent"]["uuid"]).exists()
    error = json.loads(run_wardian("agent", "recording", "quiet").stderr)["error"]
    assert error["code"] == "recording_off" and "recording.enabled" in error["hint"]


@pytest.mark.parametrize(
    ("flags", "code", "hint"),
    [
        (("nobody",), "not_found", "agent list"),
        (("talk", "--since", "yesterday"), "usage", "span back"),
        (("talk", "--until", "2020-13-01"), "usage", "span back"),
        (("talk", "--since", "1m", "--until", "2h"), "usage", "after --since"),
        (("talk", "--format", "json"), "usage", "--format asciicast"),
    ],
)
def test_bad_recording_requests_get_the_envelope(
    run_wardian: Callable[..., Any],
    generic_spawn_args: Callable[..., list[str]],
    talker: Talker,
    flags: tuple[str, ...],
    code: str,
    hint: str,
) -> None:
    assert run_wardian(*generic_spawn_args("talk", *talker.argv())).returncode == 0
    refused = run_wardian("agent", "recording", *flags)
    assert refused.returncode != 0 and refused.stdout == ""
    error = json.loads(refused.stderr)["error"]
    assert error["code"] == code and hint in error["hint"]
