"""The parser on real Claude Code 2.1.197 output: hook logs, stream-JSON runs and raw TUI bytes."""

import json
import re
from pathlib import Path
from typing import Any

import pytest

from wardian_claude import parser
from wardian_claude.tui import HOOKLESS_READY_SECONDS, SCREEN_APPROVAL_GRACE_SECONDS, ClaudeScreen
from wardian_core.provider import HEADLESS_SOURCE, PTY_SOURCE, OutputSource, ParseResult, SpawnContext
from wardian_core.provider.testing import ScreenModel, rests_of, spawn_context

FIXTURES = Path(__file__).parent / "fixtures"
HOOKS = OutputSource(name="claude-hooks", path=Path("hooks.jsonl"))
TUI_SESSION = "22222222-2222-4333-8444-555555555555"


def feed_lines(path: Path, source: OutputSource, session_id: str | None = None) -> list[Any]:
    source_parser = parser.parser_for(session_context(session_id), source)
    events = []
    for line in path.read_bytes().splitlines():
        events += source_parser.feed(line).events
    return events


def session_context(session_id: str | None) -> SpawnContext:
    return tui_context(FIXTURES).model_copy(update={"provider_session_id": session_id})


def tui_context(agent_dir: Path) -> SpawnContext:
    return spawn_context(agent_dir, "claude", workspace=agent_dir, wardian_home=agent_dir, agent_dir=agent_dir)


class Tui:
    """The PTY fed as the host feeds it: a screen model beside the parser, looked at when asked.

    The agent folder has no hooks file unless a test writes one: the screen alone decides."""

    def __init__(self, agent_dir: Path = FIXTURES) -> None:
        self.ctx = tui_context(agent_dir)
        made = parser.parser_for(self.ctx, PTY_SOURCE)
        assert isinstance(made, ClaudeScreen)  # the PTY's parser: one that looks at screens
        self.parser = made
        self.screen = ScreenModel()
        self.events: list[Any] = []
        self.quiet_asked: float | None = None

    def feed(self, data: bytes) -> list[Any]:
        self.screen.feed(data)
        return self._take(self.parser.feed(data))

    def quiet(self) -> list[Any]:
        self.quiet_asked = None
        return self._take(self.parser.quiet())

    def _take(self, result: ParseResult) -> list[Any]:
        events = list(result.events)
        if result.call_again_after is not None:
            self.quiet_asked = result.call_again_after
        if result.want_screen:
            events += self._take(self.parser.screen(self.screen.snapshot()))
        self.events += result.events
        return events


def feed_screen(data: bytes, chunk: int = 97) -> tuple[list[Any], Tui]:
    tui = Tui()
    events = []
    for start in range(0, len(data), chunk):
        events += tui.feed(data[start : start + chunk])
    return events, tui


def kinds(events: list[Any]) -> list[str]:
    return [event.kind for event in events]


def test_tui_hook_log_gives_the_whole_approval_turn() -> None:
    events = feed_lines(FIXTURES / "claude-hooks-tui.log", HOOKS, TUI_SESSION)

    assert kinds(events) == [
        "session_started",
        "turn_started",
        "generating",
        "approval_requested",
        "approval_resolved",
        "generating",
        "turn_completed",
        "session_ended",
    ]
    assert events[0].session_id == TUI_SESSION
    approval = events[3]
    assert approval.data["tool_name"] == "Bash"
    assert approval.data["tool_input"]["command"] == "touch perm_test.txt"
    assert approval.evidence.source == "claude-hooks"
    assert approval.evidence.rule == "hook PermissionRequest"
    assert "Bash: touch perm_test.txt" in approval.evidence.line
    assert (approval.reason, approval.dialog) == ("tool", "tool")
    assert (events[4].evidence.rule, events[4].answer) == ("hook PostToolUse after PermissionRequest", "accepted")
    assert events[6].message == "MOCK-REPLY tool-done tuitok"


def test_a_new_session_start_is_adopted_and_its_payloads_followed() -> None:
    events = feed_lines(FIXTURES / "claude-hooks-tui.log", HOOKS, "99999999-0000-4000-8000-000000000000")

    # SessionStart names the session Claude really runs; later payloads of it count.
    assert kinds(events)[0] == "session_started"
    assert events[0].session_id == TUI_SESSION
    assert "turn_completed" in kinds(events)


