"""What an agent was in the middle of goes on across a host restart or a kill -9 of the host:
its telemetry followed on from where the old host stopped, its pending dialog still answerable —
through the real `wardian` command, the example provider and its stand-in CLI."""

import json
import os
import re
import select
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from host_restarts import crash_host, status_changes
from prompted_shell import prompted_bash
from pty_reading import read_until
from ptyprocess import PtyProcess

sys.path.insert(0, str(Path(__file__).parents[1] / "example_provider"))
pytest_plugins = ["wardian_test_packages"]

WARDIAN = str(Path(sys.executable).parent / "wardian")


@pytest.fixture
def wardian(run_wardian: Callable[..., Any], example_cli_env: dict[str, str]) -> Callable[..., Any]:
    """`wardian ARGS` whose host, whichever command starts it, has the example provider."""

    def run(*args: str) -> Any:
        return run_wardian(*args, env=example_cli_env)

    return run


@pytest.fixture
def example_agent(wardian: Callable[..., Any], workspace: Path) -> Callable[[str], dict[str, Any]]:
    """Spawn an example agent and wait for its prompt; its record."""

    def spawn(name: str) -> dict[str, Any]:
        spawned = wardian(
            "agent", "spawn", "--provider", "example", "--class", "Coder", "--name", name, "--workspace", str(workspace)
        )
        assert spawned.returncode == 0, spawned.stderr
        _wait(wardian, name, "idle")
        agent: dict[str, Any] = spawned.json()["agent"]
        return agent

    return spawn


def _wait(wardian: Callable[..., Any], name: str, status: str) -> dict[str, Any]:
    waited = wardian("agent", "wait", name, "--until", status, "--timeout", "30s")
    assert waited.returncode == 0, waited.stderr
    agent: dict[str, Any] = waited.json()["agent"]
    return agent


def test_telemetry_goes_on_from_where_a_killed_host_stopped(
    example_agent: Callable[[str], dict[str, Any]], wardian: Callable[..., Any], wardian_home: Path
) -> None:
    agent = example_agent("tele")["uuid"]
    hooks = wardian_home / "agents" / agent / "example" / "hooks.jsonl"

    def hook(**record: Any) -> None:
        """What the CLI's hooks append, one line at a time."""
        with hooks.open("a", encoding="utf-8") as log:
            log.write(json.dumps(record) + "\n")

    hook(event="turn_started")
    _wait(wardian, "tele", "processing")
    hook(event="permission_request", tool="rm")
    _wait(wardian, "tele", "action_required")
    hook(event="permission_resolved", answer="accepted")
    _wait(wardian, "tele", "processing")
    hook(event="turn_completed", output_tokens=5)
    _wait(wardian, "tele", "idle")
    before_kill = len(status_changes(wardian_home, agent))
    crash_host(wardian_home)

    # A turn that ended while no host ran, and the next one begun.
    hook(event="turn_started")
    hook(event="turn_completed", output_tokens=7)
    hook(event="turn_started")
    assert wardian("host", "start").returncode == 0

    _wait(wardian, "tele", "processing")
    assert (
        wardian("agent", "tele", "--fields", "status_evidence").json()["agent"]["status_evidence"]["source"] == "hooks"
    )
    changes = [to for to, _ in status_changes(wardian_home, agent)[before_kill:]]
    # The old host's dialog is not read as new (no action_required again); the turn no host saw is.
    assert changes == ["processing", "idle", "processing"]
    usage = wardian("agent", "tele", "--fields", "usage").json()["agent"]["usage"]
    assert (usage["turns"], usage["output_tokens"]) == (2, 5 + 7)  # each turn once, none merged


# A turn starts with each line typed ("got-LINE") and ends once a line is written to the FIFO
# `release`; the shell then says on the FIFO `ended` that it ended the turn.
GATE = prompted_bash(
    'printf "> "; while read x; do echo "got-$x"; read _ < release; echo "done-$x"; printf "> "; echo > ended; done'
)


def _gate(wardian: Callable[..., Any], generic_spawn_args, workspace: Path) -> None:
    for fifo in ("release", "ended"):
        os.mkfifo(workspace / fifo)
    assert wardian(*generic_spawn_args("gate", *GATE)).returncode == 0


def _released(workspace: Path) -> None:
    """End the gated turn; return once the agent's shell has ended it (an event, not a poll)."""
    ended = threading.Thread(target=(workspace / "ended").read_text, daemon=True)
    ended.start()
    (workspace / "release").write_text("go\n")  # the shell waits reading it
    ended.join(60)
    assert not ended.is_alive(), "the gated turn did not end"


