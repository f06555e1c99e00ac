"""What Wardian alone writes in its home is never written through a link planted there
(issue 30, item 16): the lock files, the host's log and its folder, the launcher, the shell
start-up files. A link is refused (`unauthorized`) or replaced; its target stays as it was."""

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from wardian_core import paths
from wardian_core.db import open_writer
from wardian_core.errors import WardianError
from wardian_host.daemon.home_modes import PrivateLogHandler
from wardian_host.daemon.host_lock import HostLock, StartLock
from wardian_host.daemon.launcher_script import write_launcher
from wardian_host.daemon.process import configure_logging, log_file
from wardian_host.providers.builtin_generic.shell_startup import write_startup
from wardian_host.testing.contexts import spawn_context
from wardian_host.testing.reaping import reap_home

VICTIM_TEXT = "a file of the user's that Wardian must not touch\n"


@pytest.fixture
def victim(tmp_path: Path) -> Path:
    path = tmp_path / "victim"
    path.write_text(VICTIM_TEXT)
    return path


def _plant(link: Path, target: Path) -> Path:
    link.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    link.symlink_to(target)
    return link


def _refused(action: Callable[[], Any], link: Path) -> None:
    with pytest.raises(WardianError) as refused:
        action()
    assert refused.value.code == "unauthorized" and refused.value.details["path"] == str(link)
    assert "symbolic link" in refused.value.message or "symbolic link" in str(refused.value.details)


@pytest.mark.parametrize("lock_class", [HostLock, StartLock])
def test_a_lock_file_that_is_a_link_is_refused(wardian_home: Path, victim: Path, lock_class: type) -> None:
    lock = lock_class(wardian_home)
    _plant(lock.path, victim)
    _refused(lock.acquire, lock.path)
    assert victim.read_text() == VICTIM_TEXT


def test_a_host_log_that_is_a_link_is_refused(wardian_home: Path, victim: Path) -> None:
    link = _plant(log_file(wardian_home), victim)
    _refused(lambda: PrivateLogHandler(link, maxBytes=1024, backupCount=1), link)
    assert victim.read_text() == VICTIM_TEXT


def test_a_logs_folder_that_is_a_link_is_refused(wardian_home: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(mode=0o700)
    link = _plant(paths.logs_dir(wardian_home), elsewhere)
    _refused(lambda: configure_logging(wardian_home, foreground=False), link)
    assert list(elsewhere.iterdir()) == []


def test_a_launcher_that_is_a_link_is_replaced_not_written_through(wardian_home: Path, victim: Path) -> None:
    link = _plant(paths.bin_dir(wardian_home) / "wardian", victim)
    _plant(paths.bin_dir(wardian_home) / "wardian.tmp", victim)  # where an older Wardian wrote first
    assert write_launcher(wardian_home) == link
    assert not link.is_symlink() and link.read_text().startswith("#!/bin/sh\n")
    assert victim.read_text() == VICTIM_TEXT


def test_a_shell_start_up_file_that_is_a_link_is_replaced_not_written_through(tmp_path: Path, victim: Path) -> None:
    ctx = spawn_context(tmp_path, "generic", extra_args=["bash"])
    link = _plant(ctx.agent_dir / "shell" / "bash" / "bashrc", victim)
    write_startup(ctx)
    assert not link.is_symlink() and "133" in link.read_text()
    assert victim.read_text() == VICTIM_TEXT


def test_a_shell_start_up_folder_that_is_a_link_is_refused(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    ctx = spawn_context(tmp_path, "generic", extra_args=["zsh"])
    link = _plant(ctx.agent_dir / "shell", elsewhere)
    _refused(lambda: write_startup(ctx), link)
    assert list(elsewhere.iterdir()) == []


def test_a_settings_lock_that_is_a_link_is_refused(
    wardian_home: Path, victim: Path, run_wardian: Callable[..., Any]
) -> None:
    link = _plant(paths.run_dir(wardian_home) / "settings.lock", victim)
    result = run_wardian("settings", "set", "sessions.regular", "fresh")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.error()["code"] == "unauthorized" and result.error()["details"]["path"] == str(link)
    assert victim.read_text() == VICTIM_TEXT
    assert not paths.settings_file(wardian_home).exists()


def test_host_start_with_a_linked_host_log_is_refused_and_the_target_untouched(
    wardian_home: Path, victim: Path, run_wardian: Callable[..., Any]
) -> None:
    _plant(log_file(wardian_home), victim)
    try:
        result = run_wardian("host", "start")
    finally:
        reap_home(wardian_home)  # a host that started anyway (the bug) is not left running
    assert result.returncode == 1 and "Traceback" not in result.stderr
    error = json.loads(result.stderr)["error"]
    assert error["code"] == "unauthorized" and error["details"]["path"] == str(log_file(wardian_home))
    assert victim.read_text() == VICTIM_TEXT and os.path.islink(log_file(wardian_home))


@pytest.mark.parametrize("name", ["state.db", "state.db-wal", "state.db-shm"])
def test_a_state_db_or_its_journal_that_is_a_link_is_refused(wardian_home: Path, victim: Path, name: str) -> None:
    link = _plant(wardian_home / name, victim)
    _refused(lambda: open_writer(wardian_home), link)
    assert victim.read_text() == VICTIM_TEXT
