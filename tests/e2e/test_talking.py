"""send, wait, watch and attach through the real `wardian` command and real PTYs."""

import http.server
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from pty_reading import read_until
from ptyprocess import PtyProcess
from wardian_cli import output_shows

sys.path.insert(0, str(Path(__file__).parents[1] / "example_provider"))
pytest_plugins = ["wardian_test_packages"]

WARDIAN = str(Path(sys.executable).parent / "wardian")
FAKE_CLIS = Path(__file__).parent / "fake_clis"


def test_send_types_into_the_pty_and_wait_until_idle_waits_for_the_next_turn(spawn, wait_status, run_wardian) -> None:
    spawn("shell", "bash", "--norc")
    wait_status("shell", "idle")
    result = run_wardian("send", "echo answer-$((6*7))", "--to", "shell", "--wait-until", "idle", "--timeout", "20s")
    assert result.returncode == 0, result.stderr
    answer = result.json()
    assert answer["results"] == [
        {
            "agent": "shell",
            "uuid": answer["results"][0]["uuid"],
            "status": "idle",
            "result": "delivered",
            "queued": False,
            # The generic provider reports no turn start: the keys were typed, nothing confirms them.
            "delivery": {"confirmed_by": "unconfirmed"},
        }
    ]
    # Already idle before the send: success only came from a new turn, proved by its evidence.
    assert answer["agent"]["status_evidence"]["event"] == "turn_completed"
    watched = run_wardian("agent", "watch", "shell").json()["watch"]
    assert "answer-42" in watched["output"]
    assert [e["to"] for e in watched["events"]][-2:] == ["processing", "idle"]


def test_send_to_class_all_and_an_off_agent_reports_each_target(spawn, wait_status, run_wardian) -> None:
    spawn("a1", "bash", "--norc", cls="Alpha")
    spawn("a2", "bash", "--norc", cls="Alpha")
    spawn("b1", "bash", "-c", "exit 0", cls="Beta")
    run_wardian("agent", "wait", "b1", "--until", "off", "--timeout", "20s")
    wait_status("a1", "idle")
    wait_status("a2", "idle")
    to_class = run_wardian("send", "echo class-hello", "--to", "class:Alpha").json()["results"]
    assert sorted((r["agent"], r["result"]) for r in to_class) == [("a1", "delivered"), ("a2", "delivered")]
    # `all` is every live agent: the off one is named as skipped and the send succeeds.
    to_all = run_wardian("send", "echo all-$((6*7))", "--to", "all")
    assert to_all.returncode == 0, to_all.stderr
    results = to_all.json()["results"]
    assert {r["agent"]: r["result"] for r in results} == {"a1": "delivered", "a2": "delivered", "b1": "skipped"}
    assert "off" in next(r["reason"] for r in results if r["agent"] == "b1")
    # Named, an off agent still fails the send: every target's result is in the details.
    refused = run_wardian("send", "echo off-hello", "--to", "b1")
    assert refused.returncode == 1 and refused.error()["code"] == "not_live"
    assert refused.error()["details"]["results"][0]["result"] == "not_live"
    assert "wardian agent resume b1" in refused.error()["hint"]
    for name in ("a1", "a2"):  # each ran the command: its output shows, not only the echo of what was typed
        output_shows(name, "all-42")
    missing = run_wardian("send", "hi", "--to", "class:Gamma")
    assert missing.returncode == 2 and missing.error()["code"] == "not_found"


def test_multiline_and_long_bodies_arrive_whole(spawn, wait_status, run_wardian, workspace: Path, tmp_path) -> None:
    spawn("reader", "bash", "--norc")
    wait_status("reader", "idle")
    body = "cat > multi.txt <<'END'\nline one\nline two\nEND"
    assert run_wardian("send", body, "--to", "reader", "--wait-until", "idle", "--timeout", "20s").returncode == 0
    assert (workspace / "multi.txt").read_text() == "line one\nline two\n"
    long_word = "x" * 3000
    message = tmp_path / "long.txt"
    message.write_text(f"echo {long_word} > long.txt")
    sent = run_wardian("send", "--file", str(message), "--to", "reader", "--wait-until", "idle", "--timeout", "20s")
    assert sent.returncode == 0, sent.stderr
    assert (workspace / "long.txt").read_text().strip() == long_word


