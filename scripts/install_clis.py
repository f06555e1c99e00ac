#!/usr/bin/env python3
"""Install the pinned provider CLIs into `.cache/provider-clis/` when they are missing.

Used by `.ci/run`, by the README's test command and by developers. The install
talks to the npm registry, so it runs with the machine's network; the CLIs it
installs only ever run inside the loopback-only namespace of the test plugin.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
INSTALL_DIR = ROOT / ".cache" / "provider-clis"

# Bump a version here, run `scripts/install_clis.py` and then
# `scripts/record_cli_transcripts.py` to refresh the recorded fixtures.
PINNED_PACKAGES = {
    "@anthropic-ai/claude-code": "2.1.197",
    "@openai/codex": "0.169.0",
    "@google/gemini-cli": "0.61.0",
    "opencode-ai": "1.18.33",
}

# Executable name in node_modules/.bin for each CLI.
EXECUTABLES = {"claude": "claude", "codex": "codex", "gemini": "gemini", "opencode": "opencode"}

STAMP_NAME = "installed-versions.json"


def package_specs() -> list[str]:
    return [f"{name}@{version}" for name, version in PINNED_PACKAGES.items()]


def executable_path(cli: str, install_dir: Path = INSTALL_DIR) -> Path:
    return install_dir / "node_modules" / ".bin" / EXECUTABLES[cli]


def is_installed(install_dir: Path = INSTALL_DIR) -> bool:
    """True when the stamp matches the pins and every executable is present."""
    stamp = install_dir / STAMP_NAME
    try:
        recorded = json.loads(stamp.read_text())
    except (OSError, ValueError):
        return False
    if recorded != PINNED_PACKAGES:
        return False
    return all(executable_path(cli, install_dir).exists() for cli in EXECUTABLES)


def install(install_dir: Path = INSTALL_DIR, force: bool = False) -> int:
    if not force and is_installed(install_dir):
        print(f"install_clis: pinned CLIs already in {install_dir}: {' '.join(package_specs())}")
        return 0
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
    command = [
        npm,
        "install",
        "--prefix",
        str(install_dir),
        "--no-audit",
        "--no-fund",
        "--no-save",
        "--loglevel=error",
        *package_specs(),
    ]
    print(f"install_clis: {' '.join(command)}", flush=True)
    started = time.monotonic()
    completed = subprocess.run(command)
    if completed.returncode != 0:
        print(f"install_clis: npm install failed with exit code {completed.returncode}", file=sys.stderr)
        return completed.returncode
    missing = [cli for cli in EXECUTABLES if not executable_path(cli, install_dir).exists()]
    if missing:
        print(f"install_clis: npm finished but these executables are missing: {missing}", file=sys.stderr)
        return 1
    (install_dir / STAMP_NAME).write_text(json.dumps(PINNED_PACKAGES, indent=2) + "\n")
    print(f"install_clis: installed in {time.monotonic() - started:.0f} s into {install_dir}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="reinstall even when the stamp matches")
    parser.add_argument("--check", action="store_true", help="only report whether the pins are installed")
    parser.add_argument("--dir", type=Path, default=INSTALL_DIR, help="install folder")
    arguments = parser.parse_args(argv)
    if arguments.check:
        installed = is_installed(arguments.dir)
        print(f"install_clis: {'installed' if installed else 'missing'} in {arguments.dir}")
        return 0 if installed else 1
    return install(arguments.dir, force=arguments.force)


if __name__ == "__main__":
    sys.exit(main())
