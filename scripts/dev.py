"""Set up a development environment and run Wardian's main job or its tests.

    python3 scripts/dev.py demo    # set up, then show agents in a demo home
    python3 scripts/dev.py test    # set up, then run the checks and every test suite in the repo
    python3 scripts/dev.py check   # set up, then run only the checks (ruff lint and format, mypy)
    python3 scripts/dev.py mypy    # mypy alone in the existing .venv (the pre-commit hook)
    python3 scripts/dev.py drift   # set up, then run the real-CLI suite on the newest published CLIs
    python3 scripts/dev.py durations  # record each test's seconds from the last `test` run, for scheduling
    python3 scripts/dev.py lock    # record the versions .venv holds in scripts/dev-constraints.txt

Needs only python3 (3.11+): it makes `.venv/` beside the repo, installs `wardian`
and every provider package under `providers/` into it (editable), and runs there.
"""

import os
import shutil
import subprocess
import sys
import threading
import time
import venv
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import cast

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from install_clis import MACHINE_CACHE  # noqa: E402  # a sibling script, found once scripts/ is on the path

VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PYTHON = BIN / "python"


PRINTING = threading.Lock()


def run(*argv: str | Path, env: dict[str, str] | None = None, check: bool = True) -> int:
    print("+", " ".join(str(a) for a in argv), flush=True)
    return subprocess.run([str(a) for a in argv], cwd=ROOT, env=env, check=check).returncode


