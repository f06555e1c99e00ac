"""The real Claude Code through `wardian`: how soon a turn's end and a sent prompt arrive.

    .venv/bin/python benchmarks/real_cli_latency.py [--turns 20] [--runs 5]

Runs inside a loopback-only network namespace (it re-executes itself under `unshare --net`,
as the real-CLI tests do): the CLI reaches nothing but the fake model server on 127.0.0.1,
which stamps when each request arrived and when its answer was written (time.monotonic(),
the machine's clock, so this process's stamps compare with them). One agent, `--runs` runs
of `--turns` turns; each turn:

- `agent wait --until idle --next` is started first; the prompt's MOCK_DELAY_MS holds the
  model's answer back until it surely waits. Turn end -> wait returns: from the answer of the
  turn's main request (the one offering tools) written whole to the waiting process's exit
  (seen through a pidfd: `Popen.wait(timeout=...)` polls with sleeps of up to 50 ms, which the
  figure would count). It is split at the moment the host recorded idle (the agent's
  `last_status_at`, to the ms): before it, Claude's own time to send its Stop hook once the
  answer is read (plus the host's ~1 ms to record it), the floor of the target; after it,
  Wardian's, the waiting CLI woken and gone.
- `send` -> the model receives: from starting `wardian send` to the first model request that
  carries the prompt's token (the send's own start-up included, as an agent pays it). Every
  other turn sends through the host's control socket from this process instead, and the
  figure is split into its parts: the `wardian send` start (the process turns' start to
  submit, less the socket turns'), the host's delivery (a socket turn's request to its submit
  key), and the CLI's own time (the submit key to the model's request). The submit key's
  time is the send's answer less its `delivery.seconds` (how long after the key the prompt
  was confirmed taken).

`--compare` adds an agent whose hooks all run the command recorder (its launch finds no hook
endpoint), its turns interleaved with the first's: the HTTP hooks' gain under the same load.
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from delivery import WARDIAN, Run, host_environment, in_namespace, percentile
from process_exit import exited_at

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "support"))

from model_server.server import ModelServer  # noqa: E402 - after the harness joins the path
from model_server.wire import RecordedRequest  # noqa: E402
from real_cli_fixtures import make_real_cli, pinned_clis  # noqa: E402

from wardian_core import hook_endpoint  # noqa: E402
from wardian_core.control.client import ControlClient  # noqa: E402

TURN_END_P50_MS, TURN_END_MAX_MS, SEND_P50_MS = 15.0, 50.0, 250.0
# Long enough for `agent wait` to start and reach the host before the turn can end.
ANSWER_DELAY_MS = 1500


def with_token(run: Run, token: str) -> list[RecordedRequest]:
    return [request for request in run.cli.server.model_requests() if f"ECHO:{token}" in request.body_text()]


def main_request(requests: list[RecordedRequest]) -> RecordedRequest:
    """The turn's own request: it offers the tools (a title or a summary request offers none)."""
    offering = [request for request in requests if (request.json() or {}).get("tools")]
    return (offering or requests)[-1]


def hook_log_written(run: Run) -> float:
    """When (time.monotonic()) the agent's hook log was last appended to: the turn's Stop."""
    uuid = run.wardian("agent", run.name, "--field", "uuid").stdout.strip()
    log_file = Path(run.env["WARDIAN_HOME"]) / "agents" / uuid / "claude" / "hooks.jsonl"
    return log_file.stat().st_mtime - time.time() + time.monotonic()


def stop_hook_kind(run: Run) -> str:
    """How the agent's Stop hook reaches the host: `http` (the host's endpoint) or `command`."""
    uuid = run.wardian("agent", run.name, "--field", "uuid").stdout.strip()
    settings = Path(run.env["WARDIAN_HOME"]) / "agents" / uuid / "claude" / "settings.json"
    return str(json.loads(settings.read_text())["hooks"]["Stop"][0]["hooks"][0]["type"])


def idle_recorded(run: Run) -> float:
    """When (time.monotonic(), to the ms) the host recorded the agent's present status."""
    stamp = run.wardian("agent", run.name, "--field", "last_status_at").stdout.strip()
    wall = datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()
    return wall - time.time() + time.monotonic()


