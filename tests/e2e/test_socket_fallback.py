"""A home too long for a socket address: the socket moves to the user's private runtime folder,
and a folder or link another user planted there is refused, never followed."""

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from wardian_core.control import endpoint
from wardian_core.errors import WardianError


@pytest.fixture
def long_home(tmp_path: Path) -> Path:
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    deep.mkdir(parents=True)
    return deep


@pytest.fixture
def runtime_dir(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A runtime folder of this test's own (XDG_RUNTIME_DIR), as a login session provides: short,
    as a real one is (/run/user/<uid>), since a pytest-xdist worker's tmp_path leaves no room
    in a socket address."""
    runtime = Path(tempfile.mkdtemp(prefix="wr-"))
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    yield runtime
    shutil.rmtree(runtime, ignore_errors=True)
    shutil.rmtree(runtime.with_name(runtime.name + "-other"), ignore_errors=True)


def test_a_runtime_folder_too_long_for_a_socket_is_an_error_with_a_hint(
    long_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, run_wardian
) -> None:
    runtime = tmp_path / ("r" * 90)
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    started = run_wardian("host", "start", env={"WARDIAN_HOME": str(long_home)})
    assert started.returncode == 1
    error = started.error()
    assert error["code"] == "not_supported" and "socket address" in error["message"]
    assert "XDG_RUNTIME_DIR" in error["hint"]


def test_the_fallback_socket_lives_in_the_users_runtime_folder(long_home: Path, runtime_dir: Path, run_wardian) -> None:
    env = {"WARDIAN_HOME": str(long_home)}
    started = run_wardian("host", "start", env=env)
    try:
        assert started.returncode == 0, started.stderr
        socket_file = Path(started.json()["host"]["socket"])
        assert socket_file.parent == runtime_dir / "wardian"
        assert socket_file.parent.stat().st_mode & 0o777 == 0o700
        assert socket_file.stat().st_mode & 0o777 == 0o600
        assert run_wardian("host", "status", env=env).json()["host"]["socket"] == str(socket_file)
    finally:
        run_wardian("host", "stop", env=env)


def test_a_planted_symlink_is_refused_by_the_host_and_the_cli(
    long_home: Path, runtime_dir: Path, tmp_path: Path, run_wardian
) -> None:
    # The worst case for a check that follows links: the target is a folder of this user, 0700.
    target = tmp_path / "elsewhere"
    target.mkdir(mode=0o700)
    (runtime_dir / "wardian").symlink_to(target)
    env = {"WARDIAN_HOME": str(long_home)}
    started = run_wardian("host", "start", env=env)
    assert started.returncode == 1
    error = started.error()
    assert error["code"] == "unauthorized" and "symbolic link" in error["message"]
    assert error["hint"] and error["details"]["path"] == str(runtime_dir / "wardian")
    assert list(target.iterdir()) == []  # no socket was made through the link
    listed = run_wardian("agent", "list", env=env)
    assert listed.returncode == 1 and listed.error()["code"] == "unauthorized"


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another uid needs root")
def test_a_folder_of_another_user_is_refused(long_home: Path, runtime_dir: Path, run_wardian) -> None:
    planted = runtime_dir / "wardian"
    planted.mkdir(mode=0o700)
    os.chown(planted, 4242, 4242)
    started = run_wardian("host", "start", env={"WARDIAN_HOME": str(long_home)})
    assert started.returncode == 1
    error = started.error()
    assert error["code"] == "unauthorized" and "uid 4242" in error["message"]


@pytest.mark.parametrize(
    ("mode", "others_may_read", "refused"),
    [(0o755, True, False), (0o775, True, True), (0o755, False, True), (0o700, False, False)],
)
def test_a_folder_others_may_enter_or_write_is_refused(
    tmp_path: Path, mode: int, others_may_read: bool, refused: bool
) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    folder.chmod(mode)
    if not refused:
        endpoint.refuse_unless_private(folder, others_may_read=others_may_read)
        return
    with pytest.raises(WardianError) as caught:
        endpoint.refuse_unless_private(folder, others_may_read=others_may_read)
    assert caught.value.code == "unauthorized" and f"{mode:04o}" in caught.value.message


def test_a_run_folder_that_is_a_symlink_is_refused(wardian_home: Path, tmp_path: Path, run_wardian) -> None:
    target = tmp_path / "elsewhere"
    target.mkdir(mode=0o700)
    (wardian_home / "run").symlink_to(target)
    started = run_wardian("host", "start")
    assert started.returncode == 1
    assert started.error()["code"] == "unauthorized" and "symbolic link" in started.error()["message"]
    assert list(target.iterdir()) == []


def test_a_cli_with_another_runtime_folder_finds_the_host_of_a_long_home(
    long_home: Path, runtime_dir: Path, tmp_path: Path, run_wardian
) -> None:
    """The socket's place is recorded in the home, so it does not hang on each process's XDG_RUNTIME_DIR."""
    other_runtime = runtime_dir.with_name(runtime_dir.name + "-other")
    other_runtime.mkdir(mode=0o700)
    env = {"WARDIAN_HOME": str(long_home)}
    started = run_wardian("host", "start", env=env)
    try:
        assert started.returncode == 0, started.stderr
        socket_file = started.json()["host"]["socket"]
        elsewhere = run_wardian("host", "status", env=env | {"XDG_RUNTIME_DIR": str(other_runtime)})
        assert elsewhere.returncode == 0, elsewhere.stderr
        assert elsewhere.json()["host"]["socket"] == socket_file
        assert list(other_runtime.iterdir()) == []
    finally:
        run_wardian("host", "stop", env=env)
    gone = run_wardian("host", "status", env=env | {"XDG_RUNTIME_DIR": str(other_runtime)})
    assert gone.returncode == 6 and gone.error()["code"] == "app_not_running"
