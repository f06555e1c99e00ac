"""The test command runs the checks first, over every package the issue names."""

import threading
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from script_modules import load_script

ROOT = Path(__file__).resolve().parents[1]


def _dev_script() -> ModuleType:
    return load_script("dev")


def test_checks_are_ruff_lint_ruff_format_and_mypy() -> None:
    checks = _dev_script().checks()
    assert [argv[1:3] for argv in checks.values()][:2] == [["check", ROOT], ["format", "--check"]]
    assert Path(checks["ruff check"][0]).name == "ruff"
    assert Path(checks["mypy"][0]).name == "mypy"


def test_mypy_covers_core_host_and_every_provider_package() -> None:
    argv = _dev_script().checks()["mypy"]
    assert argv[1] == "--cache-dir"
    targets = {Path(p) for p in argv[3:]}
    providers = {init.parent for init in ROOT.glob("providers/*/src/*/__init__.py")}
    assert providers, "no provider package found"
    # The example provider is what a third party copies: held to the same types.
    example = ROOT / "tests" / "example_provider" / "src" / "wardian_example"
    assert targets == {ROOT / "wardian_core", ROOT / "wardian_host", *providers, example}


def test_mypy_checks_every_test_folder_with_the_tests_config() -> None:
    checks = _dev_script().checks()
    folders = {ROOT / "tests", *ROOT.glob("providers/*/tests")}
    assert len(folders) > 1, "no provider test folder found"
    runs = {name: argv for name, argv in checks.items() if name.startswith("mypy ")}
    assert all(argv[1:3] == ["--config-file", ROOT / "tests" / "mypy.ini"] for argv in runs.values())
    # One run per folder: the providers' folders share module names one run refuses as duplicates.
    assert sorted(Path(argv[5]) for argv in runs.values()) == sorted(folders)


def test_mypys_caches_outlive_the_clone_one_for_the_strict_run_one_for_the_tests() -> None:
    dev = _dev_script()
    caches = {name: Path(argv[argv.index("--cache-dir") + 1]) for name, argv in dev.checks().items() if "mypy" in name}
    strict, tests = caches.pop("mypy"), set(caches.values())
    assert tests == {dev.MACHINE_CACHE / "mypy" / "tests"} and strict == dev.MACHINE_CACHE / "mypy" / "packages"
    assert not dev.MACHINE_CACHE.is_relative_to(ROOT), "a clean clone would start from no cache"


def test_the_pre_commit_mypy_command_runs_the_tests_checks_too(monkeypatch: pytest.MonkeyPatch) -> None:
    dev = _dev_script()
    chosen: list[str] = []

    def run_checks(names: list[str]) -> int:
        chosen.extend(names)
        return 0

    monkeypatch.setattr(dev, "run_checks", run_checks)
    monkeypatch.setattr(dev.sys, "argv", ["dev.py", "mypy"])
    assert dev.main() == 0
    assert chosen == [name for name in dev.checks() if name.split()[0] == "mypy"] and "mypy tests" in chosen


def test_test_command_stops_before_pytest_when_a_check_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    dev = _dev_script()
    ran: list[str] = []
    monkeypatch.setattr(dev, "set_up", lambda: ran.append("set_up"))
    monkeypatch.setattr(dev, "install_real_clis", lambda: ran.append("install"))
    monkeypatch.setattr(dev, "warm_test_caches", lambda: None)
    monkeypatch.setattr(dev, "run_checks", _noting(ran, "checks", answer=1))
    monkeypatch.setattr(dev, "run", _noting(ran, "pytest", answer=0))
    assert dev.test([]) == 1
    assert sorted(ran) == ["checks", "install", "set_up"], "no pytest after a failed check"


def test_the_clis_install_beside_the_set_up_and_the_checks(monkeypatch: pytest.MonkeyPatch) -> None:
    dev = _dev_script()
    began = threading.Event()
    monkeypatch.setattr(dev, "install_real_clis", began.set)
    monkeypatch.setattr(dev, "warm_test_caches", lambda: None)

    def set_up() -> None:
        assert began.wait(10), "the CLIs' install waited for the set-up"

    monkeypatch.setattr(dev, "set_up", set_up)
    monkeypatch.setattr(dev, "run_checks", lambda names=None: 1)
    assert dev.test([]) == 1


def test_the_tests_caches_warm_beside_the_checks_for_a_full_run_only(monkeypatch: pytest.MonkeyPatch) -> None:
    dev = _dev_script()
    warmed = threading.Event()
    monkeypatch.setattr(dev, "install_real_clis", lambda: None)
    monkeypatch.setattr(dev, "set_up", lambda: None)
    monkeypatch.setattr(dev, "warm_test_caches", warmed.set)

    def run_checks(names: list[str] | None = None) -> int:
        assert warmed.wait(10), "the caches' collection waited for the checks"
        return 1

    monkeypatch.setattr(dev, "run_checks", run_checks)
    assert dev.test([]) == 1
    warmed.clear()
    monkeypatch.setattr(dev, "run_checks", lambda names=None: 1)
    assert dev.test(["tests/test_db.py"]) == 1
    assert not warmed.is_set(), "a chosen selection collects only itself"


