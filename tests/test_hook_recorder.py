"""The recorder a CLI's command hooks run: one line per payload, at a bare interpreter's cost."""

import json
import os
import shlex
import subprocess
from pathlib import Path

import pytest

from wardian_core.hook_recorder import (
    CLI_PID_FIELD,
    SESSION_START,
    SessionRecord,
    hook_line,
    install_recorder,
    session_records,
)

# A recorder run may import nothing beyond `python -I -S -c "import os, sys"` (each import is
# paid by every hook the CLI runs), for a payload already on one line.
ONE_LINE = b'{"session_id":"s1","hook_event_name":"Stop","last_assistant_message":"done: a\\nb"}'


def run_recorder(tmp_path: Path, payload: bytes, *extra: str) -> subprocess.CompletedProcess[bytes]:
    log_file = tmp_path / "hooks.jsonl"
    command = install_recorder(tmp_path / "bin", log_file, fresh_log=not log_file.exists())
    python, *rest = shlex.split(command)
    return subprocess.run([python, *extra, *rest], input=payload, capture_output=True, check=True)


def imported_by(argv: list[str], payload: bytes) -> set[str]:
    done = subprocess.run(argv, input=payload, capture_output=True, check=True)
    return {line.rsplit(b"|", 1)[-1].strip().decode() for line in done.stderr.splitlines() if b"import time:" in line}


def test_a_one_line_payload_is_appended_without_importing_json(tmp_path: Path) -> None:
    log_file = tmp_path / "hooks.jsonl"
    command = install_recorder(tmp_path / "bin", log_file, fresh_log=True)
    python, flags_isolated, flags_no_site, script, target = shlex.split(command)

    imported = imported_by([python, "-X", "importtime", flags_isolated, flags_no_site, script, target], ONE_LINE)
    bare = imported_by([python, "-X", "importtime", flags_isolated, flags_no_site, "-c", "import os, sys"], b"")

    assert sorted(imported - bare) == []
    assert log_file.read_bytes() == ONE_LINE[:-1] + b',"%s":%d}\n' % (CLI_PID_FIELD.encode(), os.getpid())


@pytest.mark.parametrize(
    "payload",
    [
        json.dumps({"hook_event_name": "SessionStart", "session_id": "s1"}, indent=2).encode(),  # several lines
        b'{"session_id": "s1", "hook_event_name": "SessionStart"}',  # one line, spaced
    ],
)
def test_any_payload_becomes_one_line_whose_session_start_a_byte_search_finds(tmp_path: Path, payload: bytes) -> None:
    run_recorder(tmp_path, payload)

    (line,) = (tmp_path / "hooks.jsonl").read_bytes().splitlines()
    assert json.loads(line) == json.loads(payload) | {CLI_PID_FIELD: os.getpid()}
    assert SESSION_START in line
    assert SESSION_START in hook_line(payload)  # the host's endpoint writes the same line


def test_an_unreadable_payload_is_kept_as_such(tmp_path: Path) -> None:
    run_recorder(tmp_path, b"not json\nat all")

    record = json.loads((tmp_path / "hooks.jsonl").read_bytes())
    assert record == {"hook_event_name": "unreadable", "raw": "not json\nat all", CLI_PID_FIELD: os.getpid()}


@pytest.mark.parametrize("payload", [b"{}", b"[1, 2]"])
def test_an_empty_or_non_object_payload_still_makes_an_object_line(tmp_path: Path, payload: bytes) -> None:
    run_recorder(tmp_path, payload)

    record = json.loads((tmp_path / "hooks.jsonl").read_bytes())
    assert record[CLI_PID_FIELD] == os.getpid()


def test_each_record_names_the_process_that_ran_the_hook(tmp_path: Path) -> None:
    """A CLI that relaunches itself in the same terminal (Gemini CLI after a trust answer) fires
    the same payload from two processes: the pid tells its starts apart. The recorder's parent
    is the CLI, its shell (`bash -c <command>`) having exec'd it, as a shell does a lone command."""
    log_file = tmp_path / "hooks.jsonl"
    command = install_recorder(tmp_path / "bin", log_file, fresh_log=True)
    start = b'{"hook_event_name":"SessionStart","session_id":"s1"}'
    shell = subprocess.Popen(["bash", "-c", command], stdin=subprocess.PIPE)
    shell.communicate(start)

    assert json.loads(log_file.read_bytes())[CLI_PID_FIELD] == os.getpid()


def test_session_records_are_read_in_order_with_their_process(tmp_path: Path) -> None:
    log_file = tmp_path / "hooks.jsonl"
    assert session_records(log_file) is None
    assert session_records(None) is None
    log_file.write_bytes(
        b'{"hook_event_name":"SessionStart","wardian_cli_pid":7}\n'
        b'{"hook_event_name":"BeforeAgent","wardian_cli_pid":7}\n'
        b"not json\n"
        b'{"hook_event_name":"SessionEnd","wardian_cli_pid":true}\n'
        b'{"hook_event_name":"SessionStart"}\n'
    )
    assert session_records(log_file) == [
        SessionRecord("SessionStart", 7),
        SessionRecord("SessionEnd", None),
        SessionRecord("SessionStart", None),
    ]
