"""A home only its owner can read: the home 0700, state.db, its -wal and the host's log 0600,
made so when created and tightened when a host starts on an older, looser home."""

import logging
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from wardian_core import paths
from wardian_host.daemon.home_modes import PrivateLogHandler


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture(autouse=True)
def usual_umask() -> Iterator[None]:
    """The umask most users have (0022): files would come out 0644 unless Wardian says otherwise."""
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def test_a_new_home_and_what_the_host_writes_in_it_are_owner_only(wardian_home: Path, run_wardian) -> None:
    wardian_home.rmdir()  # the host makes the home itself
    started = run_wardian("host", "start")
    assert started.returncode == 0, started.stderr
    db = paths.state_db(wardian_home)
    written = {
        "home": wardian_home,
        "logs": paths.logs_dir(wardian_home),
        "run": paths.run_dir(wardian_home),
        "state.db": db,
        "state.db-wal": db.with_name("state.db-wal"),
        "host.log": paths.logs_dir(wardian_home) / "host.log",
    }
    assert {name: f"{mode(path):04o}" for name, path in written.items()} == {
        "home": "0700",
        "logs": "0700",
        "run": "0700",
        "state.db": "0600",
        "state.db-wal": "0600",
        "host.log": "0600",
    }


def test_an_older_looser_home_is_tightened_when_a_host_starts(wardian_home: Path, seed_agent, run_wardian) -> None:
    seed_agent(name="kept", status="idle")
    logs = paths.logs_dir(wardian_home)
    logs.mkdir()
    loose_files = [
        paths.state_db(wardian_home),
        logs / "host.log",
        logs / "host.log.1",
        paths.settings_file(wardian_home),
    ]
    for path in loose_files:
        path.touch()
        path.chmod(0o644)
    logs.chmod(0o755)
    wardian_home.chmod(0o755)
    started = run_wardian("host", "start")
    assert started.returncode == 0, started.stderr
    assert (mode(wardian_home), mode(logs)) == (0o700, 0o700)
    assert {path.name: f"{mode(path):04o}" for path in loose_files} == dict.fromkeys(
        ["state.db", "host.log", "host.log.1", "settings.toml"], "0600"
    )
    assert run_wardian("agent", "kept", "--field", "name").stdout == "kept\n"  # nothing lost on the way


def test_settings_written_by_the_cli_are_owner_only(wardian_home: Path, run_wardian) -> None:
    wardian_home.rmdir()  # `settings set` on a home that does not exist yet makes it
    result = run_wardian("settings", "set", "providers.generic.idle_quiet_seconds", "3")
    assert result.returncode == 0, result.stderr
    assert (mode(wardian_home), mode(paths.settings_file(wardian_home))) == (0o700, 0o600)


def test_a_state_db_the_cli_creates_is_owner_only(wardian_home: Path, seed_agent) -> None:
    wardian_home.rmdir()
    seed_agent(name="first")  # opens state.db as a writer, as a migrating CLI does
    assert (mode(wardian_home), mode(paths.state_db(wardian_home))) == (0o700, 0o600)


def test_each_log_file_the_host_rotates_to_is_owner_only(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    logs.mkdir()
    target = logs / "host.log"
    handler = PrivateLogHandler(target, maxBytes=64, backupCount=2)
    record = logging.LogRecord("wardian", logging.INFO, __file__, 1, "x" * 80, None, None)
    try:
        for _ in range(3):
            handler.emit(record)
    finally:
        handler.close()
    rotated = sorted(logs.iterdir())
    assert [path.name for path in rotated] == ["host.log", "host.log.1", "host.log.2"]
    assert {f"{mode(path):04o}" for path in rotated} == {"0600"}