def test_the_hook_log_is_at_rest_between_dialogs_and_a_resume_from_any_rest_reads_the_same() -> None:
    """A new host replays the log from its parser's last rest (wardian_host.testing.rests)."""
    lines = (FIXTURES / "claude-hooks-tui.log").read_bytes().splitlines() * 2
    rests = rests_of(lambda: parser.parser_for(session_context(TUI_SESSION), HOOKS), lines)
    names = [line.split(b"\t")[1].decode() for line in lines]
    resting = {name for name, at_rest in zip(names, rests, strict=True) if at_rest}
    assert "PermissionRequest" not in resting, "its dialog awaits the tool: a new parser would not know"
    assert "SessionStart" not in resting, "it asks for a look at the screen, which its replay asks again"
    assert {"UserPromptSubmit", "PostToolUse", "Stop", "SessionEnd"} <= resting


def test_a_session_the_host_does_not_know_yet_is_no_rest() -> None:
    reader = parser.parser_for(session_context(None), HOOKS)
    started = reader.feed(b'{"hook_event_name":"SessionStart","session_id":"new","source":"startup"}')
    # A new parser would take any session's payloads: not until the host knows this one.
    assert not started.at_rest


def test_payloads_of_a_stranger_session_after_ours_started_are_ignored() -> None:
    hooks = parser.parser_for(session_context("ours"), HOOKS)
    ours = b'{"hook_event_name":"SessionStart","session_id":"ours","source":"startup"}'
    theirs = b'{"hook_event_name":"Stop","session_id":"theirs","last_assistant_message":"x"}'
    hooks.feed(ours)

    assert hooks.feed(theirs).events == []


def test_print_mode_hook_log_has_no_approval_and_ends_each_turn() -> None:
    events = feed_lines(FIXTURES / "claude-hooks-print.log", HOOKS)

    assert "approval_requested" not in kinds(events)
    assert kinds(events).count("turn_completed") == 2
    assert kinds(events).count("session_ended") == 2


def test_stop_failure_hook_is_an_error_with_the_api_message() -> None:
    line = (
        b'{"session_id":"s","hook_event_name":"StopFailure","error":"unknown",'
        b'"last_assistant_message":"API Error: 400 mock error 400 requested"}'
    )

    [event] = parser.parser_for(session_context("s"), HOOKS).feed(line).events

    assert event.kind == "error"
    assert event.message == "API Error: 400 mock error 400 requested"


TOOL_TURNS = [
    "claude-print-tool-default-perms.jsonl",
    "claude-print-tool-acceptEdits.jsonl",
    "claude-print-tool-allowed-partial-hooks.jsonl",
    "claude-print-tool-write-blocked.jsonl",
    "recordings/claude-headless-tool.jsonl",
]
TURNS = [
    "claude-print-stream-json.jsonl",
    "claude-print-resume.jsonl",
    "recordings/claude-headless.jsonl",
    "recordings/claude-headless-resume.jsonl",
    *TOOL_TURNS,
]


@pytest.mark.parametrize("fixture", TURNS)
def test_headless_turn_starts_with_the_session_and_completes(fixture: str) -> None:
    events = feed_lines(FIXTURES / fixture, HEADLESS_SOURCE)

    assert kinds(events)[:2] == ["session_started", "turn_started"]
    assert events[0].session_id
    assert kinds(events)[-1] == "turn_completed"
    assert events[-1].message.startswith("MOCK-REPLY")
    assert "error" not in kinds(events)


@pytest.mark.parametrize(
    "fixture", ["claude-print-api-error400.jsonl", "recordings/claude-headless-api-error400.jsonl"]
)
def test_headless_api_error_is_an_error_although_subtype_says_success(fixture: str) -> None:
    events = feed_lines(FIXTURES / fixture, HEADLESS_SOURCE)

    assert kinds(events)[-1] == "error"
    assert events[-1].message == "API Error: 400 mock error 400 requested"
    assert events[-1].data == {"subtype": "success", "api_error_status": 400}
    assert "turn_completed" not in kinds(events)


@pytest.mark.parametrize("fixture", TOOL_TURNS)
def test_headless_tool_turns_generate_before_they_complete(fixture: str) -> None:
    events = feed_lines(FIXTURES / fixture, HEADLESS_SOURCE)

    assert "generating" in kinds(events)
    assert any(event.evidence.rule == "user tool_result" for event in events)


