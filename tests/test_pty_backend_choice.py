"""Which backend the host takes, and what it refuses (wardian_core.pty_backend)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from wardian_core import pty_backend
from wardian_core.errors import WardianError
from wardian_host.terminal.windows import shim_argv


@pytest.fixture
def linux_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pty_backend, "linux_means_missing", lambda: "this is darwin, not Linux")


def test_unset_takes_linux_where_its_means_exist() -> None:
    assert pty_backend.linux_means_missing() is None  # this test machine is Linux with pidfd
    assert pty_backend.chosen_backend({}) == "linux"
    assert pty_backend.chosen_backend({"WARDIAN_PTY_BACKEND": " "}) == "linux"


def test_unset_takes_the_portable_backend_where_linux_means_are_missing(linux_missing: None) -> None:
    assert pty_backend.chosen_backend({}) == "ptyprocess"
    assert pty_backend.portable({})


def test_either_backend_can_be_forced_on_linux() -> None:
    assert pty_backend.chosen_backend({"WARDIAN_PTY_BACKEND": "ptyprocess"}) == "ptyprocess"
    assert pty_backend.chosen_backend({"WARDIAN_PTY_BACKEND": "linux"}) == "linux"


def test_forcing_linux_where_it_cannot_run_is_not_supported_with_the_reason(linux_missing: None) -> None:
    with pytest.raises(WardianError) as raised:
        pty_backend.chosen_backend({"WARDIAN_PTY_BACKEND": "linux"})
    assert raised.value.code == "not_supported"
    assert raised.value.details["reason"] == "this is darwin, not Linux"
    assert raised.value.hint is not None and "ptyprocess" in raised.value.hint


def test_windows_has_no_backend_yet(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "platform", "win32")
    with pytest.raises(WardianError) as raised:
        pty_backend.chosen_backend({})
    assert raised.value.code == "not_supported" and "WSL" in (raised.value.hint or "")


def test_wardian_host_start_on_windows_is_a_not_supported_envelope(wardian_home: Path) -> None:
    """The real command, its platform made Windows once imported: nothing is started or written."""
    script = "import sys; from wardian_host.cli import main; sys.platform = 'win32'; main(['host', 'start'])"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=os.environ, timeout=60)
    assert done.returncode == 1 and done.stdout == ""
    assert '"code": "not_supported"' in done.stderr and "docs/platforms.md" in done.stderr
    assert list(wardian_home.iterdir()) == []


@pytest.mark.parametrize(
    ("executable", "argv"),
    [
        (r"C:\npm\claude.cmd", ["cmd", "/d", "/c", r"C:\npm\claude.cmd", "--resume", "x"]),
        (r"C:\npm\CODEX.BAT", ["cmd", "/d", "/c", r"C:\npm\CODEX.BAT", "--resume", "x"]),
        (r"C:\tools\opencode.exe", [r"C:\tools\opencode.exe", "--resume", "x"]),
    ],
)
def test_a_windows_batch_shim_runs_through_cmd_without_autorun(executable: str, argv: list[str]) -> None:
    assert shim_argv(executable, ["--resume", "x"]) == argv
