"""Bad input through the installed `wardian` gets the error envelope, never a traceback,
and leaves what is stored as it was."""

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from wardian_core.durations import MAX_DURATION_SECONDS

WARDIAN = str(Path(sys.executable).parent / "wardian")


def no_traceback(result) -> dict:
    assert "Traceback" not in result.stderr
    return result.error()


@pytest.mark.parametrize("source", ["file", "stdin", "argument"])
def test_a_message_that_is_not_utf8_is_refused_before_anything_is_sent(tmp_path: Path, source: str) -> None:
    message = b"echo caf\xe9 \xff"
    path = tmp_path / "latin1.txt"
    path.write_bytes(message)
    arguments = {"file": ["--file", str(path)], "stdin": ["--stdin"], "argument": [os.fsdecode(message)]}[source]
    completed = subprocess.run(
        [WARDIAN, "send", *arguments, "--to", "somebody"],
        input=message if source == "stdin" else b"",
        capture_output=True,
    )
    assert completed.returncode == 1 and completed.stdout == b""
    stderr = completed.stderr.decode()
    assert "Traceback" not in stderr
    error = json.loads(stderr)["error"]
    # `usage`, not `app_not_running`: refused before the CLI looked for a host to type into.
    assert error["code"] == "usage"
    assert "not UTF-8" in error["message"] and "iconv" in error["hint"]
    assert error["details"]["byte_offset"] == 8


@pytest.mark.parametrize(
    "arguments",
    [
        ("agent", "wait", "somebody", "--until", "idle", "--timeout", "999999999999"),
        ("send", "echo hi", "--to", "somebody", "--wait-until", "idle", "--timeout", "99999999999"),
        ("send", "echo hi", "--to", "somebody", "--wait-until", "idle", "--timeout", "9" * 400),
        ("agent", "watch", "somebody", "--timeout", "721h"),
        ("agent", "run", "somebody", "hello", "--timeout", "1000000h"),
    ],
)
def test_a_duration_past_the_limit_is_a_usage_error_before_any_request(run_wardian, wardian_home, arguments) -> None:
    result = run_wardian(*arguments)
    assert result.returncode == 1
    error = no_traceback(result)
    assert error["code"] == "usage"
    assert "720h" in error["hint"]
    assert error["details"]["max_seconds"] == MAX_DURATION_SECONDS
    assert not (wardian_home / "logs").exists()  # no host was started, nothing was sent


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (("agent", "spawn", "--provider", "generic", "--class", "", "--", "bash"), "--class"),
        (("agent", "spawn", "--provider", " ", "--class", "Coder", "--", "bash"), "--provider"),
        (("send", "echo hi", "--to", ""), "--to"),
        (("agent", "wait", "somebody", "--until", "idle", "--timeout", "0"), "is zero"),
        (("send", "echo hi", "--to", "somebody", "--wait-until", "idle", "--timeout", "0ms"), "is zero"),
    ],
)
def test_an_empty_option_or_a_zero_limit_is_usage_before_any_request(
    run_wardian, wardian_home, arguments: tuple[str, ...], said: str
) -> None:
    result = run_wardian(*arguments)
    error = no_traceback(result)
    assert (result.returncode, error["code"]) == (1, "usage")
    assert said in error["message"] and "agent.spawn" not in error["message"]
    assert not (wardian_home / "logs").exists()  # no host was started, nothing was sent


@pytest.mark.parametrize(
    ("arguments", "said"),
    [
        (("agent", "spawn", "--provider", "generic", "--class", "Coder", "--base", "main", "--", "bash"), "--base"),
        (("agent", "spawn", "--provider", "generic", "--class", "Coder", "--provider-setting", "x"), "NAME=VALUE"),
        (("workflow", "run", "nightly", "--input", "x"), "NAME=VALUE"),
    ],
)
def test_a_command_that_starts_a_host_refuses_a_bad_flag_before_it_starts_one(
    run_wardian, wardian_home, arguments: tuple[str, ...], said: str
) -> None:
    # The flags are checked by the answer the host's MCP tool shares, the host started after.
    result = run_wardian(*arguments)
    error = no_traceback(result)
    assert (result.returncode, error["code"]) == (1, "usage") and said in error["message"]
    assert not (wardian_home / "logs").exists()  # no host was started, nothing was sent


@pytest.mark.parametrize("class_name", ["../../x", "Night Shift"])
def test_a_class_outside_the_name_rules_is_invalid_name_before_any_request(
    run_wardian, wardian_home, class_name: str
) -> None:
    result = run_wardian("agent", "spawn", "--provider", "generic", "--class", class_name, "--", "bash")
    error = no_traceback(result)
    assert (result.returncode, error["code"], error["details"]["class"]) == (1, "invalid_name", class_name)
    assert not (wardian_home / "logs").exists()


def test_the_longest_duration_allowed_is_accepted(run_wardian) -> None:
    result = run_wardian("agent", "wait", "somebody", "--until", "idle", "--timeout", "720h")
    assert result.error()["code"] == "app_not_running"  # past parsing: it looked for the host


