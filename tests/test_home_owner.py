"""A home, and each folder in it Wardian writes into, is its caller's own: anything else is
`unauthorized`, with nothing written (issue 30, items 1 and 13)."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from wardian_core import paths
from wardian_core.errors import WardianError
from wardian_host.testing.reaping import reap_home

WARDIAN = str(Path(sys.executable).parent / "wardian")
STRANGER_UID = 65534  # "nobody": any uid but the test's own

needs_root = pytest.mark.skipif(os.getuid() != 0, reason="giving a folder to another user needs root")


def _listing(home: Path) -> dict[str, tuple[int, int]]:
    """Every path under the home with its mode and owner, to prove nothing was written."""
    found = {".": (os.lstat(home).st_mode, os.lstat(home).st_uid)}
    for path in home.rglob("*"):
        info = os.lstat(path)
        found[str(path.relative_to(home))] = (info.st_mode, info.st_uid)
    return found


@pytest.fixture
def stranger_home(wardian_home: Path) -> Path:
    """A home another user made, open to all (0777), as the issue's attacker leaves it."""
    os.chown(wardian_home, STRANGER_UID, STRANGER_UID)
    wardian_home.chmod(0o777)
    return wardian_home


def test_an_own_home_and_its_folders_pass(wardian_home: Path) -> None:
    for name in paths.WRITTEN_FOLDERS:
        (wardian_home / name).mkdir()
    paths.check_owner(wardian_home)
    paths.check_owner(wardian_home / "not-made-yet")


@needs_root
def test_a_home_another_user_owns_is_refused_before_anything_is_written(stranger_home: Path) -> None:
    before = _listing(stranger_home)
    with pytest.raises(WardianError) as refused:
        paths.ensure_home(stranger_home)
    assert refused.value.code == "unauthorized"
    assert refused.value.details == {"home": str(stranger_home), "path": str(stranger_home), "uid": os.getuid()}
    assert "WARDIAN_HOME" in (refused.value.hint or "")
    assert _listing(stranger_home) == before  # not tightened to 0700 either


@needs_root
@pytest.mark.parametrize("folder", paths.WRITTEN_FOLDERS)
def test_a_folder_of_the_home_another_user_owns_is_refused(wardian_home: Path, folder: str) -> None:
    planted = wardian_home / folder
    planted.mkdir()
    os.chown(planted, STRANGER_UID, STRANGER_UID)
    with pytest.raises(WardianError) as refused:
        paths.check_owner(wardian_home)
    assert refused.value.code == "unauthorized" and refused.value.details["path"] == str(planted)


@needs_root
def test_a_link_in_the_home_to_another_users_folder_is_refused(wardian_home: Path, tmp_path: Path) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    os.chown(theirs, STRANGER_UID, STRANGER_UID)
    (wardian_home / "bin").symlink_to(theirs)
    with pytest.raises(WardianError) as refused:
        paths.check_owner(wardian_home)
    assert refused.value.code == "unauthorized" and f"uid {STRANGER_UID}" in refused.value.message


@needs_root
@pytest.mark.parametrize(
    "command",
    [
        ("host", "start"),
        ("host", "status"),
        ("host", "logs"),
        ("agent", "list"),
        ("agent", "show", "kept"),
        ("workflow", "list"),
        ("ask", "list"),
        ("settings", "set", "sessions.regular", "fresh"),
    ],
)
def test_every_command_refuses_a_home_of_another_user(
    stranger_home: Path, run_wardian: Callable[..., Any], command: tuple[str, ...]
) -> None:
    before = _listing(stranger_home)
    result = run_wardian(*command)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    error = result.error()
    assert error["code"] == "unauthorized" and error["details"]["path"] == str(stranger_home)
    assert _listing(stranger_home) == before


@pytest.fixture
def root_only_home() -> Iterator[Path]:
    """A home of this user (0700) in a folder every user may pass through, as /home is."""
    passage = Path(tempfile.mkdtemp(prefix="wardian-owner-"))
    passage.chmod(0o711)
    home = passage / "home"
    home.mkdir(mode=0o700)
    (home / "logs").mkdir(mode=0o700)
    (home / "logs" / "host.log").write_text("private\n")
    yield home
    shutil.rmtree(passage)


@needs_root
@pytest.mark.parametrize("command", [("agent", "list"), ("host", "logs"), ("host", "status"), ("ask", "list")])
def test_another_user_pointing_at_this_home_gets_unauthorized(root_only_home: Path, command: tuple[str, ...]) -> None:
    completed = subprocess.run(
        [WARDIAN, *command],
        capture_output=True,
        text=True,
        env={**os.environ, "WARDIAN_HOME": str(root_only_home), "HOME": "/"},
        user=STRANGER_UID,
        group=STRANGER_UID,
        extra_groups=[],
        cwd="/",
    )
    assert completed.returncode == 1 and completed.stdout == "", completed.stderr
    assert "Traceback" not in completed.stderr
    error = json.loads(completed.stderr)["error"]
    assert error["code"] == "unauthorized" and error["details"]["uid"] == STRANGER_UID
    assert f"uid {os.getuid()}" in error["message"]


@needs_root
@pytest.mark.parametrize("planted", ["agents/0b7e6f3c-1111-4222-8333-444455556666", "bin/wardian"])
def test_a_host_refuses_to_start_on_an_agent_folder_or_launcher_another_user_owns(
    wardian_home: Path, run_wardian: Callable[..., Any], planted: str
) -> None:
    path = wardian_home / planted
    path.parent.mkdir(parents=True)
    if planted.startswith("agents"):
        path.mkdir()
    else:
        path.write_text("#!/bin/sh\n")
    os.chown(path, STRANGER_UID, STRANGER_UID)
    before = _listing(wardian_home)
    try:
        result = run_wardian("host", "start")
    finally:
        reap_home(wardian_home)  # a host that started anyway (the bug) is not left running
    assert result.returncode == 1 and "Traceback" not in result.stderr
    error = result.error()
    assert error["code"] == "unauthorized" and error["details"]["path"] == str(path)
    assert _listing(wardian_home) == before