def test_the_tests_mypy_runs_beside_the_other_checks_and_every_failure_is_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    dev = _dev_script()
    checks = dev.checks()
    tests_began = threading.Event()

    def run_whole(*argv: object, check: bool = True) -> int:
        name = next(name for name, known in checks.items() if list(argv) == known)
        if name.startswith("mypy "):
            tests_began.set()
            return 1 if name == "mypy tests" else 0
        if name == "mypy":
            assert tests_began.wait(10), "the tests' mypy waited for the packages'"
        return 1 if name == "ruff format" else 0

    monkeypatch.setattr(dev, "run_whole", run_whole)
    assert dev.run_checks() == 1
    assert "checks failed: ruff format, mypy tests" in capsys.readouterr().err


def _noting(ran: list[str], step: str, answer: int) -> Callable[..., int]:
    """A stand-in for one of dev.py's steps: notes `step` in `ran` and answers `answer`."""

    def stand_in(*_args: object, **_kwargs: object) -> int:
        ran.append(step)
        return answer

    return stand_in


def _recorded_pytest_runs(monkeypatch: pytest.MonkeyPatch, codes: list[int], tmp_path: Path) -> tuple[ModuleType, list]:
    dev = _dev_script()
    # Never the clone's own: a run removes its stale reports first, and the suite's own portable
    # pass had written its report there by the time these tests ran (cc41: no portable.xml).
    monkeypatch.setattr(dev, "REPORTS", tmp_path / "test-reports")
    runs: list[tuple[tuple, dict | None]] = []
    monkeypatch.setattr(dev, "set_up", lambda: None)
    monkeypatch.setattr(dev, "install_system_packages", lambda: None)
    monkeypatch.setattr(dev, "install_real_clis", lambda: None)
    monkeypatch.setattr(dev, "warm_test_caches", lambda: None)
    monkeypatch.setattr(dev, "run_checks", lambda names=None: 0)
    monkeypatch.delenv("WARDIAN_TEST_WORKERS", raising=False)
    monkeypatch.setenv("PYTHONDONTWRITEBYTECODE", "1")

    # The first pass in the foreground, the portable one beside it: each takes its own code.
    def fake_run(*argv: object, env: dict | None = None, check: bool = True) -> int:
        runs.append((argv[3:], env))
        return codes[0]

    def fake_captured(*argv: object, env: dict | None = None) -> tuple[int, str]:
        runs.append((argv[3:], env))
        return codes[1], "the portable pass's output\n"

    monkeypatch.setattr(dev, "run", fake_run)
    monkeypatch.setattr(dev, "run_captured", fake_captured)
    return dev, runs


def _by_report(runs: list) -> list:
    """The recorded runs, the first pass's (main.xml) first: the two start at once."""
    return sorted(runs, key=lambda run: "portable.xml" in str(run[0][0]))


