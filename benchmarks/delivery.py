"""Sent prompts confirmed as taken: each real CLI driven through the real host.

    .venv/bin/python benchmarks/delivery.py [--prompts 200] [--clis claude,codex,gemini,opencode]

Runs inside a loopback-only network namespace (it re-executes itself under `unshare --net`,
as the real-CLI tests do): the CLIs reach nothing but the fake model server on 127.0.0.1.
For each CLI (its current pin) one agent is sent `--prompts` prompts, a quarter each
(a) to the idle agent, (b) mid-turn: right after another prompt, while that turn runs,
(c) right after `agent resume` returned (the send waits past `starting`), (d) right after
`send --approval accept` answered a tool dialog, while the approved `sleep` runs.
Printed per CLI and case: prompts lost (answered as delivered, never in a model request;
target 0), prompts doubled (one prompt's token twice in a request, or in two turns; target
0), sends refused (not delivered, with why; target: none the model got all the same), and
the confirmation latency (submit key -> confirmation, from
the answer's `delivery.seconds`) p50/p99 with what confirmed them and how many took a
second submit key.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "support"))

from delivery_checks import occurrences  # noqa: E402 - after the harness joins the path
from model_server.server import ModelServer  # noqa: E402
from real_cli_fixtures import RealCli, make_real_cli, pinned_clis  # noqa: E402
from real_cli_plugin import bring_loopback_up, in_loopback_namespace, unshare_command  # noqa: E402

WARDIAN = str(Path(sys.executable).parent / "wardian")
CASES = ("idle", "mid-turn", "after resume", "after approval")
MOCK_API_KEY = "sk-mock-0123456789abcdefghijklmnopqrstuvwxyz"
# What makes each CLI ask before the tool runs: Codex asks for an escalated sandbox only,
# OpenCode runs bash unasked unless its permission says `ask`.
APPROVAL_DIRECTIVE = {"codex": " MOCK_ESCALATE"}
SPAWN_SETTINGS = {"opencode": ["--provider-setting", "shell_permission=ask"]}
WAIT = "90s"


@dataclass
class Sent:
    case: str
    token: str
    answer: dict[str, Any] | None  # None: the send failed (its error in `error`)
    error: dict[str, Any] | None = None


@dataclass
class Run:
    cli: RealCli
    env: dict[str, str]
    name: str = "bench"
    sent: list[Sent] = field(default_factory=list)

    def wardian(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        done = subprocess.run([WARDIAN, *args], env=self.env, capture_output=True, text=True, timeout=300)
        if check and done.returncode != 0:
            raise SystemExit(f"wardian {' '.join(args)} failed: {done.stderr}")
        return done

    def wait(self, status: str) -> None:
        self.wardian("agent", "wait", self.name, "--until", status, "--timeout", WAIT)

    def status(self) -> str:
        return self.wardian("agent", self.name, "--field", "status").stdout.strip()

    def send(self, case: str, text: str, token: str) -> None:
        done = self.wardian("send", f"{text} ECHO:{token}", "--to", self.name, check=False)
        if done.returncode == 0:
            self.sent.append(Sent(case, token, json.loads(done.stdout)))
        else:
            self.sent.append(Sent(case, token, None, error_of(done.stderr)))

    def received(self, token: str, timeout: float = 60) -> None:
        """Wait until the model server saw `token` (a prompt lost is counted, not waited for forever)."""
        self.cli.server.wait_for(lambda request: occurrences(request.body_text(), f"ECHO:{token}") > 0, timeout)


def error_of(stderr: str) -> dict[str, Any]:
    """The error envelope's `error`; what else a failed CLI printed, as its message."""
    try:
        return dict(json.loads(stderr)["error"])
    except (ValueError, KeyError, TypeError):
        return {"code": "unparsed", "message": stderr.strip()[-2000:]}


def host_environment(cli: RealCli, home: Path) -> dict[str, str]:
    """The user's environment that points the CLI at the model server, as the host inherits it."""
    env = {key: value for key, value in cli.env.items() if not key.startswith("WARDIAN_")}
    return env | {
        "WARDIAN_HOME": str(home),
        f"WARDIAN_{cli.name.upper()}_EXECUTABLE": str(cli.executable),
        "WARDIAN_PLUGINS": cli.name,
        "MOCK_MODEL_API_KEY": MOCK_API_KEY,
    }


def idle(run: Run, n: int) -> None:
    run.wait("idle")
    run.send("idle", "idle prompt", f"idle{n}")
    run.received(f"idle{n}")


def mid_turn(run: Run, n: int) -> None:
    run.wait("idle")
    run.send("idle", "a turn to interrupt", f"first{n}")
    run.send("mid-turn", "sent while it runs", f"mid{n}")
    run.received(f"mid{n}")


def after_resume(run: Run, n: int) -> None:
    run.wait("idle")
    run.wardian("agent", "pause", run.name)
    run.wardian("agent", "resume", run.name)
    run.send("after resume", "right after resume", f"resumed{n}")
    run.received(f"resumed{n}")