def test_single_json_result_is_read_too() -> None:
    events = feed_lines(FIXTURES / "claude-print-json.json", HEADLESS_SOURCE)

    assert kinds(events) == ["usage_reported", "turn_completed"]


def test_a_headless_result_reports_the_runs_usage_with_claudes_cost_and_context_window() -> None:
    events = feed_lines(FIXTURES / "claude-print-stream-json.jsonl", HEADLESS_SOURCE)

    [report] = [event.usage for event in events if event.usage]
    assert report.turn_key == "7f1cd1df-f53c-42ef-9539-33555960b18d"  # the result line's uuid
    assert (report.input_tokens, report.output_tokens, report.cache_read_tokens, report.cache_write_tokens) == (
        10,
        5,
        0,
        0,
    )
    assert report.reasoning_tokens is None  # Anthropic's usage has no reasoning count
    assert (report.cost_usd, report.model, report.context_window) == (0.000175, "claude-opus-4-8[1m]", 1000000)
    assert report.context_used == 10  # the last call's prompt: 10 fresh, nothing cached
    assert kinds(events)[-2:] == ["usage_reported", "turn_completed"]


def test_a_recorded_headless_run_reports_the_model_servers_figures_and_claudes_cost() -> None:
    # Recorded from Claude 2.1.330 against the model server: 1200 fresh input, 300 cache reads,
    # 40 cache writes, 70 output; the cost is Claude's own, from its price table.
    recording = Path(__file__).parents[3] / "tests" / "real_cli" / "recordings" / "claude" / "claude-headless.jsonl"
    [report] = [event.usage for event in feed_lines(recording, HEADLESS_SOURCE) if event.usage]
    assert (report.input_tokens, report.output_tokens, report.cache_read_tokens, report.cache_write_tokens) == (
        1200,
        70,
        300,
        40,
    )
    assert report.reasoning_tokens == 0  # 2.1.330 states its thinking tokens
    assert (report.cost_usd, report.context_window, report.context_used) == (0.006459999999999999, 1000000, 1540)


def test_transcript_lines_of_one_message_report_it_under_its_id() -> None:
    ctx = session_context(TUI_SESSION)
    transcript = parser.parser_for(ctx, OutputSource(name="claude-transcript", path=Path("t.jsonl")))
    usage = {"input_tokens": 1200, "cache_read_input_tokens": 300, "cache_creation_input_tokens": 40}
    lines = [
        {"type": "user", "message": {"role": "user", "content": "hi"}},
        {"type": "assistant", "message": {"id": "msg_1", "model": "claude-x", "usage": usage | {"output_tokens": 1}}},
        {
            "type": "assistant",
            "timestamp": "2026-11-25T22:00:01.500Z",
            "message": {"id": "msg_1", "model": "claude-x", "usage": usage | {"output_tokens": 70}},
        },
        {"type": "assistant", "message": {"id": "msg_2", "model": "<synthetic>", "usage": usage}},
    ]
    reports = [event.usage for line in lines for event in transcript.feed(json.dumps(line).encode()).events]
    assert [(r.turn_key, r.output_tokens) for r in reports if r] == [("msg_1", 1), ("msg_1", 70)]
    last = reports[-1]
    assert last is not None
    assert (last.input_tokens, last.cache_read_tokens, last.cache_write_tokens, last.context_used) == (
        1200,
        300,
        40,
        1540,
    )
    assert (last.model, last.cost_usd, last.context_window) == ("claude-x", None, None)
    assert last.recorded_at == "2026-11-25T22:00:01.500Z"


def test_the_transcript_is_followed_where_claude_writes_it(tmp_path: Path) -> None:
    from wardian_claude import home
    from wardian_claude.usage import transcript_file

    workspace = tmp_path / "my proj.v2"
    workspace.mkdir()
    ctx = tui_context(tmp_path).model_copy(update={"workspace": workspace, "provider_session_id": TUI_SESSION})
    environ = {"CLAUDE_CONFIG_DIR": str(tmp_path / "cfg")}
    expected = tmp_path / "cfg" / "projects" / re.sub(r"[^a-zA-Z0-9]", "-", str(workspace.resolve()))
    assert transcript_file(ctx, environ) == expected / f"{TUI_SESSION}.jsonl"
    assert transcript_file(ctx.model_copy(update={"provider_session_id": None}), environ) is None
    assert home.TRANSCRIPT_SOURCE_NAME in [source.name for source in home.telemetry_sources(ctx)]