def test_the_full_run_repeats_the_portable_seams_tests_under_the_portable_backend(
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    dev, runs = _recorded_pytest_runs(monkeypatch, [0, 0], tmp_path)
    assert dev.test([]) == 0
    (everything, first_env), (again, portable_env) = _by_report(runs)
    assert everything == (f"--junitxml={dev.REPORTS / 'main.xml'}", "-n", "4", "--dist", "worksteal")
    assert first_env is not None and "WARDIAN_PTY_BACKEND" not in first_env
    # Beside the first pass, in workers of its own.
    assert again[:5] == (f"--junitxml={dev.REPORTS / 'portable.xml'}", "-n", "2", "--dist", "worksteal")
    suites = list(again[5:])
    assert suites == dev.portable_backend_suites() and "tests/e2e/test_callers.py" in suites
    assert portable_env is not None and portable_env["WARDIAN_PTY_BACKEND"] == "ptyprocess"


def test_both_passes_cache_bytecode_on_a_machine_that_exports_not_to(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    dev, runs = _recorded_pytest_runs(monkeypatch, [0, 0], tmp_path)
    assert dev.test([]) == 0
    assert [env is not None and "PYTHONDONTWRITEBYTECODE" not in env for _, env in runs] == [True, True]


@pytest.mark.parametrize(("codes", "expected"), [([0, 1], 1), ([1, 0], 1), ([0, 5], 1)])
def test_a_failure_or_an_empty_run_in_either_pass_fails_the_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, codes: list[int], expected: int
) -> None:
    dev, runs = _recorded_pytest_runs(monkeypatch, codes, tmp_path)
    assert dev.test([]) == expected and len(runs) == 2  # the second pass runs even after the first failed


def test_the_portable_pass_prints_its_output_after_the_first_pass_and_its_summary_last(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    dev, _runs = _recorded_pytest_runs(monkeypatch, [0, 0], tmp_path)
    assert dev.test([]) == 0
    printed = capsys.readouterr().out
    assert printed.index("+ again under WARDIAN_PTY_BACKEND=ptyprocess") < printed.index("the portable pass's output")
    assert printed.index("the portable pass's output") < printed.index("total wall time:")


def test_zero_workers_runs_the_passes_one_after_the_other_in_one_process(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    dev, runs = _recorded_pytest_runs(monkeypatch, [0, 0], tmp_path)
    monkeypatch.setenv("WARDIAN_TEST_WORKERS", "0")
    assert dev.test([]) == 0
    assert [args[0] for args, _ in runs] == [
        f"--junitxml={dev.REPORTS / 'main.xml'}",
        f"--junitxml={dev.REPORTS / 'portable.xml'}",
    ]
    assert all("-n" not in args for args, _ in runs)


def test_zero_workers_runs_the_suite_in_one_process(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    dev, runs = _recorded_pytest_runs(monkeypatch, [0], tmp_path)
    monkeypatch.setenv("WARDIAN_TEST_WORKERS", "0")
    assert dev.test(["tests/test_db.py"]) == 0
    assert runs[0][0] == (f"--junitxml={dev.REPORTS / 'main.xml'}", "tests/test_db.py")


def test_a_chosen_selection_runs_once(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    dev, runs = _recorded_pytest_runs(monkeypatch, [0], tmp_path)
    assert dev.test(["tests/test_db.py"]) == 0 and len(runs) == 1


def test_a_missing_test_command_is_installed_from_debian_then_retried_after_an_update(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    dev = _dev_script()
    calls: list[tuple[str, ...]] = []
    monkeypatch.setattr(dev.shutil, "which", lambda command: None if command == "zsh" else f"/usr/bin/{command}")
    monkeypatch.setattr(dev.os, "geteuid", lambda: 0)

    def run(*argv: str, **_: object) -> int:
        calls.append(argv)
        return 1 if len(calls) == 1 else 0  # the first install fails: a stale package list

    monkeypatch.setattr(dev, "run", run)
    dev.install_system_packages()
    install = ("apt-get", "install", "-y", "-qq", "--no-install-recommends", "zsh")
    assert calls == [install, ("apt-get", "update", "-qq"), install]


def test_nothing_is_installed_without_root_or_when_present(monkeypatch: pytest.MonkeyPatch) -> None:
    dev = _dev_script()
    calls: list[tuple[str, ...]] = []

    def run(*argv: str, **_: object) -> int:
        calls.append(argv)
        return 0

    monkeypatch.setattr(dev, "run", run)
    monkeypatch.setattr(dev.shutil, "which", lambda command: None if command == "zsh" else f"/usr/bin/{command}")
    monkeypatch.setattr(dev.os, "geteuid", lambda: 1000)
    dev.install_system_packages()
    monkeypatch.setattr(dev.shutil, "which", lambda command: f"/usr/bin/{command}")
    monkeypatch.setattr(dev.os, "geteuid", lambda: 0)
    dev.install_system_packages()
    assert calls == []


def test_the_summary_names_the_slowest_tests_of_both_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dev = _dev_script()
    first, second = tmp_path / "main.xml", tmp_path / "portable.xml"
    cases = "".join(f'<testcase classname="tests.test_a" name="t{n}" time="{n}.5"/>' for n in range(12))
    first.write_text(f"<testsuites><testsuite>{cases}</testsuite></testsuites>")
    second.write_text(
        '<testsuites><testsuite><testcase classname="e2e" name="slow" time="99"/></testsuite></testsuites>'
    )
    slowest = dev.slowest_tests([first, second, tmp_path / "absent.xml"])
    assert len(slowest) == 10 and slowest[0] == (99.0, "[portable] e2e::slow")
    assert slowest[-1] == (3.5, "[main] tests.test_a::t3")
    dev.print_summary(dev.time.monotonic() - 125, [first, tmp_path / "absent.xml"])
    printed = capsys.readouterr().out
    assert "total wall time: 2 min 5 s" in printed and "11.5 s  [main] tests.test_a::t11" in printed
    assert f"({tmp_path / 'absent.xml'} was not written: its pass's tests are not among these)" in printed


def test_the_total_rounds_to_whole_seconds_before_minutes(capsys: pytest.CaptureFixture[str]) -> None:
    """A run of 18 min 59.6 s printed "18 min 60 s"."""
    dev = _dev_script()
    dev.print_summary(dev.time.monotonic() - 1139.6, [])
    assert "total wall time: 19 min 0 s" in capsys.readouterr().out