def test_a_message_to_a_busy_agent_is_queued_like_typed_input(spawn, wait_status, run_wardian, workspace) -> None:
    spawn("busy", "bash", "--norc")
    wait_status("busy", "idle")
    # Busy until the test says so, not for a fixed time a loaded machine could outlast.
    run_wardian("send", "until [ -e release ]; do echo tick; sleep 0.2; done", "--to", "busy")
    wait_status("busy", "processing")
    queued = run_wardian("send", "echo after-the-loop > queued.txt", "--to", "busy").json()["results"][0]
    (workspace / "release").touch()
    assert queued["result"] == "delivered" and queued["queued"] is True
    watched = run_wardian("agent", "watch", "busy", "--until", "status:idle", "--timeout", "30s")
    assert watched.returncode == 0, watched.stderr
    run_wardian("agent", "wait", "busy", "--until", "idle", "--timeout", "20s")
    assert (workspace / "queued.txt").read_text().strip() == "after-the-loop"


def test_send_body_sources_and_thread_are_checked(spawn, run_wardian) -> None:
    spawn("quiet", "bash", "--norc")
    cases = [
        (("send", "--to", "quiet"), "usage"),
        (("send", "hi", "--stdin", "--to", "quiet"), "usage"),
        (("send", "hi", "--to", "quiet", "--thread", "t1"), "not_supported"),
        (("send", "hi", "--to", "all", "--wait-until", "idle"), "usage"),
        (("send", "--file", "/no/such/file", "--to", "quiet"), "not_found"),
    ]
    for args, code in cases:
        assert run_wardian(*args).error()["code"] == code, args


@pytest.fixture
def example_agent(provider_packages, run_wardian, workspace: Path):
    env = {"PATH": f"{FAKE_CLIS}{os.pathsep}{os.environ['PATH']}", "WARDIAN_PLUGINS": "generic,example"}

    def spawn_example(name: str, *options: str, check: bool = True) -> Any:
        result = run_wardian(
            "agent",
            "spawn",
            "--provider",
            "example",
            "--class",
            "Coder",
            "--name",
            name,
            "--workspace",
            str(workspace),
            *options,
            env=env,
        )
        assert result.returncode == 0 or not check, result.stderr
        return result

    return spawn_example


def test_a_sender_tag_is_typed_only_where_the_provider_wants_one(
    spawn, example_agent, wait_status, run_wardian, workspace: Path
) -> None:
    example_agent("assistant")  # first: the host it starts finds the example CLI on its PATH
    spawn("shell", "bash", "--norc")
    wait_status("assistant", "idle")
    command = f"{WARDIAN} send 'echo peer-text' --to shell > to-shell.json; {WARDIAN} send 'hello' --to assistant"
    command += f" > to-assistant.json; {WARDIAN} send untagged --raw --to assistant > raw.json"
    talker_agent = spawn("talker", "bash", "-c", f"{command}; echo talker-DONE; exec sleep 600")
    # The sends' end is printed: a quiet-time idle could come between two of them. Followed from
    # the oldest output kept, since it may be printed before any watch of output after its call.
    output_shows("talker", "talker-DONE", timeout=60)
    to_shell = json.loads((workspace / "to-shell.json").read_text())
    assert (to_shell["sender"], to_shell["sender_verified"]) == ("talker", True)
    # The generic provider declares no tag: a shell gets the command as sent, and runs it.
    shell_output = run_wardian("agent", "watch", "shell").json()["watch"]["output"]
    assert "peer-text" in shell_output and "[from talker]" not in shell_output
    # An AI CLI's provider wants to know who speaks; --raw types the text as given all the same.
    assert "you said: [from talker] hello" in run_wardian("agent", "watch", "assistant").json()["watch"]["output"]
    raw = json.loads((workspace / "raw.json").read_text())
    assert (raw["sender"], raw["sender_verified"]) == ("talker", True)
    assert "you said: untagged" in run_wardian("agent", "watch", "assistant").json()["watch"]["output"]
    assert "[from talker] untagged" not in run_wardian("agent", "watch", "assistant").json()["watch"]["output"]
    # A process outside every agent that names no agent is nobody; one that names an agent
    # its tree does not confirm is that agent, unverified, and tagged so.
    nobody = run_wardian("send", "nobody", "--to", "assistant", env={"WARDIAN_SESSION_ID": "anything"})
    assert (nobody.json()["sender"], nobody.json()["sender_verified"]) == (None, None)
    # Followed from the cursor before the send, the echo is seen however late the follower connects.
    before = run_wardian("agent", "watch", "assistant").json()["watch"]["cursor"]
    claimed = run_wardian("send", "claimed", "--to", "assistant", env={"WARDIAN_SESSION_ID": talker_agent["uuid"]})
    assert (claimed.json()["sender"], claimed.json()["sender_verified"]) == ("talker", False)
    follower = subprocess.Popen(
        [WARDIAN, "agent", "watch", "assistant", "--follow", "--since", str(before)], stdout=subprocess.PIPE, text=True
    )
    deadline = threading.Timer(60, follower.kill)
    deadline.start()
    said = ""
    try:
        assert follower.stdout is not None
        for line in follower.stdout:
            said += json.loads(line).get("output", "")
            if "you said: [from talker, unverified] claimed" in said:
                break
    finally:
        deadline.cancel()
        follower.kill()
        follower.wait()
    assert "you said: [from talker, unverified] claimed" in said


