"""The main job: start a real agent on the built-in `generic` provider and show it.

Uses the demo home `.cache/demo-home` (its own WARDIAN_HOME), so it never touches
your `~/.wardian`. Run again to see the same agent; stop with
`WARDIAN_HOME=.cache/demo-home .venv/bin/wardian host stop`.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HOME = ROOT / ".cache" / "demo-home"
WARDIAN = str(Path(sys.executable).parent / "wardian")
ENV = {k: v for k, v in os.environ.items() if not k.startswith("WARDIAN_")} | {"WARDIAN_HOME": str(HOME)}
AGENT = "demo-shell"


def wardian(*args: str, echo: bool = True) -> subprocess.CompletedProcess[str]:
    if echo:
        print("$ wardian " + " ".join(args), flush=True)
    return subprocess.run([WARDIAN, *args], env=ENV, text=True, capture_output=not echo, cwd=ROOT)


def status_of(name: str) -> str | None:
    found = wardian("agent", name, "--field", "status", echo=False)
    return found.stdout.strip() if found.returncode == 0 else None


def main() -> int:
    HOME.mkdir(parents=True, exist_ok=True)
    print(f"WARDIAN_HOME={HOME}", flush=True)
    status = status_of(AGENT)
    if status is None:
        started = wardian(
            "agent",
            "spawn",
            "--provider",
            "generic",
            "--class",
            "Demo",
            "--name",
            AGENT,
            "--description",
            "a shell run by the generic provider",
            "--",
            "bash",
            "--norc",
            "-i",
        )
    elif status in ("off", "error"):
        started = wardian("agent", "resume", AGENT)
    else:
        started = subprocess.CompletedProcess([], 0)
    if started.returncode != 0:
        return started.returncode
    waited = wardian("agent", "wait", AGENT, "--until", "idle", "--timeout", "30s", echo=False)
    if waited.returncode != 0:
        print(waited.stderr, file=sys.stderr)
        return waited.returncode
    listed = wardian("agent", "list", "--pretty", "--verbose")
    evidence = json.loads(wardian("agent", AGENT, "--fields", "status_evidence", echo=False).stdout)
    print(f"\n{AGENT} is idle because: {evidence['agent']['status_evidence']}")
    print(f"Try: WARDIAN_HOME={HOME} {WARDIAN} agent {AGENT} --verbose")
    print(f"Stop: WARDIAN_HOME={HOME} {WARDIAN} host stop")
    return listed.returncode


if __name__ == "__main__":
    sys.exit(main())
