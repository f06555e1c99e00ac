"""Shell integration marks (OSC 133): the scanner on recorded bash and zsh sessions, and the
generic parser's statuses from them. Recordings: tests/fixtures/generic/record_shell.py."""

from pathlib import Path

import pytest

from wardian_core.provider_models import PTY_SOURCE, SpawnContext
from wardian_host.providers.builtin_generic import parser
from wardian_host.providers.builtin_generic.shell_marks import MarkScanner, ShellMark
from wardian_host.providers.manager import load_plugins
from wardian_host.providers.replay import replay
from wardian_host.testing.contexts import spawn_context

FIXTURES = Path(__file__).parent / "fixtures" / "generic"
RECORDINGS = ["bash-5.2.raw", "zsh-5.9.raw"]
# Each recording: a prompt, `sleep 0.5; echo done`, an empty line, `false`, `exit`.
SESSION_MARKS = [
    ShellMark("A"),
    ShellMark("B"),
    ShellMark("C"),
    ShellMark("D", ("0",)),
    ShellMark("A"),
    ShellMark("B"),
    ShellMark("A"),  # the empty line: a new prompt, no command
    ShellMark("B"),
    ShellMark("C"),
    ShellMark("D", ("1",)),
    ShellMark("A"),
    ShellMark("B"),
    ShellMark("C"),  # exit: the shell ends, no D
]


def marks_and_text(scanner: MarkScanner, chunks: list[bytes]) -> tuple[list[ShellMark], bytes]:
    marks: list[ShellMark] = []
    text = b""
    for chunk in chunks:
        for piece in scanner.feed(chunk):
            if isinstance(piece, ShellMark):
                marks.append(piece)
            else:
                text += piece
    return marks, text


@pytest.mark.parametrize("recording", RECORDINGS)
def test_the_marks_of_a_recorded_session_come_out_in_order(recording: str) -> None:
    marks, text = marks_and_text(MarkScanner(), [(FIXTURES / recording).read_bytes()])
    assert marks == SESSION_MARKS
    assert [mark.exit_code for mark in marks if mark.kind == "D"] == [0, 1]
    assert b"\x1b]133;" not in text
    assert b"done\r\n" in text


@pytest.mark.parametrize("recording", RECORDINGS)
def test_a_mark_cut_anywhere_by_the_read_is_found_once(recording: str) -> None:
    data = (FIXTURES / recording).read_bytes()
    whole = marks_and_text(MarkScanner(), [data])
    assert marks_and_text(MarkScanner(), [data[i : i + 1] for i in range(len(data))]) == whole
    for cut in range(1, len(data)):
        assert marks_and_text(MarkScanner(), [data[:cut], data[cut:]]) == whole, cut


def test_string_terminator_parameters_and_malformed_marks() -> None:
    scanner = MarkScanner()
    pieces = scanner.feed(b"a\x1b]133;D\x1b\\b\x1b]133;D;2;aid=7\x07c\x1b]133;Z\x07d\x1b]0;title\x07")
    assert pieces == [
        b"a",
        ShellMark("D"),
        b"b",
        ShellMark("D", ("2", "aid=7")),
        b"c\x1b]133;Z\x07d\x1b]0;title\x07",  # not marks: passed on as output
    ]
    assert ShellMark("D").exit_code is None
    assert ShellMark("D", ("x",)).exit_code is None


def test_an_unfinished_mark_is_held_only_while_it_could_still_be_one() -> None:
    scanner = MarkScanner()
    assert scanner.feed(b"out\x1b]13") == [b"out"]
    assert scanner.feed(b"3;C") == []
    assert scanner.feed(b"\x07") == [ShellMark("C")]
    # An introducer never terminated within any mark's length is output after all.
    assert scanner.feed(b"\x1b]133;" + b"x" * 200) == [b"\x1b]133;" + b"x" * 200]
    assert scanner.feed(b"\x1b]133;A\x1b[0m") == [b"\x1b]133;A\x1b[0m"]


def context(tmp_path: Path, **settings: object) -> SpawnContext:
    return spawn_context(tmp_path, "generic", extra_args=["bash"], settings=settings)


@pytest.mark.parametrize("recording", RECORDINGS)
@pytest.mark.parametrize("chunk_size", [1, 7, 4096])
def test_a_recorded_session_gives_exact_turns_with_exit_codes(tmp_path: Path, recording: str, chunk_size: int) -> None:
    data = (FIXTURES / recording).read_bytes()
    ctx, state = context(tmp_path), parser.GenericState()
    events = []
    for start in range(0, len(data), chunk_size):
        events += parser.parse(ctx, PTY_SOURCE, data[start : start + chunk_size], state).events
        if state.shell_marks:  # from the first mark on, quiet time no longer decides
            assert parser.quiet(ctx, PTY_SOURCE, state).events == []
    assert [(found.kind, found.evidence.rule, found.message, found.data) for found in events] == [
        ("ready", parser.RULE_PROMPT_MARK, None, {}),
        ("turn_started", parser.RULE_COMMAND_MARK, None, {}),
        ("turn_completed", parser.RULE_FINISHED_MARK, "exit code 0", {"exit_code": 0}),
        ("turn_started", parser.RULE_COMMAND_MARK, None, {}),
        ("turn_completed", parser.RULE_FINISHED_MARK, "exit code 1", {"exit_code": 1}),
        ("turn_started", parser.RULE_COMMAND_MARK, None, {}),
    ]