class EventServer:
    """A local server-sent-events endpoint, as a CLI's own server would offer one."""

    def __init__(self, events: list[str]) -> None:
        self.events = events
        self.headers: list[dict[str, str]] = []
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # the name http.server calls
                server.headers.append(dict(self.headers))
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.end_headers()
                for data in server.events:
                    self.wfile.write(f": keep-alive\r\ndata: {data}\r\n\r\n".encode())
                    self.wfile.flush()
                server.delivered.set()
                server.stop.wait(30)

            def log_message(self, *args: Any) -> None:
                pass

        self.delivered, self.stop = threading.Event(), threading.Event()
        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/events"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.stop.set()
        self.httpd.shutdown()
        self.httpd.server_close()


def test_a_provider_follows_a_local_event_stream_it_names_with_the_agents_setting(
    example_agent, wait_status, show, run_wardian
) -> None:
    server = EventServer(['{"event": "permission_request", "tool": "Bash"}'])
    try:
        example_agent("streamed", "--provider-setting", f"events_url={server.url}")
        wait_status("streamed", "action_required")
        assert server.delivered.wait(10)
    finally:
        server.close()
    evidence = show("streamed")["status_evidence"]
    assert (evidence["source"], evidence["reason"], evidence["dialog"]) == ("events", "tool", "allow")
    assert evidence["message"] == "asks to run Bash"
    # The stream carried the header the provider generated for this agent.
    assert server.headers[0]["X-Example"] == "streamed"
    assert server.headers[0]["Accept"] == "text/event-stream"


def test_a_provider_setting_it_does_not_declare_is_refused_and_nothing_is_made(example_agent, run_wardian) -> None:
    unknown = example_agent("typo", "--provider-setting", "event_url=http://127.0.0.1:1/", check=False)
    assert unknown.returncode == 1 and unknown.error()["code"] == "validation_failed"
    assert "events_url" in unknown.error()["hint"]
    malformed = example_agent("typo", "--provider-setting", "events_url", check=False)
    assert malformed.returncode == 1 and malformed.error()["code"] == "usage"
    assert run_wardian("agent", "typo").returncode != 0  # no half-made agent


def test_approval_accept_and_reject_use_the_provider_keys(
    example_agent, wait_status, run_wardian, show, workspace
) -> None:
    example_agent("asker")
    wait_status("asker", "idle")
    not_waiting = run_wardian("send", "--approval", "accept", "--to", "asker")
    assert not_waiting.returncode == 1 and not_waiting.error()["code"] == "request_failed"
    run_wardian("send", "tool touch accepted.txt", "--to", "asker")
    pending = wait_status("asker", "action_required")
    accepted = run_wardian("send", "--approval", "accept", "--to", "asker", "--timeout", "20s").json()
    assert accepted["left_action_required"] is True
    assert (workspace / "accepted.txt").exists()
    # The dialog's end is its own event, back to the status before it, with the answer.
    wait_status("asker", "idle")
    resolved = show("asker")["status_evidence"]
    assert (resolved["event"], resolved["answer"]) == ("approval_resolved", "accepted")
    run_wardian("send", "tool touch rejected.txt", "--to", "asker")
    wait_status("asker", "action_required")
    rejected = run_wardian("send", "--approval", "reject", "--to", "asker", "--timeout", "20s").json()
    assert rejected["left_action_required"] is True
    wait_status("asker", "idle")
    assert show("asker")["status_evidence"]["answer"] == "rejected"
    assert not (workspace / "rejected.txt").exists()
    assert "denied" in run_wardian("agent", "watch", "asker").json()["watch"]["output"]
    assert pending["status"] == "action_required"


def test_an_approval_whose_dialog_stays_fails_with_approval_not_answered(
    example_agent, wait_status, run_wardian, show
) -> None:
    example_agent("stubborn")
    wait_status("stubborn", "idle")
    run_wardian("send", "stubborn", "--to", "stubborn")
    wait_status("stubborn", "action_required")

    ignored = run_wardian("send", "--approval", "accept", "--to", "stubborn", "--timeout", "2s")

    assert ignored.returncode == 1, ignored.stdout
    error = ignored.error()
    assert error["code"] == "approval_not_answered"
    assert (error["details"]["dialog"], error["details"]["answer"], error["details"]["status"]) == (
        "allow",
        "accept",
        "action_required",
    )
    assert "wardian agent screen stubborn" in error["hint"]
    assert show("stubborn")["status"] == "action_required"
    # Text typed into an open dialog would answer it: a plain send is refused.
    typed = run_wardian("send", "hello", "--to", "stubborn")
    assert typed.returncode == 1 and typed.error()["code"] == "request_failed"
    assert "allow dialog is open" in typed.error()["message"]


