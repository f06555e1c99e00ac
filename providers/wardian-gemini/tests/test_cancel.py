"""A turn cancelled with Esc, the hard budget's interrupt key, on Gemini CLI 0.61.0's recorded output.

Recorded through `wardian` (the real-CLI test of usage and budgets, `fixtures/recordings`): a
turn, then a hard budget's turn whose tool's call was held by the model server and which the host
cut with Esc (the screen's "Request cancelled.", then the killed tool's AfterTool; no AfterAgent),
then three more turns, the cancel line still in the chat above them. Paths rewritten.
"""

import json
from pathlib import Path

from wardian_core.provider import OutputSource, ProviderEvent
from wardian_core.provider.testing import Terminal, offset_after
from wardian_gemini import cancel, home, hooks_log, plugin
from wardian_gemini.profile import INPUT_PROFILE

FIXTURES = Path(__file__).parent / "fixtures" / "recordings"
SCREEN = (FIXTURES / "gemini-tui-hard-budget-cut.raw").read_bytes()
HOOKS = (FIXTURES / "gemini-hooks-hard-budget-cut.log").read_text().splitlines()
NAMES = [json.loads(line)["hook_event_name"] for line in HOOKS]
# The cut turn's hooks: its BeforeAgent and BeforeTool came before the line, its AfterTool after.
CUT_BEGUN = NAMES.index("BeforeTool") + 1
CUT_TOOL_ENDED = NAMES.index("AfterTool")
HOOK_SOURCE = OutputSource(name=home.HOOKS_SOURCE, kind="file", path=Path("/unused"))


def hooks_written(terminal: Terminal, upto: int) -> None:
    """The hook log as it stood: the recorded lines before `upto`."""
    home.hooks_file(terminal.ctx).parent.mkdir(parents=True, exist_ok=True)
    home.hooks_file(terminal.ctx).write_text("".join(line + "\n" for line in HOOKS[:upto]))


def ended(events: list[ProviderEvent]) -> list[tuple[str, str | None, str | None]]:
    return [(e.evidence.rule, e.evidence.line, e.message) for e in events if e.kind == "turn_completed"]


def look(terminal: Terminal) -> list[ProviderEvent]:
    return list(terminal.parser.screen(terminal.screen.snapshot()).events)


def test_esc_is_the_interrupt_key_typed_once() -> None:
    assert (INPUT_PROFILE.interrupt_key, INPUT_PROFILE.interrupt_presses) == ("\x1b", 1)


def test_the_cancel_line_ends_the_turn_once(make_ctx) -> None:
    terminal = Terminal(plugin, make_ctx)
    hooks_written(terminal, CUT_BEGUN)
    events = terminal.feed_to(SCREEN, offset_after(SCREEN, cancel.CANCELLED))
    assert ended(events) == [("request cancelled", "Request cancelled.", "cancelled")]
    assert [e.evidence.source for e in events if e.kind == "turn_completed"] == ["pty"]
    # The same screen looked at again, after the killed tool's AfterTool: told already.
    hooks_written(terminal, CUT_TOOL_ENDED + 1)
    assert ended(look(terminal)) == []


def test_the_line_left_in_the_chat_ends_no_later_turn(make_ctx) -> None:
    terminal = Terminal(plugin, make_ctx)
    hooks_written(terminal, CUT_BEGUN)
    terminal.feed_to(SCREEN, offset_after(SCREEN, cancel.CANCELLED))
    # Every later turn begun at once, before its echo is drawn: a look at every read tells nothing.
    hooks_written(terminal, len(HOOKS))
    later: list[ProviderEvent] = []
    while terminal.fed < len(SCREEN):
        later += terminal.feed(SCREEN[terminal.fed : terminal.fed + 512]) + look(terminal)
    assert ended(later) == []
    rows = [row.strip() for row in terminal.screen.snapshot().rows]
    assert "\u2139 Request cancelled." in rows, rows  # still in the chat, above the later turns


def test_a_fresh_parser_tells_the_line_only_below_the_newest_prompt(make_ctx) -> None:
    """Without the position rule a host taking the agent on would end its later turn at once."""
    terminal = Terminal(plugin, make_ctx)
    hooks_written(terminal, len(HOOKS))
    terminal.feed_to(SCREEN, len(SCREEN))
    assert ended(look(terminal)) == []
    assert cancel.cancelled_chat([row.strip() for row in terminal.screen.snapshot().rows]) is None


def test_the_killed_tools_after_tool_hook_ends_the_turn() -> None:
    parser = hooks_log.GeminiHooks(HOOK_SOURCE)
    cut = HOOKS[NAMES.index("BeforeAgent", NAMES.index("AfterAgent")) : CUT_TOOL_ENDED + 1]
    events = [event for line in cut for event in parser.feed((line + "\n").encode()).events]
    assert [(e.kind, e.evidence.rule, e.message) for e in events] == [
        ("turn_started", "hook BeforeAgent", None),
        ("generating", "hook BeforeTool", None),
        ("turn_completed", "hook AfterTool cancelled", "cancelled"),
    ]
    assert events[-1].evidence.line == 'AfterTool run_shell_command: echo MOCK""_HOLD:cut'


def test_a_tool_that_ran_ends_no_turn() -> None:
    record = json.loads(HOOKS[CUT_TOOL_ENDED])
    record["tool_response"] = {"llmContent": "MOCK_HOLD:cut", "returnDisplay": "MOCK_HOLD:cut"}
    events = hooks_log.GeminiHooks(HOOK_SOURCE).feed((json.dumps(record) + "\n").encode()).events
    assert [(e.kind, e.evidence.rule) for e in events] == [("generating", "hook AfterTool")]


# Seen live (0.61.0): Esc came as the tool started; the screen told the cancel first, then the
# killed tool's AfterTool brought its output.
KILLED_WITH_OUTPUT = {
    "llmContent": "<untrusted_context>\nCommand was cancelled by user before it could complete. Below is the "
    "output before it was cancelled:\nMOCK_HOLD:cut\n</untrusted_context>",
    "returnDisplay": "Command cancelled by user.\n\nOutput before cancellation:\nMOCK_HOLD:cut",
}


def test_a_killed_tool_with_output_ends_the_turn_too() -> None:
    record = json.loads(HOOKS[CUT_TOOL_ENDED]) | {"tool_response": KILLED_WITH_OUTPUT}
    assert cancel.cancelled_tool(record)
    debug = {"llmContent": KILLED_WITH_OUTPUT["llmContent"], "returnDisplay": KILLED_WITH_OUTPUT["llmContent"]}
    assert cancel.cancelled_tool(record | {"tool_response": debug})  # debug mode shows what the model gets


def test_the_screens_cancel_names_the_turn_its_hooks_name(make_ctx) -> None:
    """The host drops an event of a turn it saw end: a tool's AfterTool after the screen's cancel
    must not make the agent `processing` again."""
    hooks = hooks_log.GeminiHooks(HOOK_SOURCE)
    cut = HOOKS[: CUT_TOOL_ENDED + 1]
    events = [event for line in cut for event in hooks.feed((line + "\n").encode()).events]
    terminal = Terminal(plugin, make_ctx)
    hooks_written(terminal, CUT_BEGUN)
    [told] = [e for e in terminal.feed_to(SCREEN, offset_after(SCREEN, cancel.CANCELLED)) if e.kind == "turn_completed"]
    cut_turn = json.loads(HOOKS[CUT_BEGUN - 2])["timestamp"]  # the cut turn's BeforeAgent
    assert told.turn == cut_turn
    assert [e.turn for e in events[-3:]] == [cut_turn] * 3  # turn_started, generating, its AfterTool's
