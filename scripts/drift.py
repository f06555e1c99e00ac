"""`python3 scripts/dev.py drift`: the real-CLI suite against the newest published CLIs.

Installs the newest version of each provider CLI from the npm registry into a scratch
folder (`.cache/drift/`), runs every `real_cli` test against it (the suite's fixtures take
their executables from `WARDIAN_REAL_CLI_DIR`) and prints one row per case: provider,
version, case, pass/fail. Not part of `.ci/run`: its answer depends on what was published
today. A pin in `scripts/provider_cli_pins.json` moves only after this passes.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from install_clis import PINS, installed, npm_install

ROOT = Path(__file__).resolve().parent.parent
DRIFT_DIR = ROOT / ".cache" / "drift"
CLI_CASE = re.compile(r"\b(claude|codex|gemini|opencode)-(\d[\w.-]*)")


@dataclass(frozen=True)
class CaseResult:
    provider: str
    version: str
    case: str
    outcome: str  # pass, fail, skip


def newest_versions() -> dict[str, str]:
    """{package: newest published version}, asked of the npm registry."""
    npm = shutil.which("npm") or "npm"
    newest = {}
    for pin in PINS.values():
        answer = subprocess.run([npm, "view", pin["package"], "version"], capture_output=True, text=True, check=True)
        newest[pin["package"]] = answer.stdout.strip()
    return newest


def case_results(report: Path, versions: dict[str, str]) -> list[CaseResult]:
    """One row per test case of a JUnit XML report."""
    by_cli = {cli: versions[pin["package"]] for cli, pin in PINS.items()}
    rows = []
    for case in ElementTree.parse(report).iter("testcase"):
        name = f"{case.get('classname', '')}::{case.get('name', '')}"
        found = CLI_CASE.search(name) or _provider_from_path(name)
        provider = found.group(1) if found else "-"
        outcome = "pass"
        if case.find("failure") is not None or case.find("error") is not None:
            outcome = "fail"
        elif case.find("skipped") is not None:
            outcome = "skip"
        rows.append(CaseResult(provider, by_cli.get(provider, "-"), case.get("name", ""), outcome))
    return rows


def _provider_from_path(name: str) -> re.Match[str] | None:
    return re.search(r"wardian-(claude|codex|gemini|opencode)\b", name)


def table(rows: list[CaseResult]) -> str:
    header = ("PROVIDER", "VERSION", "CASE", "RESULT")
    cells = [header, *((row.provider, row.version, row.case, row.outcome) for row in rows)]
    widths = [max(len(cell[i]) for cell in cells) for i in range(len(header))]
    return "\n".join("  ".join(cell[i].ljust(widths[i]) for i in range(len(header))).rstrip() for cell in cells)


def drift(python: Path, pytest_args: list[str]) -> int:
    versions = newest_versions()
    print("drift: newest published: " + ", ".join(f"{name}@{version}" for name, version in versions.items()))
    if not installed(DRIFT_DIR, versions, list(PINS)) and npm_install(DRIFT_DIR, versions) != 0:
        return 1
    report = DRIFT_DIR / "report.xml"
    report.unlink(missing_ok=True)
    env = {**os.environ, "WARDIAN_REAL_CLI_DIR": str(DRIFT_DIR)}
    argv = [str(python), "-m", "pytest", "-q", "-m", "real_cli", f"--junitxml={report}", *pytest_args]
    print("+", " ".join(argv), flush=True)
    code = subprocess.run(argv, cwd=ROOT, env=env).returncode
    if not report.exists():
        print("drift: pytest wrote no report", file=sys.stderr)
        return code or 1
    rows = case_results(report, versions)
    print(table(rows))
    failed = sum(row.outcome == "fail" for row in rows)
    print(f"drift: {len(rows)} cases, {failed} failed")
    return 1 if failed or code not in (0, 1) else 0