def run_captured(*argv: str | Path, env: dict[str, str] | None = None) -> tuple[int, str]:
    """`run` with its output kept, not printed: for a step beside another whose output streams."""
    command = [str(a) for a in argv]
    completed = subprocess.run(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return completed.returncode, f"+ {' '.join(command)}\n" + completed.stdout


def run_whole(*argv: str | Path, check: bool = True) -> int:
    """`run`, its output printed in one piece once it ends: for a step beside others."""
    code, output = run_captured(*argv)
    with PRINTING:
        print(output, end="", flush=True)
    if check and code != 0:
        raise subprocess.CalledProcessError(code, [str(a) for a in argv])
    return code


def in_background(step: Callable[[], object]) -> "Future[object]":
    """`step` in a thread of its own; its result (or its error) is the future's."""
    executor = ThreadPoolExecutor(max_workers=1)
    try:
        return executor.submit(step)
    finally:
        executor.shutdown(wait=False)


def provider_packages() -> list[Path]:
    return sorted(p.parent for p in (ROOT / "providers").glob("*/pyproject.toml"))


# Every package the development environment installs, at the version the last green run used:
# pyproject's ranges take each new release, and one (tomlkit 0.15.3) broke a test in the middle
# of a session. So the checks and tests install what was proven, and a dependency moves on
# purpose: `dev.py lock` records what .venv holds now, after a green run on the newer versions.
CONSTRAINTS = ROOT / "scripts" / "dev-constraints.txt"
LOCK_HEADER = """\
# The versions `python3 scripts/dev.py` installs into .venv (pip's constraints: pins for what
# is installed, installing nothing by itself). Written by `python3 scripts/dev.py lock` from
# what .venv holds; run it after a green `dev.py test` on newer versions.
"""


def set_up() -> None:
    if sys.version_info < (3, 11):  # noqa: UP036 - this script is what tells users of older Pythons
        raise SystemExit(f"Wardian needs Python 3.11 or newer; this is {sys.version.split()[0]}")
    if not PYTHON.exists():
        venv.EnvBuilder(with_pip=True).create(VENV)
    editable = [arg for package in [ROOT, *provider_packages()] for arg in ("-e", str(package))]
    pinned = ["-c", str(CONSTRAINTS)] if CONSTRAINTS.exists() else []
    install = [PYTHON, "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *pinned]
    run(*install, "-e", f"{ROOT}[test]", *editable)


def pinned_lines(frozen: str) -> list[str]:
    """`name==version` lines of `pip freeze --all` output, without Wardian's own packages or pip."""
    own = {"wardian", *(package.name for package in provider_packages())}
    lines = [line.strip() for line in frozen.splitlines() if "==" in line and not line.startswith("#")]
    return sorted(
        (line for line in lines if line.split("==")[0].lower().replace("_", "-") not in own | {"pip"}),
        key=str.lower,
    )


def lock() -> int:
    """Record the versions .venv holds (no set-up first: it would put the recorded ones back)."""
    if not PYTHON.exists():
        print("dev.py lock: no .venv to read; run `python3 scripts/dev.py check` first", file=sys.stderr)
        return 1
    freeze = [PYTHON, "-m", "pip", "freeze", "--all", "--exclude-editable", "--disable-pip-version-check"]
    pins = pinned_lines(subprocess.run(freeze, capture_output=True, text=True, check=True).stdout)
    written = CONSTRAINTS.with_name(CONSTRAINTS.name + ".new")  # whole or not at all
    written.write_text(LOCK_HEADER + "\n".join(pins) + "\n")
    written.replace(CONSTRAINTS)
    print(f"dev.py lock: {len(pins)} versions recorded in {CONSTRAINTS}")
    return 0


def demo() -> int:
    set_up()
    return run(PYTHON, ROOT / "scripts" / "demo.py", check=False)


# Commands some tests run, and the Debian package of each: installed where missing, so no test
# is skipped for want of them (CI runs as root on Debian).
# chromium (with its driver) is the web view's browser tests', driven by Playwright at /usr/bin/chromium.
# asciinema plays the recordings `wardian agent recording` exports (tests/e2e/test_recordings.py).
SYSTEM_PACKAGES = {
    "zsh": "zsh",
    "chromium": "chromium",
    "chromedriver": "chromium-driver",
    "sshd": "openssh-server",
    "asciinema": "asciinema",
    "tmux": "tmux",  # the real terminal `wardian tui`'s end-to-end test and benchmark run it in
}


def install_system_packages() -> None:
    missing = sorted({package for command, package in SYSTEM_PACKAGES.items() if shutil.which(command) is None})
    if not missing:
        return
    if shutil.which("apt-get") is None or os.geteuid() != 0:
        print(f"dev.py: not installing {', '.join(missing)} (needs root and apt-get); their tests skip", flush=True)
        return
    apt = os.environ | {"DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing]
    if run(*install, env=apt, check=False) != 0:  # a stale package list: fetch it once, then again
        run("apt-get", "update", "-qq", env=apt, check=False)
        run(*install, env=apt, check=False)


def install_real_clis() -> None:
    installer = ROOT / "scripts" / "install_clis.py"
    if os.environ.get("WARDIAN_SKIP_REAL_CLI") == "1" or not installer.exists():
        return
    # The installer needs only the standard library: it runs before the venv is made, beside it.
    run_whole(sys.executable, installer)


def type_checked_packages() -> list[Path]:
    """wardian_core, wardian_host, the import package of every provider distribution, and the
    example provider (what a third party copies is held to the same types)."""
    sources = [*provider_packages(), ROOT / "tests" / "example_provider"]
    providers = [package for src in sources for package in sorted((src / "src").glob("*/__init__.py"))]
    return [ROOT / "wardian_core", ROOT / "wardian_host", *(package.parent for package in providers)]


# mypy's caches outlive a clone: a clean clone checked every module from none, about 50 s of CPU
# on two cores beside the set-up, where a warm cache takes 3 s. mypy trusts a cached module only
# while its source hashes the same (a new path or mtime costs a hash), so clones and branches
# share them safely; its cache files are written whole. The strict run and the tests' runs each
# keep their own: their options differ, and one cache would be rewritten by each in turn.
MYPY_CACHES = MACHINE_CACHE / "mypy"


def checks() -> dict[str, list[str | Path]]:
    """The checks `.ci/run` runs before the tests; `.pre-commit-config.yaml` runs the same."""
    tests_config = ["--config-file", ROOT / "tests" / "mypy.ini", "--cache-dir", MYPY_CACHES / "tests"]
    return {
        "ruff check": [BIN / "ruff", "check", ROOT],
        "ruff format": [BIN / "ruff", "format", "--check", ROOT],
        "mypy": [BIN / "mypy", "--cache-dir", MYPY_CACHES / "packages", *type_checked_packages()],
        # The tests under mypy's default checks, one run per folder: the providers' test folders
        # share module names (conftest, test_parser) that one run cannot tell apart.
        **{
            f"mypy {folder}": [BIN / "mypy", *tests_config, ROOT / folder]
            for folder in ["tests", *(package.relative_to(ROOT) / "tests" for package in provider_packages())]
        },
        "commit subjects": [PYTHON, ROOT / "scripts" / "commit_msg_check.py", "--branch"],
    }


def run_checks(names: list[str] | None = None) -> int:
    """Every check (or those named), even after one fails, so a run reports all there is to fix.
    The tests' mypy runs (one cache, `.mypy_cache/tests`, so one after another) go beside the
    rest, whose mypy keeps its own cache: two lanes for the two cores."""
    chosen = {name: argv for name, argv in checks().items() if names is None or name in names}
    tests_lane = [name for name in chosen if name.startswith("mypy ")]

    def lane(names: list[str]) -> list[str]:
        return [name for name in names if run_whole(*chosen[name], check=False) != 0]

    beside = in_background(lambda: lane(tests_lane))
    failed = lane([name for name in chosen if name not in tests_lane])
    failed += beside.result()
    if failed:
        print(f"checks failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


def check() -> int:
    set_up()
    return run_checks()


# The portable POSIX backend, which a Linux host would otherwise never take, is proven on every
# change by a second pass of the tests that exercise each of its seams (exits by SIGCHLD, the
# trampoline, callers held by start time, polling followers): `tests/support/portable_pass.py` names
# them, docs/testing.md lists them. The rest of the code is the same on both backends.
def portable_backend_suites() -> list[str]:
    import importlib.util

    spec = importlib.util.spec_from_file_location("portable_pass", ROOT / "tests" / "support" / "portable_pass.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    selection: list[str] = module.selection()
    return selection


# Every run ends naming its slowest tests and its total, so a test that starts paying for a
# wait shows at once; docs/testing.md says why each of the slowest needs its time. Each pass
# writes a JUnit report, so the ten slowest are named across both passes.
SLOWEST_SHOWN = 10
REPORTS = ROOT / ".cache" / "test-reports"


def slowest_tests(reports: list[Path], count: int = SLOWEST_SHOWN) -> list[tuple[float, str]]:
    """(seconds, pass and test id) of the `count` slowest test cases in the JUnit `reports`."""
    import xml.etree.ElementTree as ElementTree

    timed = [
        (float(case.get("time") or 0), f"[{report.stem}] {case.get('classname')}::{case.get('name')}")
        for report in reports
        if report.exists()
        for case in ElementTree.parse(report).iter("testcase")
    ]
    return sorted(timed, reverse=True)[:count]


def print_summary(started: float, reports: list[Path]) -> None:
    print(f"\nslowest {SLOWEST_SHOWN} tests:", flush=True)
    for seconds, test_id in slowest_tests(reports):
        print(f"  {seconds:8.1f} s  {test_id}")
    for report in reports:  # so a pass whose report went missing is not silently left out
        if not report.exists():
            print(f"  ({report} was not written: its pass's tests are not among these)")
    # Whole seconds first: 18 min 59.6 s is 19 min 0 s, never "18 min 60 s".
    minutes, seconds = divmod(round(time.monotonic() - started), 60)
    print(f"total wall time: {minutes} min {seconds} s (set-up, checks, installs and every pass)", flush=True)


# The suite mostly waits (a host starting, a CLI drawing its screen, a quiet timer), so it runs
# in more workers than the machine has cores: on 2 cores, 4 workers cut the wall time by more
# than half. `worksteal` hands a slow file's tests to idle workers, and each worker's share
# starts with its longest tests (tests/support/duration_order.py, from the durations that
# `dev.py durations` records), so no slow test starts last. WARDIAN_TEST_WORKERS=0 runs
# everything in one process (pytest-xdist's own `-n 0`), one pass after the other.
def test_workers() -> int:
    return int(os.environ.get("WARDIAN_TEST_WORKERS", "4"))


def parallel_options(workers: int) -> list[str]:
    return ["-n", str(workers), "--dist", "worksteal"] if workers > 0 else []


# The portable pass waits even more: run after the first pass it kept 2 cores 46 % busy for its
# 3 min 18 s (its longest tests are real CLIs' turns and a host's absence waited out). So it runs
# beside the first pass, in workers of its own, and its output is printed once the first pass's is.
PORTABLE_WORKERS = 2


# A run starts thousands of interpreters (hosts, terminal servers, `wardian` commands, pytest's
# workers): each must find Wardian's modules and the tests' rewritten asserts already compiled.
# A machine that exports PYTHONDONTWRITEBYTECODE (the machines here do) would have every
# one of them compile from source again: about 0.15 s of CPU per host start, 0.1 s per command
# and 4.7 s per pytest worker, a minute or more of a run on two cores.
def suite_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = os.environ | (extra or {})
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


# On a clean clone each pytest worker would rewrite the tests' asserts and compile every module
# it collects for itself: four workers doing one job, 19 s before the first pass's first test on
# 2 cores. One collection beside the checks writes those caches once (about 10 s of one core);
# the workers then read them (3 s).
def warm_test_caches() -> None:
    collect = [PYTHON, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
    # Its failures are the first pass's to report, with the tests that would not collect.
    subprocess.run(collect, cwd=ROOT, env=suite_environment(), capture_output=True, check=False)


def pytest_argv(pytest_args: list[str], report: Path | None, workers: int) -> list[str | Path]:
    junit = [f"--junitxml={report}"] if report is not None else []
    return [PYTHON, "-m", "pytest", *junit, *parallel_options(workers), *pytest_args]


def hollow_is_failure(code: int) -> int:
    if code == 5:  # pytest found no test: a hollow run is a failure here
        print("pytest collected no tests: failing the run", file=sys.stderr)
        return 1
    return code


def pytest_run(pytest_args: list[str], report: Path | None = None) -> int:
    argv = pytest_argv(pytest_args, report, test_workers())
    return hollow_is_failure(run(*argv, env=suite_environment(), check=False))


def portable_pass(report: Path, workers: int) -> tuple[int, str]:
    """The portable backend's pass: its exit code and its whole output, to print when asked."""
    argv = pytest_argv(portable_backend_suites(), report, workers)
    code, output = run_captured(*argv, env=suite_environment({"WARDIAN_PTY_BACKEND": "ptyprocess"}))
    return code, "+ again under WARDIAN_PTY_BACKEND=ptyprocess\n" + output


def test(pytest_args: list[str]) -> int:
    """Every suite; with no arguments, the end-to-end suites again under the portable backend."""
    started = time.monotonic()
    # The pinned CLIs download while the venv is made and the checks run (about 20 s here).
    installing = in_background(install_real_clis)
    set_up()
    warming = in_background(warm_test_caches if not pytest_args else lambda: None)
    checked = run_checks()
    installing.result()
    warming.result()
    if checked != 0:
        return 1
    install_system_packages()
    reports = [REPORTS / "main.xml", REPORTS / "portable.xml"]
    for stale in reports:  # a pass that fails before writing must not be read from an older run
        stale.unlink(missing_ok=True)
    if pytest_args:  # a chosen selection runs once, as asked
        code = pytest_run(pytest_args, report=reports[0])
        print_summary(started, reports[:1])
        return code
    workers = test_workers()
    if workers == 0:
        code = pytest_run([], report=reports[0])
        portable_code, output = portable_pass(reports[1], 0)
    else:
        beside = in_background(lambda: portable_pass(reports[1], min(PORTABLE_WORKERS, workers)))
        code = pytest_run([], report=reports[0])
        portable_code, output = cast(tuple[int, str], beside.result())
    print(output, end="", flush=True)
    print_summary(started, reports)
    return code or hollow_is_failure(portable_code)


def durations() -> int:
    """Record each test's seconds from the last full run's JUnit reports, for the scheduling."""
    sys.path.insert(0, str(ROOT / "tests" / "support"))
    from duration_order import record_durations

    reports = [REPORTS / "main.xml", REPORTS / "portable.xml"]
    if not all(report.exists() for report in reports):
        print(f"dev.py durations: run `dev.py test` first; it writes {', '.join(map(str, reports))}", file=sys.stderr)
        return 1
    print(f"dev.py durations: {record_durations(reports)} tests recorded", flush=True)
    return 0


def drift(pytest_args: list[str]) -> int:
    set_up()
    sys.path.insert(0, str(ROOT / "scripts"))
    from drift import drift as run_drift

    return run_drift(PYTHON, pytest_args)


def main() -> int:
    commands = {
        "demo": demo,
        "check": check,
        "test": lambda: test(sys.argv[2:]),
        "mypy": lambda: run_checks([name for name in checks() if name.startswith("mypy")]),  # for pre-commit
        "drift": lambda: drift(sys.argv[2:]),
        "durations": durations,
        "lock": lock,
    }
    if len(sys.argv) < 2 or sys.argv[1] not in commands:
        print(__doc__, file=sys.stderr)
        return 2
    return commands[sys.argv[1]]()


if __name__ == "__main__":
    sys.exit(main())
