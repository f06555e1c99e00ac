"""A pytest plugin giving tests the test provider distributions, as plugin objects or installed.

`tests/example_provider` and `tests/broken_providers` are two ordinary distributions.

- A test that needs only their plugins calls `register_test_plugins("raising", ...)`: the
  modules their entry points name, imported from the source trees and handed to
  `Plugins.register`; no install, no discovery.
- A test that needs them found through their entry points (discovery itself, or a `wardian`
  subprocess) asks for `provider_packages`: `pip wheel` builds each with its declared
  backend, offline, once a session for all xdist workers (`build_wheel`, keyed by the
  source's digest), and pip installs the wheels, once too, into a directory that test gets
  on `sys.path` and `PYTHONPATH` (`install_provider_packages` does it when the test says).
  One worker at a time builds or installs; the others wait for it and reuse the result.
  Other tests never see them.

Test modules load this with:
    sys.path.insert(0, str(Path(__file__).parent / "example_provider"))
    pytest_plugins = ["wardian_test_packages"]
"""

import contextlib
import fcntl
import hashlib
import importlib
import os
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from wardian_host.providers.manager import GROUP, Plugins
from wardian_host.testing.in_process import InProcessHost, serving

TESTS = Path(__file__).resolve().parent.parent
DISTRIBUTIONS = (TESTS / "example_provider", TESTS / "broken_providers")
IMPORT_PACKAGES = ("wardian_example", "wardian_broken")


def _entry_points() -> dict[str, str]:
    """Every test plugin's name and the module its entry point names, as declared."""
    points: dict[str, str] = {}
    for source in DISTRIBUTIONS:
        project = tomllib.loads((source / "pyproject.toml").read_text(encoding="utf-8"))["project"]
        points.update(project["entry-points"][GROUP])
    return points


ENTRY_POINTS = {"generic": "wardian_host.providers.builtin_generic.plugin", **_entry_points()}


def forget_imports(monkeypatch: pytest.MonkeyPatch) -> None:
    """Import the test packages afresh from where this test puts them (the sources, or the
    install), never from a module an earlier test imported from the other place."""
    for module in list(sys.modules):
        if module.split(".")[0] in IMPORT_PACKAGES:
            monkeypatch.delitem(sys.modules, module)


@pytest.fixture
def register_test_plugins(monkeypatch: pytest.MonkeyPatch) -> Callable[..., Plugins]:
    """`register(*names)`: new Plugins holding the named test plugins (`generic` is the built-in),
    registered as their entry points would be, imported from their source trees."""
    forget_imports(monkeypatch)
    for source in DISTRIBUTIONS:
        monkeypatch.syspath_prepend(str(source / "src"))

    def register(*names: str) -> Plugins:
        plugins = Plugins()
        for name in names:
            plugins.register(importlib.import_module(ENTRY_POINTS[name]), name)
        return plugins

    return register


LEFT_OUT = ("build", "dist", "__pycache__", ".pytest_cache")


def _left_out(name: str) -> bool:
    return name in LEFT_OUT or name.endswith((".egg-info", ".pyc"))