def test_a_long_folder_is_named_as_claude_names_it_before_the_file_exists() -> None:
    from wardian_claude.usage import project_folder

    # The folder Claude 2.1.330 made for this working directory (the real-CLI usage test's): cut at
    # 200 characters, the rocket counted as two, and the hash of the whole path.
    path = "/tmp/wf_me/usage1/test_usage_is_what_the_model_s1/proj/" + "deep-" * 40 + "\N{ROCKET}"
    made = "-tmp-wf-me-usage1-test-usage-is-what-the-model-s1-proj-" + "deep-" * 29 + "-gagfhk"
    assert project_folder(path) == made
    assert project_folder("/tmp/\N{ROCKET} x") == "-tmp----x"


@pytest.mark.parametrize(
    "fixture",
    [
        "claude-tui.raw",
        "claude-tui-resume.raw",
        "recordings/claude-tui-ready.raw",
        "recordings/claude-tui.raw",
        "recordings/claude-tui-approval.raw",
    ],
)
@pytest.mark.parametrize("chunk", [1, 7, 4096])
def test_ready_prompt_is_seen_once_however_the_bytes_are_cut(fixture: str, chunk: int) -> None:
    events, _ = feed_screen((FIXTURES / fixture).read_bytes(), chunk)

    assert kinds(events).count("ready") == 1
    assert events[0].kind == "ready"
    assert events[0].evidence.source == "pty"


def test_approval_dialog_on_screen_is_reported_after_the_grace_delay() -> None:
    raw = (FIXTURES / "recordings" / "claude-tui-approval.raw").read_bytes()
    cut = raw.index(b"Esc to cancel") if b"Esc to cancel" in raw else raw.index(b"cancel")
    tui = Tui()
    tui.feed(raw[: cut + 10])
    assert tui.quiet_asked == SCREEN_APPROVAL_GRACE_SECONDS
    assert "approval_requested" not in kinds(tui.events)  # the hook has a second to say it

    [event] = tui.quiet()

    assert (event.kind, event.reason, event.dialog) == ("approval_requested", "tool", "tool")
    assert event.evidence.rule == "approval dialog" and event.evidence.line == "Do you want to proceed?"
    assert tui.quiet() == [] and tui.quiet_asked is None  # once


TURN = b'{"hook_event_name":"UserPromptSubmit","session_id":"s1","prompt":"run MOCK_TOOL:touch a"}\n'
TOOL = b'"session_id":"s1","tool_name":"Bash","tool_input":{"command":"touch a"}'
ASKED = b'{"hook_event_name":"PermissionRequest",' + TOOL + b"}\n"
RAN = b'{"hook_event_name":"PostToolUse",' + TOOL + b',"tool_use_id":"t1"}\n'


@pytest.mark.parametrize(
    ("hooks", "told"),
    [
        # CI: the hooks told the dialog, it was accepted and the tool ran (PostToolUse) while the
        # dialog was still drawn; the screen told it again and the agent was action_required anew.
        (TURN + ASKED + RAN, False),
        (TURN + ASKED, False),
        # Hooks that fire, but no PermissionRequest in this turn: only the screen can tell it.
        (ASKED + RAN + TURN, True),
        (b'{"hook_event_name":"SessionStart","session_id":"s1","source":"startup"}\n' + TURN, True),
    ],
)
def test_a_dialog_on_screen_is_told_by_the_screen_only_where_no_hook_told_one_this_turn(
    tmp_path: Path, hooks: bytes, told: bool
) -> None:
    (tmp_path / "claude").mkdir()
    (tmp_path / "claude" / "hooks.jsonl").write_bytes(hooks)
    raw = (FIXTURES / "recordings" / "claude-tui-approval.raw").read_bytes()
    tui = Tui(tmp_path)
    tui.feed(raw[: raw.index(b"cancel") + 10])
    assert tui.quiet_asked == SCREEN_APPROVAL_GRACE_SECONDS

    events = tui.quiet()

    assert kinds(events) == (["approval_requested"] if told else [])
    assert tui.quiet() == [] and tui.quiet_asked is None  # looked at once, told or not


