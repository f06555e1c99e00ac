"""The contract each real provider CLI is held to: how to drive it and how to read what it says.

One `CliContract` per CLI holds the argv of a headless turn, a resume and a tool call, how to
pull the session id, the reply and the error out of its JSON lines, and the markers of its TUI
(as `recordings/<cli>/` shows them). Provider packages build on the same knowledge.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from model_server import ModelServer
from real_cli_fixtures import PinnedCli, RealCli, pin_id, pinned_clis, running_cli

RECORDINGS = Path(__file__).parent / "recordings"
CLI_NAMES = ("claude", "codex", "gemini", "opencode")

Events = list[dict[str, Any]]


def json_lines(stdout: str) -> Events:
    events = []
    for line in stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            events.append(json.loads(line))
    return events


@dataclass(frozen=True)
class CliContract:
    name: str
    turn_args: Callable[[str], list[str]]
    resume_args: Callable[[str, str], list[str]]
    tool_args: Callable[[str], list[str]]
    session_id: Callable[[Events], str]
    reply_text: Callable[[Events], str]
    error_text: Callable[[Events], str]
    interactive_args: tuple[str, ...]
    ready_marker: str
    # Keys that answer "yes, once" in the approval dialog, and the dialog's own words.
    approval_marker: str
    approve_keys: str
    # Directives that make the model ask for approval in the TUI.
    approval_directive: str = "MOCK_TOOL"
    # Seconds the approval dialog must be on screen before it takes a key (see `_codex`).
    approval_settle_seconds: float = 0.0
    # Seconds between a typed prompt being drawn and the Enter that submits it (see `_gemini`).
    submit_settle_seconds: float = 0.0
    # Makes the CLI ask before running a shell command, where its default does not.
    require_approval: Callable[[RealCli], None] = lambda cli: None

    def events(self, stdout: str) -> Events:
        return json_lines(stdout)


def _claude() -> CliContract:
    stream = ["--output-format", "stream-json", "--verbose"]
    return CliContract(
        name="claude",
        turn_args=lambda prompt: ["-p", prompt, *stream],
        resume_args=lambda session, prompt: ["-p", prompt, "--resume", session, *stream],
        # Root cannot use bypassPermissions (2.1.197); allowing Bash alone is enough headless.
        tool_args=lambda prompt: ["-p", prompt, *stream, "--allowedTools", "Bash"],
        session_id=lambda events: next(e["session_id"] for e in events if e.get("subtype") == "init"),
        reply_text=lambda events: next(e["result"] for e in events if e.get("type") == "result"),
        error_text=lambda events: next(e["result"] for e in events if e.get("type") == "result" and e.get("is_error")),
        # 2.1.330 starts in "auto" mode, which asks nothing and hides "? for shortcuts".
        interactive_args=("--permission-mode", "default"),
        ready_marker="? for shortcuts",
        approval_marker="Do you want to proceed?",
        approve_keys="\r",
        # 2.1.330 ignores keys for 250 ms after it paints a dialog.
        approval_settle_seconds=1.0,
    )


def _codex() -> CliContract:
    # The workspace is no git repository; the check would refuse it headless (0.169.0).
    exec_args = ["exec", "--json", "--skip-git-repo-check"]
    return CliContract(
        name="codex",
        turn_args=lambda prompt: [*exec_args, prompt],
        resume_args=lambda session, prompt: [*exec_args, "resume", session, prompt],
        tool_args=lambda prompt: [*exec_args, prompt],
        session_id=lambda events: next(e["thread_id"] for e in events if e.get("type") == "thread.started"),
        reply_text=lambda events: [
            e["item"]["text"]
            for e in events
            if e.get("type") == "item.completed" and e["item"].get("type") == "agent_message"
        ][-1],
        error_text=lambda events: next(e["error"]["message"] for e in events if e.get("type") == "turn.failed"),
        # Interactive Codex otherwise leaves a background daemon running after it exits.
        interactive_args=("--no-daemon",),
        ready_marker="? for shortcuts",
        approval_marker="Would you like to run the following command?",
        approve_keys="y",
        # 0.169.0 drops a key that arrives within ~0.1 s of its approval dialog being drawn
        # (measured: 0.3 s later always works); no screen change tells when it starts listening.
        approval_settle_seconds=0.5,
        approval_directive="MOCK_ESCALATE MOCK_TOOL",
    )


def _gemini_reply(events: Events) -> str:
    return "".join(e["content"] for e in events if e.get("type") == "message" and e.get("role") == "assistant")


def _gemini() -> CliContract:
    stream = ["--output-format", "stream-json"]
    return CliContract(
        name="gemini",
        turn_args=lambda prompt: ["-p", prompt, *stream],
        resume_args=lambda session, prompt: ["-p", prompt, "--resume", session, *stream],
        # Headless Gemini offers no shell tool unless an approval mode allows it (0.61.0).
        tool_args=lambda prompt: ["-p", prompt, *stream, "--approval-mode", "yolo"],
        session_id=lambda events: next(e["session_id"] for e in events if e.get("type") == "init"),
        reply_text=_gemini_reply,
        error_text=lambda events: next(
            e["error"]["message"] for e in events if e.get("type") == "result" and e.get("status") == "error"
        ),
        interactive_args=(),
        ready_marker="Type your message or @path/to/file",
        approval_marker="Allow execution of",
        approve_keys="\r",
        # 0.61.0 takes typed text arriving fast as a paste, and an Enter right after it as part
        # of the paste: once in ~5 runs the prompt stayed in the composer. Wardian's Gemini input
        # profile waits as long.
        submit_settle_seconds=0.3,
    )


def _opencode_reply(events: Events) -> str:
    return "".join(e["part"]["text"] for e in events if e.get("type") == "text")


def _opencode_asks_before_bash(cli: RealCli) -> None:
    # OpenCode 1.18 runs bash without asking by default; `ask` opens its permission dialog.
    config_file = Path(cli.env["OPENCODE_CONFIG"])
    config = json.loads(config_file.read_text())
    config["permission"] = {"bash": "ask"}
    config_file.write_text(json.dumps(config, indent=2))


def _opencode() -> CliContract:
    return CliContract(
        name="opencode",
        turn_args=lambda prompt: ["run", "--format", "json", prompt],
        resume_args=lambda session, prompt: ["run", "--format", "json", "--session", session, prompt],
        tool_args=lambda prompt: ["run", "--format", "json", prompt],
        session_id=lambda events: next(e["sessionID"] for e in events if "sessionID" in e),
        reply_text=_opencode_reply,
        error_text=lambda events: next(e["error"]["data"]["message"] for e in events if e.get("type") == "error"),
        interactive_args=(),
        ready_marker="ctrl+p commands",
        approval_marker="Permission required",
        approve_keys="\r",
        require_approval=_opencode_asks_before_bash,
    )


CONTRACTS = {"claude": _claude(), "codex": _codex(), "gemini": _gemini(), "opencode": _opencode()}


CLI_PINS = [pin for name in CLI_NAMES for pin in pinned_clis(name)]


@pytest.fixture(params=CLI_PINS, ids=[pin_id(pin) for pin in CLI_PINS])
def pinned_cli(request: pytest.FixtureRequest) -> PinnedCli:
    """Each CLI at each pinned version."""
    return request.param


@pytest.fixture
def cli_name(pinned_cli: PinnedCli) -> str:
    return pinned_cli.name


@pytest.fixture
def contract(cli_name: str) -> CliContract:
    return CONTRACTS[cli_name]


@pytest.fixture
def cli(pinned_cli: PinnedCli, tmp_path: Path, model_server: ModelServer, isolated_home: Path) -> Iterator[RealCli]:
    with running_cli(pinned_cli, tmp_path, model_server) as cli:
        yield cli


class Recorder:
    """Writes what a real CLI printed under `recordings/<cli>/` when re-recording is asked for."""

    def __init__(self, cli: RealCli, enabled: bool) -> None:
        self.cli = cli
        self.enabled = enabled

    def save(self, filename: str, output: str | bytes) -> None:
        if not self.enabled:
            return
        data = output.encode() if isinstance(output, str) else bytes(output)
        folder = RECORDINGS / self.cli.name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / filename).write_bytes(self.normalise(data))

    def normalise(self, data: bytes) -> bytes:
        """Rewrite machine-specific paths and the port to the fixed ones every recording uses."""
        replacements = [
            (str(self.cli.workspace), "/home/dev/proj"),
            (str(self.cli.home), f"/home/dev/homes/{self.cli.name}"),
            (str(self.cli.workspace.parent), "/home/dev"),
        ]
        for old, new in replacements:
            data = data.replace(old.encode(), new.encode())
        # Claude derives project folder names from the path with separators turned into dashes.
        dashed = re.sub(r"[^A-Za-z0-9]", "-", str(self.cli.workspace))
        data = data.replace(dashed.encode(), b"-home-dev-proj")
        return data.replace(f"127.0.0.1:{self.cli.server.port}".encode(), b"127.0.0.1:PORT")


@pytest.fixture
def recorder(cli: RealCli, pinned_cli: PinnedCli, request: pytest.FixtureRequest) -> Recorder:
    """Recordings are of the current pins only; older supported versions are tested, not recorded."""
    return Recorder(cli, enabled=pinned_cli.current and request.config.getoption("record_cli_transcripts"))