def test_replay_of_a_bash_session_is_processing_only_between_c_and_d(tmp_path: Path) -> None:
    lines = replay(
        load_plugins({"WARDIAN_PLUGINS": "generic"}),
        "generic",
        FIXTURES / "bash-5.2.raw",
        source="pty",
        home=tmp_path,
        settings={"idle_quiet_seconds": 0.1},
        chunk_size=16,
        gap=1.0,  # far longer than the quiet time: quiet time would end every turn
    )
    timeline = [(line["to"], (line["evidence"] or {}).get("rule")) for line in lines if line["type"] == "status"]
    assert timeline == [
        ("starting", None),
        ("idle", parser.RULE_PROMPT_MARK),
        ("processing", parser.RULE_COMMAND_MARK),
        ("idle", parser.RULE_FINISHED_MARK),
        ("processing", parser.RULE_COMMAND_MARK),
        ("idle", parser.RULE_FINISHED_MARK),
        ("processing", parser.RULE_COMMAND_MARK),
    ]


def test_a_prompt_after_a_command_without_d_still_ends_the_turn(tmp_path: Path) -> None:
    ctx, state = context(tmp_path), parser.GenericState()
    kinds = [
        (found.kind, found.evidence.rule)
        for chunk in (b"\x1b]133;A\x07$ ", b"\x1b]133;C\x07out\r\n", b"\x1b]133;A\x07$ ")
        for found in parser.parse(ctx, PTY_SOURCE, chunk, state).events
    ]
    assert kinds == [
        ("ready", parser.RULE_PROMPT_MARK),
        ("turn_started", parser.RULE_COMMAND_MARK),
        ("turn_completed", parser.RULE_PROMPT_MARK),
    ]


def test_an_integrated_shell_is_ready_at_its_first_prompt_mark_however_long_its_start(tmp_path: Path) -> None:
    # cc32: a loaded zsh silent for longer than the quiet time (0.5 s) before its first prompt was
    # called ready by quiet time; Wardian's own start-up says when the prompt is there.
    ctx, state = context(tmp_path, idle_quiet_seconds=0.5), parser.GenericState()
    assert parser.opened(ctx, state).call_again_after == parser.MARKS_EXPECTED_SECONDS
    slow_rc = parser.parse(ctx, PTY_SOURCE, b"loading nvm...\r\n", state)
    assert (slow_rc.events, slow_rc.call_again_after) == ([], None)  # no quiet timer while starting
    ready = parser.parse(ctx, PTY_SOURCE, b"\x1b]133;A\x07$ \x1b]133;B\x07", state).events
    assert [(found.kind, found.evidence.rule) for found in ready] == [("ready", parser.RULE_PROMPT_MARK)]
    assert parser.quiet(ctx, PTY_SOURCE, state).events == []  # the bound's timer, late: marks decide


def test_an_integrated_shell_that_never_marks_falls_back_to_quiet_time_after_the_bound(tmp_path: Path) -> None:
    # The user's start-up replaced the shell (`exec fish` in ~/.bashrc): no mark will come.
    ctx, state = context(tmp_path, idle_quiet_seconds=0.5), parser.GenericState()
    parser.opened(ctx, state)
    assert parser.parse(ctx, PTY_SOURCE, b"other shell> ", state).call_again_after is None
    bound_over = parser.quiet(ctx, PTY_SOURCE, state)
    assert (bound_over.events, bound_over.call_again_after) == ([], 0.5 / parser.STARTING_TICKS)
    calls = [
        [found.kind for found in parser.quiet(ctx, PTY_SOURCE, state).events] for _ in range(parser.STARTING_TICKS + 1)
    ]
    assert calls == [[]] * parser.STARTING_TICKS + [["ready"]]
    assert state.phase == "idle"


def test_a_shell_without_integration_and_no_pattern_is_not_waited_for(tmp_path: Path) -> None:
    for ctx in (context(tmp_path, shell_integration=False), context(tmp_path, prompt_pattern=r"\$ ")):
        assert parser.opened(ctx, parser.GenericState()).call_again_after != parser.MARKS_EXPECTED_SECONDS


def test_output_before_the_first_mark_follows_quiet_time_then_marks_take_over(tmp_path: Path) -> None:
    # A program that writes marks itself (fish 4): Wardian did not extend its start-up.
    ctx, state = context(tmp_path, idle_quiet_seconds=0.5, shell_integration=False), parser.GenericState()
    # While starting, quiet time is counted in quarters: the call that heard the output, then a
    # whole quiet time of silence, make it ready.
    assert parser.parse(ctx, PTY_SOURCE, b"slow rc output\r\n", state).call_again_after == 0.5 / parser.STARTING_TICKS
    calls = [
        [found.kind for found in parser.quiet(ctx, PTY_SOURCE, state).events] for _ in range(parser.STARTING_TICKS + 1)
    ]
    assert calls == [[]] * parser.STARTING_TICKS + [["ready"]]
    result = parser.parse(ctx, PTY_SOURCE, b"\x1b]133;A\x07$ \x1b]133;B\x07typed", state)
    assert (result.events, result.call_again_after) == ([], None)