def test_approval_dialog_answered_within_the_delay_is_not_reported() -> None:
    raw = (FIXTURES / "recordings" / "claude-tui-approval.raw").read_bytes()
    events, tui = feed_screen(raw)

    assert tui.quiet() == []
    assert "approval_requested" not in kinds(events)


def test_rejected_approval_is_resolved_and_ends_the_turn_from_the_screen() -> None:
    tui = Tui()
    tui.feed(b"\x1b[2J\x1b[H? for shortcuts")
    tui.feed(b"\x1b[2J\x1b[HDo you want to\x1b[1Cproceed?\r\n 1. Yes\r\n 3. No")

    interrupted = b"\x1b[2J\x1b[H\xe2\x8e\xbf  Interrupted \xc2\xb7 What should Claude do instead?\r\n? for shortcuts"
    events = tui.feed(interrupted)
    assert kinds(events) == ["approval_resolved", "turn_completed"]
    assert events[0].answer == "rejected"
    # Redrawn with the next prompt: no longer an end of turn.
    assert tui.feed(b"\x1b[2J\x1b[HInterrupted \xc2\xb7 What should Claude do instead?") == []


def test_an_accepted_dialog_leaves_no_rejection_behind_on_the_screen() -> None:
    tui = Tui()
    tui.feed(b"\x1b[2J\x1b[HWhat should Claude do instead?\r\n? for shortcuts")  # an old rejection
    tui.feed(b"\x1b[3;1HDo you want to proceed?\r\n 1. Yes")
    tui.feed(b"\x1b[3;1H\x1b[J Running (esc to interrupt)")

    assert "turn_completed" not in kinds(tui.events)


QUESTION = b"Quick safety check: Is this a project you created or one you trust?"
TRUST_MENU = QUESTION + b"\r\n \xe2\x9d\xaf No, exit\r\n   Yes, I trust this folder"


@pytest.mark.parametrize(
    ("screen", "reason", "dialog", "message"),
    [
        # 2.1.197: numbered, Yes first (answered with "1"); 2.1.330: a menu with "No, exit" first.
        (
            QUESTION + b"\r\n \xe2\x9d\xaf 1. Yes, I trust this folder\r\n   2. No, exit",
            "trust",
            "trust",
            "workspace trust",
        ),
        (
            QUESTION + b"\r\n \xe2\x9d\xaf No, exit\r\n   Yes, I trust this folder",
            "trust",
            "trust_menu",
            "workspace trust",
        ),
        (
            b"Detected a custom API key in your environment\r\n Do you want to use this API key?",
            "onboarding",
            "api_key",
            "API key",
        ),
    ],
)
def test_first_run_screens_ask_for_a_person_with_a_reason(
    screen: bytes, reason: str, dialog: str, message: str
) -> None:
    tui = Tui()
    events = tui.feed(screen)

    assert kinds(events) == ["approval_requested"]
    assert (events[0].reason, events[0].dialog) == (reason, dialog)
    assert message in events[0].message
    # Once the person got through, the dialog is resolved and the prompt is ready.
    answered = tui.feed(b"\x1b[2J\x1b[H? for shortcuts")
    assert kinds(answered) == ["approval_resolved", "ready"]


def test_the_trust_question_is_quoted_and_said_to_come_as_claude_starts() -> None:
    [asked] = Tui().feed(TRUST_MENU)

    assert asked.message == (
        "workspace trust dialog, as Claude starts (before its prompt): "
        "Quick safety check: Is this a project you created or one you trust?"
    )
    assert (asked.evidence.rule, asked.evidence.line) == ("first-run screen", "Yes, I trust this folder")


def test_a_refused_trust_question_is_a_rejection_before_claude_exits() -> None:
    tui = Tui()
    tui.feed(TRUST_MENU)

    # 2.1.330, after "No, exit": the TUI is gone, these words are printed and Claude exits.
    left = tui.feed(b"\x1b[?25h\r\nClaude Code didn't start because this folder isn't \x1b[1mtrusted.\x1b[22m\r\n")

    assert [(e.kind, e.answer, e.evidence.rule) for e in left] == [("approval_resolved", "rejected", "trust refused")]
    assert left[0].message == "the folder was not trusted: Claude exits"


def test_the_refusal_words_outside_a_trust_question_are_nothing() -> None:
    assert Tui().feed(b"Claude Code didn't start because this folder isn't trusted.\r\n") == []