def _damage_page_two(db: Path) -> None:
    """What `dd if=/dev/zero of=state.db bs=4096 seek=1 count=1 conv=notrunc` does: the agents table's root page."""
    with db.open("r+b") as handle:
        handle.seek(4096)
        handle.write(b"\0" * 4096)


def test_a_damaged_state_db_is_state_corrupt_with_a_hint_that_keeps_the_file(
    run_wardian, seed_agent, wardian_home
) -> None:
    seed_agent(name="alice")
    seed_agent(name="bob")
    db = wardian_home / "state.db"
    _damage_page_two(db)
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    for arguments in (("agent", "list"), ("agent", "alice"), ("agent", "list", "--field", "name")):
        result = run_wardian(*arguments)
        assert result.returncode == 4, result.stderr
        error = no_traceback(result)
        assert error["code"] == "state_corrupt"
        assert f"mv {db} {db}.damaged" in error["hint"] and "Do not delete" in error["hint"]
        assert " rm " not in error["hint"]
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


def test_a_host_refuses_to_start_on_a_damaged_state_db(run_wardian, seed_agent, wardian_home) -> None:
    seed_agent(name="alice")
    db = wardian_home / "state.db"
    _damage_page_two(db)
    before = db.read_bytes()
    result = run_wardian("agent", "spawn", "--provider", "generic", "--class", "Coder", "--", "true")
    assert result.returncode == 4
    assert no_traceback(result)["code"] == "state_corrupt"
    assert db.read_bytes() == before


def test_the_hint_for_a_damaged_state_db_works_as_typed(run_wardian, seed_agent, wardian_home) -> None:
    seed_agent(name="alice")
    db = wardian_home / "state.db"
    _damage_page_two(db)
    hint = run_wardian("agent", "list").error()["hint"]
    move = hint.split("`")[3]  # the second command quoted in the hint
    assert move.startswith("mv ")
    subprocess.run(shlex.split(move), check=True)
    assert Path(f"{db}.damaged").is_file()
    seed_agent(name="carol")  # what a spawn does: a new state.db
    assert run_wardian("agent", "list", "--field", "name").stdout == "carol\n"


# A private mount namespace lets an unprivileged test make the home read-only or full.
UNSHARE = shutil.which("unshare") or ""  # "" when missing: the tests needing it are skipped


def _namespaces_work() -> bool:
    if not UNSHARE:
        return False
    return subprocess.run([UNSHARE, "-rm", "true"], capture_output=True).returncode == 0


needs_namespaces = pytest.mark.skipif(not _namespaces_work(), reason="needs `unshare -rm` (user namespaces)")

USER_FILE = '# tuned by hand\n[sessions]\nregular = "fresh"  # weekdays\n'


def _in_namespace(setup: str, *arguments: str) -> subprocess.CompletedProcess[str]:
    command = " ".join(shlex.quote(part) for part in (WARDIAN, *arguments))
    script = f"set -e; {setup}; exec {command}"
    return subprocess.run([UNSHARE, "-rm", "sh", "-c", script], capture_output=True, text=True, env=os.environ)


@needs_namespaces
@pytest.mark.parametrize("arguments", [("set", "sessions.regular", "resume"), ("unset", "sessions.regular")])
def test_settings_change_on_a_read_only_home_is_write_failed_and_the_file_unchanged(
    wardian_home: Path, arguments
) -> None:
    (wardian_home / "settings.toml").write_text(USER_FILE)
    home = shlex.quote(str(wardian_home))
    completed = _in_namespace(f"mount -o bind,ro {home} {home}", "settings", *arguments)
    assert completed.returncode == 1 and completed.stdout == ""
    assert "Traceback" not in completed.stderr
    error = json.loads(completed.stderr)["error"]
    assert error["code"] == "write_failed" and error["details"]["errno"] == "EROFS"
    assert "writable" in error["hint"]
    assert (wardian_home / "settings.toml").read_text() == USER_FILE


@needs_namespaces
def test_settings_set_on_a_full_disk_is_write_failed_and_the_file_unchanged(wardian_home: Path) -> None:
    home = shlex.quote(str(wardian_home))
    settings = shlex.quote(str(wardian_home / "settings.toml"))
    setup = (
        f"mount -t tmpfs -o size=64k tmpfs {home}; printf %s {shlex.quote(USER_FILE)} > {settings}; "
        f"mkdir -m 700 {home}/run; dd if=/dev/zero of={home}/filler bs=4k 2>/dev/null || true"
    )
    # Show what the namespace's settings file holds after the command, as that tmpfs vanishes with it.
    after = f"; echo ---; cat {settings}; ls -A {home}"
    script = f"set -e; {setup}; {shlex.quote(WARDIAN)} settings set sessions.regular resume || true{after}"
    completed = subprocess.run([UNSHARE, "-rm", "sh", "-c", script], capture_output=True, text=True)
    assert "Traceback" not in completed.stderr
    error = json.loads(completed.stderr)["error"]
    assert error["code"] == "write_failed" and error["details"]["errno"] == "ENOSPC"
    assert "Free some space" in error["hint"]
    # The file as it was, and no temporary file left beside it.
    assert completed.stdout.split("---\n")[1] == USER_FILE + "filler\nrun\nsettings.toml\n"
