#!/usr/bin/env python3
"""Re-record what the real provider CLIs print into `tests/real_cli/recordings/<cli>/`.

Run after bumping a pinned version in `scripts/provider_cli_pins.json`:

    python3 scripts/record_cli_transcripts.py            # all four CLIs
    python3 scripts/record_cli_transcripts.py codex      # just one

It installs the pinned CLIs when missing, then runs the real-CLI contract tests with
`--record-cli-transcripts` (inside the loopback-only namespace, like every real-CLI run):
each passing case writes its headless JSONL or raw PTY bytes, with machine-specific paths and
the port normalised (`normalise` in tests/real_cli/conftest.py). Review the diff before
committing it.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECORDINGS = ROOT / "tests" / "real_cli" / "recordings"
CLI_NAMES = ("claude", "codex", "gemini", "opencode")


def project_python() -> str:
    venv_python = ROOT / ".venv" / "bin" / "python"
    return str(venv_python) if venv_python.exists() else sys.executable


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "clis", nargs="*", metavar="CLI", help=f"which CLIs to re-record (default: all of {', '.join(CLI_NAMES)})"
    )
    clis = parser.parse_args(argv).clis or list(CLI_NAMES)
    unknown = sorted(set(clis) - set(CLI_NAMES))
    if unknown:
        parser.error(f"unknown CLI {', '.join(unknown)}; choose from {', '.join(CLI_NAMES)}")

    installed = subprocess.run([sys.executable, str(ROOT / "scripts" / "install_clis.py")])
    if installed.returncode != 0:
        return installed.returncode
    for name in clis:
        # Stale files from cases that no longer exist must not survive a re-record.
        shutil.rmtree(RECORDINGS / name, ignore_errors=True)
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT / "tests" / "support"), os.environ.get("PYTHONPATH")])),
    )
    env.pop("WARDIAN_SKIP_REAL_CLI", None)
    command = [
        project_python(),
        "-m",
        "pytest",
        "-p",
        "real_cli_plugin",
        "-q",
        "--record-cli-transcripts",
        "tests/real_cli",
        "-k",
        # The current pin of each: older supported versions are tested, not recorded.
        " or ".join(f"[{name}-{current_version(name)}]" for name in clis),
    ]
    print("record_cli_transcripts:", " ".join(command), flush=True)
    return subprocess.run(command, cwd=ROOT, env=env).returncode


def current_version(cli: str) -> str:
    return json.loads((ROOT / "scripts" / "provider_cli_pins.json").read_text())[cli]["versions"][0]


if __name__ == "__main__":
    sys.exit(main())
