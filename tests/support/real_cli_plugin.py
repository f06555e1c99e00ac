"""pytest plugin: the `real_cli` marker and the loopback-only network namespace it runs in.

The real provider CLIs try to reach their vendors (telemetry, update checks, sign-in), so a
session that selects `real_cli` tests is re-run, whole and with the same arguments, under
`unshare --net`: the host, the CLIs and the model server then share a loopback interface and
nothing can leave the machine. The outer process is replaced by the inner one (exec), so the
output, the exit code and any report files are the inner session's alone. Where no namespace
can be made the `real_cli` tests fail with the reason; they never run with network access.
`WARDIAN_SKIP_REAL_CLI=1` skips them instead, and every other test still runs.
"""

from __future__ import annotations

import fcntl
import os
import shlex
import shutil
import socket
import struct
import subprocess
import sys

import pytest

pytest_plugins = ["real_cli_fixtures"]

MARKER = "real_cli"
SKIP_VARIABLE = "WARDIAN_SKIP_REAL_CLI"
# Set on the re-run session, so it can tell a deliberate namespace from an accidental one.
INSIDE_VARIABLE = "WARDIAN_LOOPBACK_NETNS"

_problem_key = pytest.StashKey[str]()

_SIOCGIFFLAGS = 0x8913
_SIOCSIFFLAGS = 0x8914
_IFF_UP = 0x1


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--record-cli-transcripts",
        action="store_true",
        default=False,
        help="write what the real CLIs print to tests/real_cli/recordings/<cli>/",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}: runs a real provider CLI against the loopback model server, only inside a "
        f"loopback-only network namespace ({SKIP_VARIABLE}=1 skips)",
    )
    if os.environ.get(INSIDE_VARIABLE) == "1" and in_loopback_namespace():
        bring_loopback_up()
    elif is_xdist_controller(config):
        enter_namespace_before_workers(config)


def is_xdist_controller(config: pytest.Config) -> bool:
    """True in the process of `pytest -n N` that starts the workers (N > 0), not in a worker."""
    workers = config.getoption("numprocesses", default=None)
    return bool(workers) and not hasattr(config, "workerinput")


def enter_namespace_before_workers(config: pytest.Config) -> None:
    """Under pytest-xdist the controller never collects, so it cannot see which tests are
    `real_cli`, and a worker cannot re-run itself without losing its channel: the whole
    session moves into the namespace before any worker starts. Every test is offline, so
    the others lose nothing there."""
    if in_loopback_namespace() or config.option.collectonly or os.environ.get(SKIP_VARIABLE) == "1":
        return
    if os.environ.get(INSIDE_VARIABLE) == "1":
        return  # the inner session still sees other interfaces: the tests' setup hook says why
    problem = namespace_problem(config)
    if problem is not None:
        config.stash[_problem_key] = problem
        return
    rerun_in_namespace(config, None)


def in_loopback_namespace() -> bool:
    """True when the only network interface this process can see is `lo`."""
    return [name for _, name in socket.if_nameindex()] == ["lo"]


def bring_loopback_up() -> None:
    """A new network namespace starts with `lo` down; the model server needs it up."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        request = struct.pack("16sH22x", b"lo", 0)
        flags = struct.unpack("16sH22x", fcntl.ioctl(probe, _SIOCGIFFLAGS, request))[1]
        if not flags & _IFF_UP:
            fcntl.ioctl(probe, _SIOCSIFFLAGS, struct.pack("16sH22x", b"lo", flags | _IFF_UP))


def unshare_command() -> list[str]:
    # Without root, a user namespace mapping us to root is what lets us create the network one.
    if os.geteuid() == 0:
        return ["unshare", "--net", "--"]
    return ["unshare", "--user", "--map-root-user", "--net", "--"]


def namespace_problem(config: pytest.Config) -> str | None:
    """Why this session cannot be re-run in a loopback-only namespace, or None when it can."""
    if config.invocation_params.plugins:
        return (
            "real_cli: this session was started by pytest.main() with plugin objects, which "
            "cannot be passed to a re-run; start pytest from the command line instead."
        )
    if shutil.which("unshare") is None:
        return "real_cli: `unshare` (util-linux) is not installed, so no loopback-only namespace can be made."
    trial = subprocess.run([*unshare_command(), "true"], capture_output=True, text=True)
    if trial.returncode != 0:
        return (
            f"real_cli: `{' '.join(unshare_command())} true` failed ({trial.stderr.strip()}); "
            "a loopback-only network namespace needs root or unprivileged user namespaces."
        )
    return None


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # trylast: `-m` and `-k` have deselected by now, so `items` is what will run.
    selected = [item for item in items if item.get_closest_marker(MARKER)]
    if not selected:
        return
    if os.environ.get(SKIP_VARIABLE) == "1":
        skip = pytest.mark.skip(reason=f"{SKIP_VARIABLE}=1: real-CLI tests skipped on request")
        for item in selected:
            item.add_marker(skip)
        return
    if in_loopback_namespace() or config.option.collectonly:
        return
    if os.environ.get(INSIDE_VARIABLE) == "1":
        config.stash[_problem_key] = (
            f"real_cli: {INSIDE_VARIABLE}=1 but this process sees network "
            "interfaces other than `lo`; refusing to re-run again."
        )
        return
    problem = namespace_problem(config)
    if problem is not None:
        config.stash[_problem_key] = problem
        return
    rerun_in_namespace(config, len(selected))


def rerun_in_namespace(config: pytest.Config, real_cli_count: int | None) -> None:
    """Replace this process with the same pytest session inside a loopback-only namespace."""
    command = [*unshare_command(), sys.executable, "-m", "pytest", *config.invocation_params.args]
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    selected = "workers about to start" if real_cli_count is None else f"{real_cli_count} real-CLI tests selected"
    message = f"real_cli: {selected}; re-running this session in a loopback-only network namespace: "
    message += shlex.join(command)
    if reporter is not None:
        reporter.write_line(message)
    else:
        print(message)
    # Hand the terminal back from pytest's capture before the new process inherits it.
    capture = config.pluginmanager.get_plugin("capturemanager")
    if capture is not None:
        capture.stop_global_capturing()
    sys.stdout.flush()
    sys.stderr.flush()
    os.chdir(config.invocation_params.dir)
    os.execvpe(command[0], command, dict(os.environ, **{INSIDE_VARIABLE: "1"}))


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker(MARKER) is None or in_loopback_namespace():
        return
    problem = item.config.stash.get(_problem_key, None)
    pytest.fail(
        problem
        or "real_cli: not inside a loopback-only network namespace; refusing to run "
        "a real provider CLI with network access.",
        pytrace=False,
    )