def after_approval(run: Run, n: int) -> None:
    run.wait("idle")
    directive = APPROVAL_DIRECTIVE.get(run.cli.name, "")
    # `touch` asks where `sleep` alone may not (Claude 2.1.330 runs it unasked).
    command = f"touch approved{n}.txt && sleep 3"
    run.wardian("send", f"run{directive} MOCK_TOOL:{command} ECHO:tool{n}", "--to", run.name)
    run.wait("action_required")
    # OpenCode asks once per command of a `&&` chain: answer until no dialog is left.
    while run.status() == "action_required":
        # A dialog already left between the look and the keys refuses the answer: look again.
        run.wardian("send", "--approval", "accept", "--to", run.name, "--timeout", "30s", check=False)
    run.send("after approval", "right after the approval", f"approved{n}")
    run.received(f"approved{n}")


STEPS = {"idle": idle, "mid-turn": mid_turn, "after resume": after_resume, "after approval": after_approval}


def drive(cli: RealCli, prompts: int, scratch: Path) -> Run:
    home = scratch / "wardian-home"
    home.mkdir()
    run = Run(cli, host_environment(cli, home))
    spawn = ["--provider", cli.name, "--class", "Bench", "--name", run.name, "--workspace", str(cli.workspace)]
    run.wardian("agent", "spawn", *spawn, *SPAWN_SETTINGS.get(cli.name, []))
    try:
        for n in range(prompts):
            case = CASES[n % len(CASES)]
            try:
                STEPS[case](run, n)
            except (TimeoutError, SystemExit) as stuck:  # counted below as what the server never saw
                print(f"    {cli.name} {case} #{n}: {stuck}", file=sys.stderr)
        run.wait("idle")
    finally:
        run.wardian("host", "stop", check=False)
    return run


def times_in_a_request(cli: RealCli, token: str) -> int:
    """0: lost; 1: right; 2+: doubled (twice in one request's history, which holds every turn)."""
    bodies = [request.body_text() for request in cli.server.model_requests()]
    return max((occurrences(body, f"ECHO:{token}") for body in bodies), default=0)


def percentile(samples: list[float], fraction: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def case_line(run: Run, case: str, sent: list[Sent]) -> str:
    counts = {item.token: times_in_a_request(run.cli, item.token) for item in sent}
    failed = [item for item in sent if item.answer is None]
    # Lost: answered as delivered, never seen by the model. A refused send is no loss, unless
    # the model got it all the same (a false refusal).
    lost = sum(1 for item in sent if item.answer is not None and counts[item.token] == 0)
    falsely_refused = sum(1 for item in failed if counts[item.token] > 0)
    doubled = sum(1 for count in counts.values() if count > 1)
    delivered = [item.answer["delivery"] for item in sent if item.answer is not None]
    seconds = [delivery["seconds"] for delivery in delivered if "seconds" in delivery]
    by = Counter(delivery["confirmed_by"] for delivery in delivered)
    resubmitted = sum(1 for delivery in delivered if delivery.get("resubmitted"))
    latency = f"p50 {statistics.median(seconds):.2f} s, p99 {percentile(seconds, 0.99):.2f} s" if seconds else "-"
    verdict = "ok" if lost == 0 and doubled == 0 and falsely_refused == 0 else "OVER TARGET"
    return (
        f"  {case:<15} n={len(sent):<4} lost {lost} (target 0)  doubled {doubled} (target 0)  "
        f"refused {len(failed)} (falsely {falsely_refused})  confirmed {latency}  by {dict(by)}  "
        f"resubmitted {resubmitted}  {verdict}"
    )


def report(run: Run) -> None:
    for case in ("idle", *CASES[1:]):
        sent = [item for item in run.sent if item.case == case]
        if sent:
            print(case_line(run, case, sent))
        for item in sent:
            if item.answer is None:
                print(f"      refused {item.token}: {(item.error or {}).get('message')}")


def in_namespace(argv: list[str]) -> None:
    """Re-run this script where the only network is loopback, as the real-CLI tests run."""
    if in_loopback_namespace():
        bring_loopback_up()
        return
    os.execvp(unshare_command()[0], [*unshare_command(), sys.executable, *argv])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--prompts", type=int, default=200, help="prompts per CLI (a quarter per case)")
    parser.add_argument("--clis", default="claude,codex,gemini,opencode")
    args = parser.parse_args()
    in_namespace([str(Path(__file__).resolve()), *sys.argv[1:]])
    for name in args.clis.split(","):
        pin = pinned_clis(name)[0]
        print(f"{name} {pin.version}: {args.prompts} prompts through the host")
        with tempfile.TemporaryDirectory(prefix=f"delivery-{name}-") as scratch, ModelServer() as server:
            cli = make_real_cli(name, Path(scratch), server, pin)
            try:
                report(drive(cli, args.prompts, Path(scratch)))
            finally:
                cli.close()


if __name__ == "__main__":
    main()
