"""The main job: start a real agent on the built-in `generic` provider, give it a command
and show what Wardian knows of it.

The agent is your `bash` (your `~/.bashrc` included), with Wardian's shell integration: its
status comes from the marks the shell writes at each prompt and command, the exit code with
them. Uses the demo home `.cache/demo-home` (its own WARDIAN_HOME), so it never touches
your `~/.wardian`. Run again to see the same agent; stop with
`WARDIAN_HOME=.cache/demo-home .venv/bin/wardian host stop`. It ends with the command that opens
the web view, where the agent's tile shows its terminal live.
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
COMMAND = "echo hello from a Wardian agent"


def wardian(*args: str, echo: bool = True) -> subprocess.CompletedProcess[str]:
    if echo:
        print("$ wardian " + " ".join(args), flush=True)
    return subprocess.run([WARDIAN, *args], env=ENV, text=True, capture_output=not echo, cwd=ROOT)


def status_of(name: str) -> str | None:
    found = wardian("agent", name, "--field", "status", echo=False)
    return found.stdout.strip() if found.returncode == 0 else None


def start_agent() -> int:
    """Spawn the demo agent, or resume it when an earlier run's has stopped; its exit code."""
    status = status_of(AGENT)
    if status is None:
        spawn = ["--class", "Demo", "--name", AGENT, "--description", "a shell run by the generic provider"]
        return wardian("agent", "spawn", "--provider", "generic", *spawn, "--", "bash", "-i").returncode
    if status in ("off", "error"):
        return wardian("agent", "resume", AGENT).returncode
    return 0


def quietly(*args: str) -> dict | None:
    """`wardian ARGS`' JSON answer; None, with its error printed, when it failed."""
    done = wardian(*args, echo=False)
    if done.returncode != 0:
        print(done.stderr, file=sys.stderr)
        return None
    return json.loads(done.stdout)


def main() -> int:
    HOME.mkdir(parents=True, exist_ok=True)
    print(f"WARDIAN_HOME={HOME}", flush=True)
    started = start_agent()
    if started != 0:
        return started
    if quietly("agent", "wait", AGENT, "--until", "idle", "--timeout", "30s") is None:
        return 1
    print(f"$ wardian send {COMMAND!r} --to {AGENT} --wait-until idle", flush=True)
    sent = quietly("send", COMMAND, "--to", AGENT, "--wait-until", "idle", "--timeout", "30s")
    if sent is None:
        return 1
    print(f"{AGENT} ran it and is idle again because: {sent['agent']['status_evidence']}\n", flush=True)
    listed = wardian("agent", "list", "--pretty", "--verbose")
    print(f"Try: WARDIAN_HOME={HOME} {WARDIAN} agent {AGENT} --verbose")
    print(f"Stop: WARDIAN_HOME={HOME} {WARDIAN} host stop")
    # Last, so it is what a newcomer sees: the agent live in a browser.
    print(f"Web view: WARDIAN_HOME={HOME} {WARDIAN} web --open")
    print(f"  opens your browser on the live page; click the {AGENT} tile to type into its terminal")
    return listed.returncode


if __name__ == "__main__":
    sys.exit(main())
