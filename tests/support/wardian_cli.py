"""`wardian` as a provider's real-CLI tests drive it: one subprocess per command, JSON answers.

Each wait proves which provider event produced the status it waited for, so an `idle` reached
any other way cannot pass; a wait that times out shows the agent's screen in its failure.
"""

import contextlib
import json
import os
import re
import select
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wardian_core.parsing.process_start import process_clock

WARDIAN = str(Path(sys.executable).parent / "wardian")
FIELDS = "name,uuid,status,status_evidence,provider_session_id,pid"


@dataclass
class WardianCli:
    home: Path
    workspace: Path
    cli: Any  # the RealCli of the `<provider>_cli` fixture: its model server and the user's home
    provider: str

    def __call__(self, *args: str, timeout: float = 90) -> dict[str, Any]:
        completed = subprocess.run(
            [WARDIAN, *args],
            capture_output=True,
            text=True,
            env=dict(os.environ),
            timeout=timeout,
            stdin=subprocess.DEVNULL,
        )
        assert completed.returncode == 0, f"wardian {' '.join(args)}: {completed.stderr}"
        return json.loads(completed.stdout) if completed.stdout.strip() else {}

    def spawn(self, name: str, *options: str) -> dict[str, Any]:
        """`options`: more of `agent spawn`'s, e.g. `--worktree`."""
        args = ["--provider", self.provider, "--class", "Coder", "--name", name, "--workspace", str(self.workspace)]
        return self("agent", "spawn", *args, *options)["agent"]

    def wait(self, name: str, status: str, event: str, timeout: str = "60s") -> dict[str, Any]:
        """Wait for `status` and prove which provider event produced it."""
        try:
            # The command's own bound, plus room for it to start and answer.
            self("agent", "wait", name, "--until", status, "--timeout", timeout, timeout=float(timeout[:-1]) + 30)
        except AssertionError as failed:  # say what the agent showed, for whoever reads the failure
            raise AssertionError(f"{failed}\n{self.what_it_showed(name)}") from None
        agent = self.show(name)
        assert agent["status"] == status, agent
        assert agent["status_evidence"]["event"] == event, agent["status_evidence"]
        return agent

    def what_it_showed(self, name: str) -> str:
        """A wait's failure, told: the screen, the status's evidence, the hooks the CLI fired and
        its processes (a CLI that restarts itself is told apart by them)."""
        agent = self("agent", name, "--fields", "uuid,status,status_evidence,pid")["agent"]
        rows = self("agent", "screen", name)["screen"]["rows"]
        hooks = sorted((self.home / "agents" / agent["uuid"]).glob("*/hooks*.jsonl"))
        hook_lines = [line[:300] for log in hooks for line in log.read_text(errors="replace").splitlines()[-30:]]
        return "\n".join(
            [
                f"status: {agent['status']} {json.dumps(agent['status_evidence'])}",
                f"seconds since boot: {process_clock():.2f}, now {time.time():.2f}",
                "changes:",
                *(json.dumps(change)[:300] for change in self.watch(name)["events"][-8:]),
                "processes:",
                *_process_tree(agent.get("pid")),
                "hooks:",
                *hook_lines,
                "screen:",
                *rows,
            ]
        )

    def show(self, name: str) -> dict[str, Any]:
        return self("agent", name, "--fields", FIELDS)["agent"]

    def watch(self, name: str) -> dict[str, Any]:
        return self("agent", "watch", name)["watch"]

    def output_shows(self, name: str, text: str, timeout: float = 10) -> None:
        output_shows(name, text, timeout)

    def limit_rested(self, name: str, source: str) -> dict[str, Any]:
        """The limit a turn hit, proven to have rested the agent (`idle` by `limit_reached`, read
        from `source`) with its turn cut."""
        rested = self("agent", name, "--fields", "status,status_evidence,limit")["agent"]
        evidence, limit = rested["status_evidence"], rested["limit"]
        assert (rested["status"], evidence["event"], evidence["source"]) == ("idle", "limit_reached", source), rested
        assert limit["state"] == "cut", limit
        return dict(limit)

    def screen_shows(self, name: str, text: str) -> None:
        """`text` on the agent's screen, once its output drew it: a CLI's structured signal (a
        rollout's limit) can come before its paint, which a loaded machine puts off for seconds."""
        self.output_shows(name, text)
        rows = self("agent", "screen", name)["screen"]["rows"]
        assert any(text in row for row in rows), rows

    def resumed_by_wardian(self, name: str) -> list[dict[str, Any]]:
        """After a limit's reset: Wardian continued the cut turn once, and that turn completed,
        nothing marked `error` on the way; the agent's events."""
        events: list[dict[str, Any]] = self.watch(name)["events"]
        resumed = [event for event in events if event["kind"] == "limit_resumed"]
        assert [event["by"] for event in resumed] == ["wardian"], events
        assert "error" not in [event.get("to") for event in events]
        assert self.show(name)["status_evidence"]["event"] == "turn_completed"
        return events

    def run(self, name: str, prompt: str, *flags: str) -> subprocess.CompletedProcess[str]:
        """`wardian agent run`: one headless turn of the agent's provider; its exit code is the caller's to check."""
        return subprocess.run(
            [WARDIAN, "agent", "run", name, prompt, *flags, "--timeout", "75s"],
            capture_output=True,
            text=True,
            env=dict(os.environ),
            timeout=85,
            stdin=subprocess.DEVNULL,
        )

    @staticmethod
    def run_record(completed: subprocess.CompletedProcess[str]) -> dict[str, Any]:
        assert completed.returncode == 0, completed.stderr
        return json.loads(completed.stdout)["run"]