def _waiting(wardian: Callable[..., Any], *clis: subprocess.Popen[str]) -> None:
    """Return once each CLI sent its request and reads the answer, and the host took the requests
    in: each is blocked on its socket, and a later request was answered."""
    for cli in clis:
        # A socket with a timeout is read after a poll; nothing else in a starting CLI polls.
        while not re.search(r"poll|unix_stream_read", Path(f"/proc/{cli.pid}/wchan").read_text()):
            assert cli.poll() is None, cli.communicate()
            time.sleep(0.05)  # a process's state can only be polled
    assert wardian("host", "status").returncode == 0


def _answer(cli: subprocess.Popen[str]) -> dict[str, Any]:
    out, err = cli.communicate(timeout=120)
    assert cli.returncode == 0, err
    answer: dict[str, Any] = json.loads(out)
    return answer


def test_waiting_clis_go_on_with_the_next_host_and_see_what_happened_meanwhile(
    wardian: Callable[..., Any], example_cli_env: dict[str, str], generic_spawn_args, workspace: Path, wardian_home
) -> None:
    _gate(wardian, generic_spawn_args, workspace)
    _wait(wardian, "gate", "idle")

    def cli(*args: str) -> subprocess.Popen[str]:
        env = os.environ | example_cli_env
        return subprocess.Popen([WARDIAN, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)

    fresh_idle = cli("agent", "wait", "gate", "--until", "idle", "--next", "--timeout", "120s")
    output = cli("agent", "watch", "gate", "--until", "output:done-one", "--timeout", "120s")
    # Listening before the line is typed: a watch counts only the output after it began, and
    # one started after the send could come after the shell's reply.
    reached = cli("agent", "watch", "gate", "--until", "output:got-one", "--timeout", "120s")
    _waiting(wardian, fresh_idle, output, reached)
    sent = cli("send", "one", "--to", "gate", "--wait-until", "idle", "--timeout", "120s")
    # Delivered: the shell read the line, so its Enter was typed (`processing` alone is the
    # typed text's echo, before the Enter a crash could still cut off); the send waits for the
    # turn's end now.
    _answer(reached)
    _waiting(wardian, sent)
    crash_host(wardian_home)
    _released(workspace)  # the turn ends while no host runs
    assert wardian("host", "start").returncode == 0

    delivered = _answer(sent)
    assert delivered["results"][0]["result"] == "delivered" and delivered["agent"]["status"] == "idle"
    assert _answer(fresh_idle)["agent"]["status"] == "idle"
    assert "done-one" in _answer(output)["watch"]["output"]
    whole = wardian("agent", "watch", "gate", "--since", "0").json()["watch"]["output"]
    assert (whole.count("got-one"), whole.count("done-one")) == (1, 1)  # typed once, nothing lost


def test_a_wait_whose_host_does_not_come_back_fails_in_its_own_time(
    wardian: Callable[..., Any], generic_spawn_args, wardian_home: Path, workspace: Path
) -> None:
    _gate(wardian, generic_spawn_args, workspace)
    _wait(wardian, "gate", "idle")
    assert wardian("send", "one", "--to", "gate").returncode == 0
    _wait(wardian, "gate", "processing")
    waiting = subprocess.Popen(
        [WARDIAN, "agent", "wait", "gate", "--until", "idle", "--timeout", "5s"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    _waiting(wardian, waiting)
    crash_host(wardian_home)
    out, err = waiting.communicate(timeout=60)
    assert waiting.returncode == 6 and out == ""
    error = json.loads(err)["error"]
    assert (error["code"], error["details"]["reason"]) == ("app_not_running", "host_gone")
    assert "wardian host start" in error["hint"]


def test_attach_keeps_its_terminal_across_a_host_restart(
    wardian: Callable[..., Any], generic_spawn_args: Callable[..., list[str]]
) -> None:
    assert wardian(*generic_spawn_args("seat", "--", "bash", "--norc")).returncode == 0
    _wait(wardian, "seat", "idle")
    seat = PtyProcess.spawn([WARDIAN, "agent", "attach", "seat"], env=dict(os.environ), dimensions=(30, 100))
    read_until(seat, b"bash-")
    restarted = wardian("host", "restart")
    assert restarted.returncode == 0, restarted.stderr
    seat.write(b"echo after-$((40+2))\r")  # typed into the same attach, now the next host's
    assert b"after-42" in read_until(seat, b"after-42", limit=60)  # (it stops early if the attach ends)
    seat.write(b"\x1cd")
    read_until(seat, b'"reason": "detached"')
    seat.wait()
    assert seat.exitstatus == 0


def test_a_pending_approval_and_a_pending_ask_outlive_a_host_restart(
    example_agent: Callable[[str], dict[str, Any]],
    wardian: Callable[..., Any],
    generic_spawn_args: Callable[..., list[str]],
    workspace: Path,
) -> None:
    example_agent("asker")
    assert wardian("send", "tool touch accepted.txt", "--to", "asker").returncode == 0
    _wait(wardian, "asker", "action_required")
    answering = [sys.executable, "-m", "wardian_host.testing.answering_agent"]
    assert wardian(*generic_spawn_args("ans", "--", *answering)).returncode == 0
    _wait(wardian, "ans", "idle")
    request_id = wardian("ask", "ans", "long job SILENT", "--no-wait").json()["request_id"]

    restarted = wardian("host", "restart")
    assert restarted.returncode == 0, restarted.stderr

    assert wardian("agent", "asker", "--field", "status").stdout.strip() == "action_required"
    accepted = wardian("send", "--approval", "accept", "--to", "asker", "--timeout", "30s")
    assert accepted.returncode == 0, accepted.stderr
    assert accepted.json()["left_action_required"] is True and (workspace / "accepted.txt").exists()
    _wait(wardian, "asker", "idle")
    assert wardian("ask", "show", request_id).json()["request"]["status"] == "pending"
    replied = wardian("reply", request_id, "--status", "done", "after the restart")
    assert replied.returncode == 0, replied.stderr
    assert wardian("ask", "show", request_id).json()["request"]["reply"]["body"] == "after the restart"


def test_watch_follow_goes_on_from_its_cursor_across_a_host_restart(
    wardian: Callable[..., Any], generic_spawn_args: Callable[..., list[str]]
) -> None:
    counter = prompted_bash('n=0; while :; do printf "line-%d\\n> " $n; read x || break; n=$((n+1)); done')
    assert wardian(*generic_spawn_args("counter", *counter)).returncode == 0
    _wait(wardian, "counter", "idle")
    follow = subprocess.Popen(
        [WARDIAN, "agent", "watch", "counter", "--follow", "--since", "0"], stdout=subprocess.PIPE
    )
    pending = bytearray()
    try:
        streamed = [_streamed_until(follow, "line-0", pending)]
        assert wardian("host", "restart").returncode == 0
        sent = wardian("send", "next", "--to", "counter", "--wait-until", "idle", "--timeout", "30s")
        assert sent.returncode == 0, sent.stdout
        streamed.append(_streamed_until(follow, "line-1", pending))
    finally:
        follow.terminate()
        follow.wait()
    output = "".join(streamed)
    assert (output.count("line-0"), output.count("line-1")) == (1, 1)  # none lost, none twice


def _streamed_until(follow: subprocess.Popen[bytes], text: str, pending: bytearray) -> str:
    """The output `watch --follow` printed until `text` appeared in it (`pending`: a line begun)."""
    assert follow.stdout is not None
    output = ""
    while text not in output:
        assert select.select([follow.stdout], [], [], 60)[0], f"{text!r} not streamed; got {output!r}"
        chunk = os.read(follow.stdout.fileno(), 65536)
        assert chunk, f"the stream ended before {text!r}; got {output!r}"
        pending += chunk
        *lines, rest = pending.split(b"\n")
        pending[:] = rest
        output += "".join(json.loads(line).get("output", "") for line in lines)
    return output


# Each line naming a request says so ("asked-ID"), then, once a line is written to the FIFO
# `release`, answers it from inside the agent with `wardian reply` (its exit code in `replied`).
REPLIER = prompted_bash(
    'printf "> "; while read -r x; do id=$(echo "$x" | grep -o "ask_[0-9a-f]\\{16\\}" | head -n1); '
    'if [ -n "$id" ]; then echo "asked-$id"; read _ < release; wardian reply "$id" --status done "after the host"; '
    'echo $? > replied; fi; printf "> "; done'
)


def _asked(
    wardian: Callable[..., Any],
    generic_spawn_args: Callable[..., list[str]],
    workspace: Path,
    timeout: str | None,
    env: dict[str, str] | None = None,
) -> tuple[subprocess.Popen[str], dict[str, Any]]:
    """A REPLIER agent asked by a waiting `wardian ask` (`--timeout` unless None; `env` added to
    the asking CLI's), once the question reached it: the asking CLI and the request as stored."""
    os.mkfifo(workspace / "release")
    assert wardian(*generic_spawn_args("replier", *REPLIER)).returncode == 0
    _wait(wardian, "replier", "idle")

    def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
        environ = None if env is None else os.environ | env
        pipe = subprocess.PIPE
        return subprocess.Popen([WARDIAN, *args], stdout=pipe, stderr=pipe, text=True, env=environ)

    # Listening before the question is typed: a watch counts only the output after it began.
    reached = cli("agent", "watch", "replier", "--until", "output:asked-ask_", "--timeout", "120s")
    _waiting(wardian, reached)
    limit = [] if timeout is None else ["--timeout", timeout]
    asking = cli("ask", "replier", "Is it safe?", *limit, env=env)
    _answer(reached)
    [request] = wardian("ask", "list", "--agent", "replier").json()["requests"]
    assert request["status"] == "pending" and request["delivery"]["result"] == "delivered"
    return asking, request


@pytest.mark.parametrize("host_end", ["restart", "kill -9"])
def test_a_waiting_ask_gets_its_reply_from_the_next_host_without_asking_again(
    host_end: str,
    wardian: Callable[..., Any],
    generic_spawn_args: Callable[..., list[str]],
    workspace: Path,
    wardian_home: Path,
) -> None:
    asking, request = _asked(wardian, generic_spawn_args, workspace, "120s")
    if host_end == "restart":
        assert wardian("host", "restart").returncode == 0
    else:
        crash_host(wardian_home)
        assert wardian("host", "start").returncode == 0
    (workspace / "release").write_text("go\n")  # the agent replies to the next host

    answer = _answer(asking)
    assert (answer["request_id"], answer["status"]) == (request["request_id"], "done")
    assert (answer["reply"]["body"], answer["reply"]["source"]) == ("after the host", "agent")
    assert answer["delivery"]["result"] == "delivered" and "reply" in [event["kind"] for event in answer["events"]]
    assert len(wardian("ask", "list", "--agent", "replier").json()["requests"]) == 1
    whole = wardian("agent", "watch", "replier", "--since", "0").json()["watch"]["output"]
    assert whole.count(f"asked-{request['request_id']}") == 1  # the question was typed once


def test_an_ask_whose_host_does_not_come_back_stays_pending_and_says_where_its_reply_lands(
    wardian: Callable[..., Any], generic_spawn_args: Callable[..., list[str]], workspace: Path, wardian_home: Path
) -> None:
    # No --timeout: the wait for a next host is WARDIAN_CONTROL_TIMEOUT's (docs/cli.md), so the
    # crash is followed by 2 s of waiting, not by what a --timeout long enough for the question
    # to be typed on a loaded machine leaves of itself. The asking CLI waits for the reply for
    # ever before that, so no limit can pass before the crash.
    asking, request = _asked(wardian, generic_spawn_args, workspace, None, {"WARDIAN_CONTROL_TIMEOUT": "2"})
    crash_host(wardian_home)
    out, err = asking.communicate(timeout=60)
    assert asking.returncode == 6 and out == ""
    error = json.loads(err)["error"]
    assert (error["code"], error["details"]["reason"]) == ("app_not_running", "host_gone")
    assert (error["details"]["request_id"], error["details"]["status"]) == (request["request_id"], "pending")
    assert f"wardian ask show {request['request_id']}" in error["hint"]
    assert wardian("ask", "show", request["request_id"]).json()["request"]["status"] == "pending"


def test_a_reply_given_while_no_host_runs_waits_for_the_next_host(
    wardian: Callable[..., Any], generic_spawn_args: Callable[..., list[str]], workspace: Path, wardian_home: Path
) -> None:
    asking, request = _asked(wardian, generic_spawn_args, workspace, "120s")
    # The reply's exit code comes through a FIFO, read as it is written: the asking CLI has its
    # answer as the host stores the reply, before the agent's `wardian reply` exits.
    os.mkfifo(workspace / "replied")
    exits = os.open(workspace / "replied", os.O_RDONLY | os.O_NONBLOCK)
    crash_host(wardian_home)
    (workspace / "release").write_text("go\n")  # the agent replies while no host runs
    _reply_waits(request["request_id"], exits)
    assert wardian("host", "start").returncode == 0

    answer = _answer(asking)
    assert (answer["status"], answer["reply"]["body"], answer["reply"]["source"]) == ("done", "after the host", "agent")
    replied = _reply_exit(exits, timeout=60)
    os.close(exits)
    assert replied == "0\n"


def _reply_exit(exits: int, timeout: float) -> str | None:
    """The exit code the agent's `wardian reply` wrote to the FIFO `exits`, None while it runs.
    (A FIFO opened this way reports no hang-up until a writer came and went.)"""
    if not select.select([exits], [], [], timeout)[0]:
        return None
    return os.read(exits, 64).decode()


def _reply_waits(request_id: str, exits: int) -> None:
    """Return once the agent's `wardian reply` found no host and waits for one: it sleeps between
    its tries (a reply that gave up has written its exit code to `exits`)."""
    for _ in range(1200):  # a bound for a hang, never reached by a passing test
        gave_up = _reply_exit(exits, timeout=0)
        assert gave_up is None, f"the reply did not wait for a host: exit {gave_up}"
        if any(_sleeping_with(request_id, process) for process in Path("/proc").glob("[0-9]*")):
            return
        time.sleep(0.05)  # a process's state can only be polled
    raise AssertionError("no `wardian reply` waiting for a host")


def _sleeping_with(argument: str, process: Path) -> bool:
    try:
        return argument.encode() in (process / "cmdline").read_bytes() and "sleep" in (process / "wchan").read_text()
    except OSError:
        return False  # a process that ended meanwhile
