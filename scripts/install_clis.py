#!/usr/bin/env python3
"""Install the pinned provider CLIs into `.cache/provider-clis/` when they are missing.

Used by `.ci/run`, by the README's test command and by developers. The install
talks to the npm registry, so it runs with the machine's network; the CLIs it
installs only ever run inside the loopback-only namespace of the test plugin.
Each set of pins is installed once per machine, outside the clone, and a clone's
`.cache/provider-clis` links to it.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INSTALL_DIR = ROOT / ".cache" / "provider-clis"

# The pins, one list per CLI: the current release first (installed in INSTALL_DIR, what the
# tests and developers run by default), then older versions the provider still supports
# (each in its own folder under INSTALL_DIR/versions). Pins move by hand, after
# `python3 scripts/dev.py drift` shows the newer release passes; then run
# `scripts/install_clis.py` and `scripts/record_cli_transcripts.py`.
PINS_FILE = ROOT / "scripts" / "provider_cli_pins.json"
PINS: dict[str, dict] = json.loads(PINS_FILE.read_text())
PINNED_PACKAGES = {pin["package"]: pin["versions"][0] for pin in PINS.values()}

STAMP_NAME = "installed-versions.json"

# A clean clone (CI's, a developer's second checkout) would download and unpack the same
# CLIs again: about 30 s of npm on two cores, beside the set-up and the checks it slows. So
# each set of pins is installed once per machine, in a folder named by the pins file's hash
# (a pin that moves is a new folder), and a clone's INSTALL_DIR is a link to that folder.
# (`dev.py` keeps its other caches that outlive a clone beside it, in MACHINE_CACHE.)
MACHINE_CACHE = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "wardian-dev"
SHARED_ROOT = MACHINE_CACHE / "provider-clis"


def shared_dir() -> Path:
    return SHARED_ROOT / hashlib.sha256(PINS_FILE.read_bytes()).hexdigest()[:16]


def package_specs() -> list[str]:
    return [f"{name}@{version}" for name, version in PINNED_PACKAGES.items()]


def older_versions() -> list[tuple[str, str]]:
    """(cli, version) of every pin after the current one."""
    return [(cli, version) for cli, pin in PINS.items() for version in pin["versions"][1:]]


def version_dir(cli: str, version: str, install_dir: Path = INSTALL_DIR) -> Path:
    return install_dir / "versions" / f"{cli}-{version}"


def executable_path(cli: str, install_dir: Path = INSTALL_DIR) -> Path:
    return install_dir / "node_modules" / ".bin" / cli


def pinned_executable(cli: str, version: str, install_dir: Path = INSTALL_DIR) -> Path:
    """Where a pinned version of `cli` is installed: the current pin in `install_dir`, older ones beside it."""
    if version == PINS[cli]["versions"][0]:
        return executable_path(cli, install_dir)
    return executable_path(cli, version_dir(cli, version, install_dir))


def installed(install_dir: Path, expected: object, clis: list[str]) -> bool:
    """The stamp in `install_dir` records `expected` and the executables of `clis` are there."""
    try:
        recorded = json.loads((install_dir / STAMP_NAME).read_text())
    except (OSError, ValueError):
        return False
    return recorded == expected and all(executable_path(cli, install_dir).exists() for cli in clis)


def isinstalled(install_dir: Path = INSTALL_DIR) -> bool:
    """True when every pin's stamp matches and every executable is present."""
    if not installed(install_dir, PINNED_PACKAGES, list(PINS)):
        return False
    return all(
        installed(version_dir(cli, version, install_dir), {PINS[cli]["package"]: version}, [cli])
        for cli, version in older_versions()
    )


def npm_install(install_dir: Path, packages: dict[str, str]) -> int:
    """Install `packages` ({name: version}) into `install_dir` with npm; its stamp only on success."""
    npm = shutil.which("npm")
    if npm is None:
        print(
            "install_clis: npm not found on PATH. Install Node.js 20+ with npm, "
            "or set WARDIAN_SKIP_REAL_CLI=1 to run the suite without the real-CLI tests.",
            file=sys.stderr,
        )
        return 2
    install_dir.mkdir(parents=True, exist_ok=True)
    # A stale stamp must not survive a failed or partial install.
    (install_dir / STAMP_NAME).unlink(missing_ok=True)
    specs = [f"{name}@{version}" for name, version in packages.items()]
    command = [npm, "install", "--prefix", str(install_dir), "--no-audit", "--no-fund", "--no-save"]
    command += ["--loglevel=error", *specs]
    print(f"install_clis: {' '.join(command)}", flush=True)
    started = time.monotonic()
    completed = subprocess.run(command)
    if completed.returncode != 0:
        print(f"install_clis: npm install failed with exit code {completed.returncode}", file=sys.stderr)
        return completed.returncode
    (install_dir / STAMP_NAME).write_text(json.dumps(packages, indent=2) + "\n")
    print(f"install_clis: installed in {time.monotonic() - started:.0f} s into {install_dir}")
    return 0


def install(install_dir: Path = INSTALL_DIR, force: bool = False) -> int:
    if not force and isinstalled(install_dir):
        print(f"install_clis: pinned CLIs already in {install_dir}: {' '.join(package_specs())}")
        return 0
    if force or install_dir != INSTALL_DIR:
        return install_into(install_dir, force)
    return install_shared(install_dir, shared_dir())


def install_shared(link: Path, shared: Path) -> int:
    """Install the pins into `shared` unless they are there, then make `link` point at it."""
    import fcntl  # POSIX only, as the suite is: not at the top, so `dev.py` imports this anywhere

    try:
        shared.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:  # no writable cache folder: the clone keeps its own copy
        print(f"install_clis: cannot use {shared.parent} ({error}); installing into {link}")
        return install_into(link, force=False)
    with (shared.parent / f"{shared.name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two clones setting up at once install once
        status = 0 if isinstalled(shared) else install_into(shared, force=False)
    if status != 0:
        return status
    if link.is_symlink() or link.is_file():
        link.unlink()
    elif link.exists():  # an older install of other pins, made in the clone itself
        shutil.rmtree(link)
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(shared, target_is_directory=True)
    print(f"install_clis: {link} links to the pinned CLIs in {shared}")
    return 0


def install_into(install_dir: Path, force: bool) -> int:
    if force or not installed(install_dir, PINNED_PACKAGES, list(PINS)):
        status = npm_install(install_dir, PINNED_PACKAGES)
        if status != 0:
            return status
    for cli, version in older_versions():
        folder, packages = version_dir(cli, version, install_dir), {PINS[cli]["package"]: version}
        if force or not installed(folder, packages, [cli]):
            status = npm_install(folder, packages)
            if status != 0:
                return status
    missing = [str(path) for path in _all_executables(install_dir) if not path.exists()]
    if missing:
        print(f"install_clis: npm finished but these executables are missing: {missing}", file=sys.stderr)
        return 1
    return 0


def _all_executables(install_dir: Path) -> list[Path]:
    return [pinned_executable(cli, version, install_dir) for cli, pin in PINS.items() for version in pin["versions"]]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="reinstall even when the stamp matches")
    parser.add_argument("--check", action="store_true", help="only report whether the pins are installed")
    parser.add_argument("--dir", type=Path, default=INSTALL_DIR, help="install folder")
    arguments = parser.parse_args(argv)
    if arguments.check:
        installed = isinstalled(arguments.dir)
        print(f"install_clis: {'installed' if installed else 'missing'} in {arguments.dir}")
        return 0 if installed else 1
    return install(arguments.dir, force=arguments.force)


if __name__ == "__main__":
    sys.exit(main())