def _process_tree(pid: int | None) -> list[str]:
    """The agent's processes: pid, parent, start (seconds since boot, the parsers' clock), status and command."""
    import psutil

    if pid is None:
        return ["(no pid)"]
    try:
        root = psutil.Process(pid)
        processes = [root, *root.children(recursive=True)]
    except psutil.Error as gone:
        return [f"({gone!r})"]
    boot, told = psutil.boot_time(), []
    for process in processes:
        with contextlib.suppress(psutil.Error):
            started = process.create_time() - boot
            command = " ".join(process.cmdline())[:160]
            told.append(f"{process.pid} <- {process.ppid()} at {started:.2f} {process.status()}: {command}")
    return told


def output_shows(name: str, text: str, timeout: float = 10, env: dict[str, str] | None = None) -> None:
    """Follow the agent's output from the oldest kept (`agent watch --follow`) until `text` shows,
    whitespace ignored: TUIs draw spaces by moving the cursor. Output already printed counts,
    unlike `agent watch --until output:`, which waits for output after the call. `env` is the
    environment of that `wardian`, the test's own when not given."""
    wanted, seen = "".join(text.split()), ""
    follow = subprocess.Popen(
        [WARDIAN, "agent", "watch", name, "--follow"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        env=dict(os.environ if env is None else env),
    )
    assert follow.stdout is not None
    pending, deadline = b"", time.monotonic() + timeout
    try:
        while wanted not in seen:
            remaining = deadline - time.monotonic()
            assert remaining > 0 and select.select([follow.stdout], [], [], remaining)[0], (
                f"{text!r} not in {name}'s output within {timeout} s"
            )
            chunk = os.read(follow.stdout.fileno(), 65536)
            assert chunk, f"the watch of {name} ended before {text!r} showed"
            *lines, pending = (pending + chunk).split(b"\n")
            seen += "".join("".join(json.loads(line).get("output", "").split()) for line in lines if line)
    finally:
        follow.kill()
        follow.wait()


def replay(provider: str, file: Path, *args: str) -> list[dict[str, Any]]:
    """`wardian providers replay <provider> <file> …`: the timeline, one JSON object per line."""
    completed = subprocess.run(
        [WARDIAN, "providers", "replay", provider, str(file), *args],
        capture_output=True,
        text=True,
        env={**os.environ, "WARDIAN_PLUGINS": provider},
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert completed.returncode == 0, completed.stderr
    return [json.loads(line) for line in completed.stdout.splitlines()]


# A turn as a replayed timeline's status changes show it.
TURN = [("processing", "turn_started"), ("idle", "turn_completed")]


def transitions(timeline: list[dict[str, Any]]) -> list[tuple[str, str | None]]:
    """The status changes of a replayed timeline after its first (`starting`), by their event."""
    return [(entry["to"], entry["event"]) for entry in timeline if entry["type"] == "status"][1:]


def dialog_answers(timeline: list[dict[str, Any]]) -> list[tuple[str | None, str | None]]:
    """(dialog, answer) of each dialog a replayed timeline opened and left."""
    events = [entry["event"] for entry in timeline if entry["type"] == "event"]
    dialogs = [event["dialog"] for event in events if event["kind"] == "approval_requested"]
    answers = [event["answer"] for event in events if event["kind"] == "approval_resolved"]
    return list(zip(dialogs, answers, strict=True))


def assert_no_process_with(variable: str, value: str) -> None:
    """No process runs with `variable=value` in its environment (an agent's own home or config)."""
    import psutil

    for process in psutil.process_iter():
        try:
            environ = process.environ()
        except (psutil.Error, OSError):
            continue
        assert environ.get(variable) != value, f"process {process.pid} still runs with {variable}={value}"


REQUEST_ID = re.compile(r"ask_[0-9a-f]{16}")


def ask_in_background(name: str, question: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """`wardian ask NAME QUESTION --timeout 90s`, left running while the test answers the agent's dialogs."""
    return subprocess.Popen(
        [WARDIAN, "ask", name, question, "--timeout", "90s"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env={**os.environ, **(env or {})},
    )


def ask_answer(asking: subprocess.Popen[str]) -> dict[str, Any]:
    stdout, stderr = asking.communicate(timeout=150)
    assert asking.returncode == 0, stderr
    return json.loads(stdout)


def assert_replied_by_the_agent(answer: dict[str, Any], body: str) -> None:
    """A structured `done` reply with `body` (a trailing newline aside) from the asked agent's own tree."""
    assert REQUEST_ID.fullmatch(answer["request_id"]), answer
    assert answer["status"] == "done", answer
    reply = answer["reply"]
    assert (reply["status"], reply["source"], reply["body"].rstrip("\n")) == ("done", "agent", body), reply


def new_repository(parent: Path, name: str = "never-seen") -> Path:
    """A fresh git repository that no CLI configuration has seen, by its real path (the CLIs
    key the folders they trust by it)."""
    repository = (parent / name).resolve()
    repository.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repository)], check=True)
    return repository


def first_commit(repository: Path) -> Path:
    """`repository` with a commit on its branch: a worktree starts from one."""
    identity = ["-c", "user.name=T", "-c", "user.email=t@t.invalid"]
    subprocess.run(
        ["git", "-C", str(repository), *identity, "commit", "-q", "--allow-empty", "-m", "first"], check=True
    )
    return repository


def never_asked(wardian: WardianCli, name: str) -> bool:
    """The agent went from its launch to now without waiting on a person."""
    return "action_required" not in [event["to"] for event in wardian.watch(name)["events"]]