def test_approval_on_a_provider_without_approval_keys_is_refused(spawn, wait_status, run_wardian) -> None:
    spawn("plain", "bash", "-c", "echo 'Do you want to proceed?'; exec sleep 600")
    wait_status("plain", "idle")
    refused = run_wardian("send", "--approval", "reject", "--to", "plain")
    assert refused.returncode == 1 and refused.error()["code"] == "request_failed"


def test_wait_returns_at_once_times_out_and_reports_exit(spawn, wait_status, run_wardian) -> None:
    spawn("waiter", "bash", "--norc")
    wait_status("waiter", "idle")
    assert run_wardian("agent", "wait", "waiter", "--until", "idle").json()["agent"]["status"] == "idle"
    timed_out = run_wardian("agent", "wait", "waiter", "--until", "idle", "--next", "--timeout", "500ms")
    assert timed_out.returncode == 1 and timed_out.error()["code"] == "wait_timeout"
    assert "stayed idle" in timed_out.error()["message"] and "did not become" not in timed_out.error()["message"]
    assert "`wardian agent screen waiter`" in timed_out.error()["hint"]
    spawn("quitter", "bash", "-c", "read line; exit 4")
    wait_status("quitter", "idle")
    run_wardian("send", "bye", "--to", "quitter")
    exited = run_wardian("agent", "wait", "quitter", "--until", "processing", "--next", "--timeout", "20s")
    if exited.returncode == 0:  # the echo may show as processing before the exit
        exited = run_wardian("agent", "wait", "quitter", "--until", "idle", "--next", "--timeout", "20s")
    assert exited.returncode == 1 and exited.error()["code"] == "agent_exited"
    assert exited.error()["details"]["status"] == "error"
    bad = run_wardian("agent", "wait", "waiter", "--until", "idle", "--timeout", "soon")
    assert bad.returncode == 1 and bad.error()["code"] == "usage"


def test_watch_cursors_follow_output_and_expire(spawn, wait_status, run_wardian) -> None:
    spawn("talkative", "bash", "--norc")
    wait_status("talkative", "idle")
    first = run_wardian("agent", "watch", "talkative").json()["watch"]
    run_wardian("send", "echo second-part", "--to", "talkative", "--wait-until", "idle", "--timeout", "20s")
    second = run_wardian("agent", "watch", "talkative", "--since", str(first["cursor"])).json()["watch"]
    assert "second-part" in second["output"] and second["output"] not in first["output"]
    assert second["since"] == first["cursor"] and second["cursor"] > first["cursor"]
    raw = run_wardian("agent", "watch", "talkative", "--raw").json()["watch"]["output"]
    assert "\x1b[" in raw or "\r" in raw  # the terminal's own bytes, unstripped


def test_watch_until_output_does_not_match_the_echo_of_what_was_sent(spawn, wait_status, run_wardian) -> None:
    spawn("echoer", "bash", "--norc")
    wait_status("echoer", "idle")
    run_wardian("send", "echo MARK-$((1+1))", "--to", "echoer", "--wait-until", "idle", "--timeout", "20s")
    # "MARK-2" is already in the buffer: only new output may satisfy --until.
    stale = run_wardian("agent", "watch", "echoer", "--until", "output:MARK-2", "--timeout", "1s")
    assert stale.returncode == 1 and stale.error()["code"] == "watch_timeout"


def test_watch_of_a_cursor_older_than_the_buffer_is_cursor_expired(spawn, wait_status, run_wardian) -> None:
    assert run_wardian("settings", "set", "host.output_buffer_bytes", "65536").returncode == 0
    spawn("flood", "bash", "-c", "head -c 200000 /dev/zero | tr '\\0' 'z'; echo; exec sleep 600")
    wait_status("flood", "idle")
    expired = run_wardian("agent", "watch", "flood", "--since", "0")
    assert expired.returncode == 1
    error = expired.error()
    assert error["code"] == "cursor_expired" and error["details"]["oldest_cursor"] > 100000


