"""A 0-byte state.db: the host starts on it as a new database and says so once."""

from pathlib import Path


def test_an_empty_state_db_is_said_once_in_the_log_and_in_host_status(run_wardian, wardian_home: Path) -> None:
    (wardian_home / "state.db").write_bytes(b"")  # truncated: a crash during a copy, a full disk
    started = run_wardian("host", "start")
    assert started.returncode == 0, started.stderr
    notice = run_wardian("host", "status").json()["host"]["state_db_notice"]
    assert notice["path"] == str(wardian_home / "state.db") and "was empty (0 bytes)" in notice["message"]
    assert run_wardian("host", "stop").returncode == 0
    assert run_wardian("host", "start").returncode == 0
    assert run_wardian("host", "status").json()["host"]["state_db_notice"] is None  # said once
    log = (wardian_home / "logs" / "host.log").read_text()
    assert log.count("was empty (0 bytes)") == 1 and "Traceback" not in log
