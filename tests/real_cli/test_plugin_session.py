"""How the real-CLI plugin treats a whole pytest session (runs child pytest sessions; no CLI)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import real_cli_plugin

SUPPORT = Path(real_cli_plugin.__file__).resolve().parent

SAMPLE_TESTS = """
import socket
import pytest

def test_ordinary():
    pass

@pytest.mark.real_cli
def test_sees_only_loopback():
    assert [name for _, name in socket.if_nameindex()] == ["lo"]

@pytest.mark.real_cli
def test_fails_when_asked():
    import os
    assert os.environ.get("SAMPLE_SHOULD_FAIL") != "1"
"""


def with_an_interface_besides_loopback(command: list[str]) -> list[str]:
    """`command` in a network namespace of its own holding a veth pair beside `lo`, so the
    sample session sees a network to leave even when this suite already runs in a loopback-only
    namespace (as `dev.py test` does): the plugin's move is then observable."""
    add_pair = "ip link add wtest0 type veth peer name wtest1"
    return ["unshare", "--net", "--", "sh", "-c", f'{add_pair} && exec "$@"', "sh", *command]


def run_sample_session(tmp_path: Path, *extra_args: str, **extra_env: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_sample.py").write_text(SAMPLE_TESTS)
    env = {key: value for key, value in os.environ.items() if not key.startswith("WARDIAN_")}
    env.update(PYTHONPATH=str(SUPPORT), **extra_env)
    command = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "real_cli_plugin",
        "-p",
        "no:cacheprovider",
        "-q",
        *extra_args,
        "--rootdir",
        str(tmp_path),
        str(tmp_path / "test_sample.py"),
    ]
    if os.geteuid() == 0 and shutil.which("ip") is not None:
        command = with_an_interface_besides_loopback(command)
    return subprocess.run(
        command,
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_skip_variable_skips_real_cli_tests_and_runs_the_others(tmp_path):
    completed = run_sample_session(tmp_path, WARDIAN_SKIP_REAL_CLI="1")

    assert completed.returncode == 0, completed.stdout
    assert "1 passed, 2 skipped" in completed.stdout


def test_real_cli_tests_run_only_inside_a_loopback_namespace(tmp_path):
    completed = run_sample_session(tmp_path)

    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "3 passed" in completed.stdout


def test_under_xdist_the_whole_session_moves_into_the_namespace_before_its_workers(tmp_path):
    # A worker cannot re-run itself (its channel to the controller would be lost), and the
    # controller never collects: without the move, the real-CLI tests would fail in every worker.
    completed = run_sample_session(tmp_path, "-n", "2")

    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "workers about to start" in completed.stdout
    assert "3 passed" in completed.stdout


def test_exit_code_of_the_session_reflects_a_failing_real_cli_test(tmp_path):
    completed = run_sample_session(tmp_path, SAMPLE_SHOULD_FAIL="1")

    assert completed.returncode == 1, completed.stdout + completed.stderr
    assert "1 failed, 2 passed" in completed.stdout


def test_namespace_problem_names_a_missing_unshare(monkeypatch, tmp_path, pytestconfig):
    monkeypatch.setenv("PATH", str(tmp_path))

    assert "`unshare` (util-linux) is not installed" in real_cli_plugin.namespace_problem(pytestconfig)


def test_namespace_problem_reports_why_unshare_failed(monkeypatch, tmp_path, pytestconfig):
    fake = tmp_path / "unshare"
    fake.write_text("#!/bin/sh\necho 'unshare failed: Operation not permitted' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}{os.pathsep}{os.environ['PATH']}")

    problem = real_cli_plugin.namespace_problem(pytestconfig)

    assert problem is not None and "Operation not permitted" in problem


def test_missing_node_fails_with_the_install_command_and_the_opt_out(monkeypatch, tmp_path):
    import real_cli_fixtures

    monkeypatch.setenv("PATH", str(tmp_path))

    message = real_cli_fixtures.missing_install_message("gemini")

    assert message is not None
    assert "python3 scripts/install_clis.py" in message and "WARDIAN_SKIP_REAL_CLI=1" in message