def test_attach_types_reads_resizes_detaches_and_reattaches_with_two_clients(spawn, wait_status, run_wardian) -> None:
    spawn("seat", "bash", "--norc")
    wait_status("seat", "idle")
    first = PtyProcess.spawn([WARDIAN, "agent", "attach", "seat"], env=dict(os.environ), dimensions=(30, 100))
    second = PtyProcess.spawn([WARDIAN, "agent", "attach", "seat", "--read-only"], env=dict(os.environ))
    for client in (first, second):
        read_until(client, b"bash-")  # attached: the recent screen was replayed
    first.write(b"echo typed-$((20+3))\r")
    read_until(first, b"typed-23")
    read_until(second, b"typed-23")
    first.setwinsize(33, 111)
    # The client forwards the resize from its SIGWINCH handler, which may run after it has already
    # sent the next keys: ask again until the agent's terminal has the new size.
    sizes = []
    for _ in range(5):
        first.write(b"stty size\r")
        sizes.append(read_until(first, b"bash-"))
        if b"33 111" in sizes[-1]:
            break
    assert b"33 111" in sizes[-1], sizes
    first.write(b"\x1cd")  # Ctrl-\ then d
    tail = read_until(first, b'"reason": "detached"')
    first.wait()
    assert first.exitstatus == 0 and b"detached" in tail
    assert run_wardian("agent", "seat", "--field", "status").stdout.strip() in ("idle", "processing")
    again = PtyProcess.spawn([WARDIAN, "agent", "attach", "seat", "--detach-keys", "ctrl-a,q"], env=dict(os.environ))
    read_until(again, b"bash-")
    again.write(b"echo back-again\r")
    read_until(again, b"back-again")
    again.write(b"\x01q")
    read_until(again, b"detached")
    again.wait()
    second.write(b"\x1cd")
    read_until(second, b"detached")
    second.wait()
    assert again.exitstatus == 0 and second.exitstatus == 0


def test_headless_run_feeds_the_parser_line_by_line_and_keeps_the_session(
    example_agent, wait_status, run_wardian, show
) -> None:
    example_agent("runner")
    wait_status("runner", "idle")
    done = run_wardian("agent", "run", "runner", "summarise the repo")
    assert done.returncode == 0, done.stderr
    result = done.json()["run"]
    assert result["status"] == "idle" and result["exit_code"] == 0 and result["session_id"] == "example-session-1"
    assert [step["event"] for step in result["timeline"]] == ["turn_started", "turn_completed"]
    assert result["events"][-1]["message"] == "done: summarise the repo"
    assert show("runner")["provider_session_id"] == "example-session-1"
    resumed = run_wardian("agent", "run", "runner", "again", "--resume").json()["run"]
    assert resumed["session_mode"] == "resume" and resumed["status"] == "idle"
    failed = run_wardian("agent", "run", "runner", "please fail")
    assert failed.returncode == 1
    error = failed.error()
    assert error["code"] == "request_failed" and error["details"]["timeline"][-1]["to"] == "error"
    assert error["details"]["exit_code"] == 1
    quiet = run_wardian("agent", "run", "runner", "stop quietly").json()["run"]
    assert quiet["status"] == "idle" and quiet["timeline"][-1] == {
        "from": "processing",
        "to": "idle",
        "event": "exit",
        "rule": "exit 0 while working",
    }


def test_headless_run_timeout_ends_the_whole_process_group(example_agent, wait_status, run_wardian) -> None:
    import psutil

    example_agent("hanger")
    wait_status("hanger", "idle")

    home = os.environ["WARDIAN_HOME"]

    def living_sleeps() -> set[int]:
        # Read in one pass per process (`process_iter`'s attrs): another test's process may end
        # between the listing and a separate look, which would raise NoSuchProcess. Only this
        # test's home: tests in other workers start `sleep`s of their own meanwhile.
        return {
            process.pid
            for process in psutil.process_iter(["name", "status", "environ"])
            if process.info["name"] == "sleep"
            and process.info["status"] != psutil.STATUS_ZOMBIE
            and (process.info["environ"] or {}).get("WARDIAN_HOME") == home
        }

    before = living_sleeps()
    timed_out = run_wardian("agent", "run", "hanger", "please hang", "--timeout", "2s")
    assert timed_out.returncode == 1
    details = timed_out.error()["details"]
    assert details["timed_out"] is True and details["timeline"][-1]["event"] == "timeout"
    assert living_sleeps() - before == set()


def test_headless_run_on_a_provider_without_it_is_not_supported(spawn, run_wardian) -> None:
    spawn("interactive-only", "bash", "--norc")
    refused = run_wardian("agent", "run", "interactive-only", "hello")
    assert refused.returncode == 1 and refused.error()["code"] == "not_supported"