def source_hash(source: Path) -> str:
    """A digest of the files a build reads: a changed source builds anew, an unchanged one is reused."""
    digest = hashlib.sha256()
    for path in sorted(source.rglob("*")):
        relative = path.relative_to(source)
        if path.is_file() and not any(_left_out(part) for part in relative.parts):
            digest.update(relative.as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def _pip(*args: str) -> None:
    command = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input", *args]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        pytest.fail(f"`pip {' '.join(args)}` failed:\n{done.stdout}\n{done.stderr}")


def _build_into(source: Path, wheel_dir: Path) -> None:
    """`wheel_dir` made by `pip wheel` from a copy of `source` beside it."""
    copy = shutil.copytree(source, wheel_dir.parent / "source", ignore=lambda _, names: list(filter(_left_out, names)))
    options = ["--quiet", "--no-deps", "--no-index", "--no-build-isolation"]
    _pip("wheel", *options, "--wheel-dir", str(wheel_dir), str(copy))


@contextlib.contextmanager
def _alone(cache: Path) -> Iterator[None]:
    """One xdist worker at a time makes what `cache` keeps; the others wait, then reuse it. Each
    worker making its own at once took 20 s of a loaded machine's two cores (three pips each)."""
    with open(cache / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        yield


def _made_once(made: Path, make: Callable[[Path], None]) -> Path:
    """`made` in its cache, `make(scratch)` writing it into a scratch directory first unless a
    worker already did: a directory that exists is whole."""
    with _alone(made.parent):
        if not made.exists():
            scratch = Path(tempfile.mkdtemp(prefix=f".{made.name}-", dir=made.parent))
            try:
                make(scratch / "made")
                (scratch / "made").rename(made)
            finally:
                shutil.rmtree(scratch, ignore_errors=True)
    return made


def build_wheel(source: Path, cache: Path) -> Path:
    """The wheel of the distribution at `source`, built by `pip wheel` with its declared backend
    (the test environment's setuptools: offline, no build isolation), from a copy because a
    build writes beside its sources. Kept in `cache` under the source's digest."""
    built = _made_once(cache / f"{source.name}-{source_hash(source)}", lambda into: _build_into(source, into))
    [wheel] = built.glob("*.whl")
    return wheel


@pytest.fixture(scope="session")
def wheel_cache(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> Path:
    """Where this session's test wheels are built: one directory all xdist workers share."""
    base = tmp_path_factory.getbasetemp()
    cache = (base.parent if worker_id != "master" else base) / "test-wheels"
    cache.mkdir(exist_ok=True)
    return cache


def install(wheels: list[Path], target: Path) -> None:
    """`pip install --target` of built wheels, offline."""
    _pip("install", "--quiet", "--no-deps", "--no-index", "--no-compile", "--target", str(target), *map(str, wheels))


@pytest.fixture(scope="session")
def provider_packages_dir(wheel_cache: Path) -> Path:
    """The wheels installed once for all xdist workers, keyed by their sources' digests: tests
    only import from it."""
    wheels = [build_wheel(source, wheel_cache) for source in DISTRIBUTIONS]
    installed = wheel_cache / ("installed-" + "-".join(wheel.parent.name for wheel in wheels))
    return _made_once(installed, lambda into: install(wheels, into))


@pytest.fixture
def install_provider_packages(provider_packages_dir: Path, monkeypatch: pytest.MonkeyPatch) -> Callable[[], Path]:
    """`install()`: the example and broken providers, installed and visible to this test from then on."""

    def install() -> Path:
        forget_imports(monkeypatch)
        monkeypatch.syspath_prepend(str(provider_packages_dir))
        monkeypatch.setenv("PYTHONPATH", str(provider_packages_dir), prepend=os.pathsep)
        return provider_packages_dir

    return install


@pytest.fixture
def provider_packages(install_provider_packages: Callable[[], Path]) -> Path:
    """The example and broken providers, installed and visible to this test only."""
    return install_provider_packages()


FAKE_CLIS = TESTS / "e2e" / "fake_clis"


@pytest.fixture
def example_cli_env(provider_packages: Path) -> dict[str, str]:
    """What a `wardian` command adds to its environment so that the host it starts (a restart's
    too) has the example provider and finds its stand-in CLI."""
    return {"PATH": f"{FAKE_CLIS}{os.pathsep}{os.environ['PATH']}", "WARDIAN_PLUGINS": "generic,example"}


# The example provider's stand-in CLI, which `example` agents run.
FAKE_CLIS = Path(__file__).parents[1] / "e2e" / "fake_clis"


@pytest.fixture
def example_host(
    wardian_home: Path, register_test_plugins: Callable[..., Plugins], monkeypatch: pytest.MonkeyPatch
) -> Iterator[InProcessHost]:
    """A host of the test's home whose providers are `generic` and `example` (its CLI on PATH)."""
    monkeypatch.setenv("PATH", f"{FAKE_CLIS}{os.pathsep}{os.environ['PATH']}")
    with serving(wardian_home, plugins=register_test_plugins("generic", "example")) as host:
        yield host