def details(run: Run, token: str, sent_at: float, returned_at: float, requests: list[RecordedRequest]) -> None:
    """Each request of the turn, its stamps from the send's start: where a turn's time went."""
    for request in requests:
        offers = "tools" if (request.json() or {}).get("tools") else "no tools"
        print(
            f"    {token} {request.route} {request.reply_kind} ({offers}): arrived "
            f"{(request.received_at - sent_at) * 1000:.0f} ms, answered {(request.answered_at - sent_at) * 1000:.0f} ms"
        )
    stop = (hook_log_written(run) - sent_at) * 1000
    idle = (idle_recorded(run) - sent_at) * 1000
    returned = (returned_at - sent_at) * 1000
    print(f"    {token} hook log written {stop:.0f} ms, idle recorded {idle:.0f} ms, wait returned {returned:.0f} ms")


@dataclass
class Turn:
    """One turn's figures, in ms."""

    turn_end: float  # the model's answer written -> `agent wait` returned
    claude_stop: float  # the model's answer written -> the host recorded idle (Claude's Stop hook)
    send: float  # the send started -> the model received the prompt
    to_submit: float  # the send started -> the submit key written
    by_process: bool  # sent by `wardian send` (else through the control socket)

    @property
    def cli_own(self) -> float:
        """The submit key written -> the model received the prompt: the CLI's own time."""
        return self.send - self.to_submit


def send_by_process(run: Run, text: str) -> dict[str, Any]:
    return dict(json.loads(run.wardian("send", text, "--to", run.name).stdout))


def send_by_socket(run: Run, text: str) -> dict[str, Any]:
    """The same send without a `wardian` process: what the host alone takes."""
    with ControlClient.connect(Path(run.env["WARDIAN_HOME"])) as client:
        return dict(client.request("send", {"to": run.name, "text": text}, 120))