def test_unreachable_anthropic_is_an_error() -> None:
    events = Tui().feed(b"Unable to connect to Anthropic services\r\n")

    assert kinds(events) == ["error"]


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"{",
        b"null",
        b"[]",
        b'{"hook_event_name": 5}',
        b"\xff\xfe",
        b'{"type": {"nested": []}, "session_id": 7}',
        b"not json at all",
    ],
)
@pytest.mark.parametrize("source", [HOOKS, HEADLESS_SOURCE])
def test_malformed_lines_give_no_events(data: bytes, source: OutputSource) -> None:
    assert parser.parser_for(session_context("s"), source).feed(data).events == []


def test_the_prompt_box_after_a_turn_shows_readiness_without_the_hint() -> None:
    # 2.1.197 drops "? for shortcuts" once a turn ended; the box under its rule remains.
    box = "\u2500" * 40
    screen = f"\x1b[2J\x1b[H\u276f hello\r\n\u25cf MOCK-REPLY\r\n{box}\r\n\u276f \r\n{box}\r\n".encode()
    tui = Tui()
    events = tui.feed(screen)
    assert [(e.kind, e.evidence.line) for e in events] == [("ready", "\u276f")]
    # A `❯` that is history (no rule right above it) is no prompt.
    history = Tui()
    history.feed(b"\x1b[2J\x1b[H\xe2\x95\xb0\xe2\x94\x80\xe2\x95\xaf\r\n\xe2\x9d\xaf hello\r\n")
    assert history._take(history.parser.screen(history.screen.snapshot())) == []


READY_330 = (
    "\x1b[2J\x1b[H Claude Code v2.1.330\r\n"
    + "\u2500" * 40
    + "\r\n\u276f \r\n"
    + "\u2500" * 40
    + "\r\n  \u23f5\u23f5 auto mode on (shift+tab to cycle)\r\n"
).encode()


def test_ready_waits_for_the_session_start_hook_when_hooks_are_installed(tmp_path: Path) -> None:
    hooks_file = tmp_path / "claude" / "hooks.jsonl"
    hooks_file.parent.mkdir()
    hooks_file.write_bytes(b"")
    tui = Tui(tmp_path)

    # 2.1.330 draws no "? for shortcuts": the prompt box alone, and no hook yet.
    assert tui.feed(READY_330) == []
    assert tui.quiet_asked == HOOKLESS_READY_SECONDS

    hooks_file.write_bytes(b'{"hook_event_name":"SessionStart","session_id":"s1","source":"startup"}\n')
    session = feed_lines(hooks_file, HOOKS)
    assert kinds(session) == ["session_started"]
    assert parser.parser_for(session_context(None), HOOKS).feed(hooks_file.read_bytes()).want_screen
    events = tui._take(tui.parser.screen(tui.screen.snapshot()))
    assert [(e.kind, e.evidence.source, e.evidence.rule) for e in events] == [
        ("ready", "pty", "ready prompt after hook SessionStart")
    ]
    # Only once.
    assert tui._take(tui.parser.screen(tui.screen.snapshot())) == []


def test_a_prompt_redrawn_while_its_session_start_is_awaited_asks_for_no_look(tmp_path: Path) -> None:
    (tmp_path / "claude").mkdir()
    (tmp_path / "claude" / "hooks.jsonl").write_bytes(b"")
    tui = Tui(tmp_path)
    assert tui.feed(READY_330) == [] and tui.quiet_asked == HOOKLESS_READY_SECONDS

    # The hook or the delay asks for the look that makes it ready; a redraw would replay for nothing.
    assert tui.parser.feed(READY_330).want_screen is False
    # Unless a look found the prompt gone: its return is looked at again.
    tui.parser.screen(ScreenModel().snapshot())
    assert tui.parser.feed(READY_330).want_screen is True
    assert kinds(tui.quiet()) == ["ready"]


def test_a_prompt_whose_hook_never_comes_is_ready_after_a_while(tmp_path: Path) -> None:
    (tmp_path / "claude").mkdir()
    (tmp_path / "claude" / "hooks.jsonl").write_bytes(b"")  # hooks disabled by the user's settings
    tui = Tui(tmp_path)
    assert tui.feed(READY_330) == []

    events = tui.quiet()

    assert [(e.kind, e.evidence.rule) for e in events] == [("ready", "ready prompt, no SessionStart hook within 5 s")]