def one_turn(run: Run, token: str, by_process: bool, show: bool = False) -> Turn:
    waiter = subprocess.Popen(
        [WARDIAN, "agent", "wait", run.name, "--until", "idle", "--next", "--timeout", "60s"],
        env=run.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    sent_at = time.monotonic()
    answer = (send_by_process if by_process else send_by_socket)(
        run, f"latency MOCK_DELAY_MS:{ANSWER_DELAY_MS} ECHO:{token}"
    )
    submitted_at = time.monotonic() - answer["delivery"]["seconds"]
    returned_at = exited_at(waiter, 90)
    if waiter.returncode != 0:
        raise SystemExit(f"agent wait failed: {waiter.stderr.read().decode() if waiter.stderr else ''}")
    requests = with_token(run, token)
    if show:
        details(run, token, sent_at, returned_at, requests)
    turn_end = main_request(requests).answered_at
    received = min(request.received_at for request in requests)
    ms = 1000
    stop = (idle_recorded(run) - turn_end) * ms
    send, to_submit = (received - sent_at) * ms, (submitted_at - sent_at) * ms
    return Turn((returned_at - turn_end) * ms, stop, send, to_submit, by_process)


def interpreter_floor() -> float:
    """Median ms of `python -c pass`: how loaded the machine is while the run measures."""
    samples = []
    for _ in range(5):
        started = time.monotonic()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        samples.append((time.monotonic() - started) * 1000)
    return statistics.median(samples)


def verdict(value: float, target: float) -> str:
    return "ok" if value <= target else "OVER TARGET"


def report(label: str, turns: list[Turn], floor: float) -> None:
    turn_ends = [turn.turn_end for turn in turns]
    sends = [turn.send for turn in turns if turn.by_process]
    p50, worst, send_p50 = statistics.median(turn_ends), max(turn_ends), statistics.median(sends)
    print(
        f"  {label}: turn end -> wait returns p50 {p50:6.1f} ms (target <= {TURN_END_P50_MS:g}) "
        f"{verdict(p50, TURN_END_P50_MS)}, max {worst:6.1f} ms (target <= {TURN_END_MAX_MS:g}) "
        f"{verdict(worst, TURN_END_MAX_MS)};  send -> model receives p50 {send_p50:6.1f} ms "
        f"(target <= {SEND_P50_MS:g}) {verdict(send_p50, SEND_P50_MS)}, p90 {p90(sends):6.1f} ms;  "
        f"floor python -c pass {floor:.0f} ms"
    )
    print(f"    turn end -> wait returns, by part: {turn_end_parts(turns)}")
    print(f"    send -> model receives, by part (p50): {send_parts(turns)}")
    print(f"    send -> model receives, by part (p90): {send_parts(turns, p90)}")


def turn_end_parts(turns: list[Turn]) -> str:
    """Claude's share (the floor the target sits on: no host can answer before the CLI's Stop
    reaches it) beside Wardian's (idle recorded -> the waiting CLI's process gone)."""
    claude = [turn.claude_stop for turn in turns]
    wardian = [turn.turn_end - turn.claude_stop for turn in turns]
    return (
        f"Claude's Stop hook recorded p50 {statistics.median(claude):.1f} ms, max {max(claude):.1f} ms "
        f"(the CLI's floor) + Wardian's wake-up and exit p50 {statistics.median(wardian):.1f} ms, "
        f"max {max(wardian):.1f} ms"
    )


def p90(samples: list[float]) -> float:
    return percentile(samples, 0.9)


def send_parts(turns: list[Turn], at: Callable[[list[float]], float] = statistics.median) -> str:
    """Each part at one statistic (`at`: the median, or p90 to see which part makes slow sends slow);
    the send's start is the process turns' figure less the socket turns'."""
    by_process = at([turn.to_submit for turn in turns if turn.by_process])
    by_socket = [turn for turn in turns if not turn.by_process]
    if not by_socket:
        return "(no socket turns)"
    host = at([turn.to_submit for turn in by_socket])
    cli_own = at([turn.cli_own for turn in turns])
    socket_send = at([turn.send for turn in by_socket])
    return (
        f"`wardian send` start {by_process - host:.0f} ms + host delivery {host:.0f} ms + "
        f"the CLI to its request {cli_own:.0f} ms (through the socket, no process: {socket_send:.0f} ms)"
    )


def spawn(run: Run, command_hooks: bool = False) -> None:
    """An idle agent; with `command_hooks` its launch finds no hook endpoint recorded in the home,
    so every hook runs the recorder, as before the endpoint (the comparison's other side)."""
    port_file = Path(run.env["WARDIAN_HOME"]) / "run" / hook_endpoint.PORT_FILE
    hidden = port_file.with_name(port_file.name + ".hidden")
    if command_hooks:
        port_file.rename(hidden)
    try:
        where = ["--workspace", str(run.cli.workspace)]
        run.wardian("agent", "spawn", "--provider", "claude", "--class", "Bench", "--name", run.name, *where)
    finally:
        if command_hooks:
            hidden.rename(port_file)
    run.wait("idle")
    print(f"  {run.name}: Stop hook {stop_hook_kind(run)}")


def measure(run: Run, runs: int, turns: int, show: bool, compare: bool) -> None:
    """`runs` runs of `turns` turns; with `compare`, each turn of the agent whose hooks post to
    the host is followed by one of an agent whose hooks run the recorder, so both meet the
    machine's load alike."""
    spawn(run)
    other = Run(run.cli, run.env, name="bench-command-hooks") if compare else None
    if other is not None:
        spawn(other, command_hooks=True)
    for number in range(1, runs + 1):
        floor = interpreter_floor()
        samples: dict[str, list[Turn]] = {run.name: [], **({other.name: []} if other else {})}
        for turn in range(turns):
            for agent in (run, other) if other is not None else (run,):
                token = f"r{number}t{turn}{agent.name[-1]}"
                samples[agent.name].append(one_turn(agent, token, by_process=turn % 2 == 0, show=show))
        for name, taken in samples.items():
            report(f"run {number} {name}", taken, floor)
            if number == 1:
                first_turn(taken[0])


def first_turn(turn: Turn) -> None:
    """The agent's first prompt, apart: Claude is still busy with its own start-up when its prompt
    first shows (sent 6 s after idle, the first turn is like the others; with Wardian's MCP server
    off the first send is as slow, but its Stop comes sooner: that server's start-up, ~1.3 s of
    CPU importing the MCP SDK, competes with Claude). That one turn can set the max and p90."""
    print(
        f"    the first turn after spawn: turn end -> wait returns {turn.turn_end:.1f} ms (Claude's Stop hook "
        f"recorded {turn.claude_stop:.1f} ms), send -> model receives {turn.send:.1f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--turns", type=int, default=20, help="turns per run")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--details", action="store_true", help="print each turn's requests and stamps")
    parser.add_argument("--compare", action="store_true", help="beside an agent whose hooks run the recorder")
    args = parser.parse_args()
    in_namespace([str(Path(__file__).resolve()), *sys.argv[1:]])
    pin = pinned_clis("claude")[0]
    print(f"real_cli_latency: claude {pin.version} through the host, {args.runs} runs of {args.turns} turns")
    with tempfile.TemporaryDirectory(prefix="latency-claude-") as scratch, ModelServer() as server:
        cli = make_real_cli("claude", Path(scratch), server, pin)
        home = Path(scratch) / "wardian-home"
        home.mkdir()
        run = Run(cli, host_environment(cli, home))
        try:
            measure(run, args.runs, args.turns, args.details, args.compare)
        finally:
            run.wardian("host", "stop", check=False)
            cli.close()


if __name__ == "__main__":
    main()
