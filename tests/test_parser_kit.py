"""The parser kit providers share: escapes, JSON lines, settle timers, marker watches."""

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pluggy
import pytest

from wardian_core import hookspecs
from wardian_core.parsing.by_source import parsers_by_source
from wardian_core.parsing.escapes import TerminalText, squeeze, strip_ansi
from wardian_core.parsing.jsonl import LineSplitter, api_error_message, json_object, lines_newest_first, text_field
from wardian_core.parsing.markers import MarkerWatch
from wardian_core.parsing.settle import Settle
from wardian_core.parsing.settled_box import BoxReport, SettledBox
from wardian_core.parsing.sources import HookLogParser, JsonLinesParser
from wardian_core.provider_models import HEADLESS_SOURCE, PTY_SOURCE, OutputSource, ParseResult, SpawnContext
from wardian_host.testing.contexts import spawn_context


def test_terminal_text_keeps_a_cut_character_and_a_cut_escape_for_the_next_read() -> None:
    text = TerminalText()
    pieces = [b"caf\xc3", b"\xa9 \x1b[3", b"8;5;1mred\x1b]0;title", b"\x07 done"]
    assert "".join(text.feed(piece) for piece in pieces) == "café red done"


def test_strip_ansi_and_squeeze_read_what_a_tui_drew() -> None:
    drawn = b"Trust\x1b[1Cthis\x1b[1Cfolder?\r\n\x1b[2mok\x1b[0m"
    assert strip_ansi(drawn) == "Trustthisfolder?\nok"
    assert squeeze("Trust this\tfolder?\n") == "Trustthisfolder?"


def test_a_marker_cut_between_reads_is_seen_once() -> None:
    watch = MarkerWatch()
    marker = squeeze("? for shortcuts")
    assert watch.saw_any(b"\x1b[2m? for", (marker,)) is False
    assert watch.saw_any(b"\x1b[1Cshortcuts\x1b[0m", (marker,)) is True
    assert watch.saw_any(b" more text", (marker,)) is False  # not seen again from the kept tail


def test_markers_that_start_alike_are_each_seen() -> None:
    proceed, api_key = squeeze("Do you want to proceed?"), squeeze("Do you want to use this API key?")
    for drawn, expected in ((b"Do you want to use this API key?", True), (b"Do you want to go?", False)):
        assert MarkerWatch().saw_any(drawn, (proceed, api_key)) is expected
    watch = MarkerWatch()
    assert watch.saw_any(b"Do you want to use this API key? ... Do you want to proceed?", (api_key, proceed)) is True
    assert watch.saw_any(b" more", (api_key, proceed)) is False  # neither again from the kept tail


def test_a_marker_is_seen_with_anything_hidden_right_after_its_first_character() -> None:
    marker = squeeze("1. Yes")
    # One of each kind of thing the squeezed text does not show.
    hidden = ["\x1b[1C", "\x1b]8;;https://x.test\x07", "\x1bP1$r\x1b\\", "\x1b(B", "\x1b7", "\x07", " ", "\t", "\x7f"]
    hidden += ["\x85", "\xa0", "\u1680", "\u2000", "\u200a", "\u2028", "\u202f", "\u205f", "\u3000"]
    for gap in hidden:
        assert MarkerWatch().saw_any(f"1{gap}.{gap}Yes".encode(), (marker,)) is True, repr(gap)
    assert MarkerWatch().saw_any(b"\x1b[1C1\x1b[1C", (marker,)) is False


def test_a_marker_another_one_ends_is_seen_as_that_one() -> None:
    numbered, plain = squeeze("1. Yes, I trust this folder"), squeeze("Yes, I trust this folder")
    watch = MarkerWatch()
    assert watch.saw_any(b"\x1b[1C1.\x1b[1CYes,\x1b[1CI trust this folder", (numbered, plain)) is True
    assert watch.saw_any(b" folder", (numbered, plain)) is False  # neither again from the kept tail
    assert MarkerWatch().saw_any(b"\xe2\x9d\xaf Yes, I trust this folder", (numbered, plain)) is True
    assert MarkerWatch().saw_any(b"\xe2\x9d\xaf Yes, I trust this folder", (numbered,)) is False


@pytest.mark.parametrize(
    ("drawn", "shown"),
    [
        (b"\x1b[1Choose the text style", False),  # the C ends a cursor move
        (b"\x1b[123Choose the text style", False),  # a longer one
        (b"\x1b[38;5;246Choose the text style", False),
        (b"\x1b]0;Choose the text style\x07", False),  # the window's title
        (b"\x1bP1$rChoose the text style\x1b\\", False),
        (b"\x1b[1CChoose the text style", True),
        (b"\x1b]0;title\x1b\\Choose the text style", True),
        (b"x[1Choose the text style", True),
        (b"\x1b\x1b[1CChoose the text style", True),
    ],
)
def test_a_first_character_inside_an_escape_starts_no_marker(drawn: bytes, shown: bool) -> None:
    marker = squeeze("Choose the text style")
    assert (marker in squeeze(strip_ansi(drawn))) is shown  # what the stripped text shows
    assert MarkerWatch().saw_any(drawn, (marker,)) is shown


def test_json_lines_tolerate_prefixes_fragments_and_other_types() -> None:
    assert json_object(b'12:00\tStop\t{"hook_event_name": "Stop"}') == {"hook_event_name": "Stop"}
    assert json_object(b"[1, 2]") is None and json_object(b'{"cut": ') is None
    splitter = LineSplitter()
    assert splitter.feed(b'{"a": 1}\r\n{"b"') == [b'{"a": 1}']
    assert splitter.feed(b": 2}\n") == [b'{"b": 2}']


@pytest.mark.parametrize("block_bytes", [1, 5, 64, 64 * 1024])
def test_lines_newest_first_are_every_line_reversed_whatever_the_block(tmp_path: Path, block_bytes: int) -> None:
    log = tmp_path / "hooks.jsonl"
    long_line = b'{"long": "' + b"x" * 200 + b'"}'  # longer than every small block
    log.write_bytes(b'{"n": 1}\n\n' + long_line + b'\n{"n": 3}\n{"cut": ')
    newest_first = list(lines_newest_first(log, block_bytes))
    assert newest_first == [b'{"cut": ', b'{"n": 3}', long_line, b'{"n": 1}']
    log.write_bytes(b"")
    assert list(lines_newest_first(log, block_bytes)) == []
    with pytest.raises(OSError):
        next(lines_newest_first(tmp_path / "missing.jsonl"))


def test_a_settle_timer_comes_due_once_unless_cancelled() -> None:
    settle = Settle(0.5)
    assert settle.start() == 0.5
    assert settle.due() is True and settle.due() is False
    settle.start()
    settle.cancel()
    assert settle.due() is False


def test_a_settled_box_reports_its_request_once_and_its_close_as_told() -> None:
    source = OutputSource(name="pty", kind="pty")
    report = BoxReport(dialog="tool", rule="approval box", marker="Allow once", message="asks")
    box = SettledBox(0.5)
    assert box.events(source, True, False, report) == ([], 0.5)  # drawn: look again once settled
    [asked], again = box.events(source, True, True, report)
    assert (asked.kind, asked.dialog, asked.reason, asked.message, again) == (
        "approval_requested",
        "tool",
        "tool",
        "asks",
        None,
    )
    assert box.events(source, True, True, report) == ([], None)  # reported once only
    assert box.events(source, False, False, report) == ([], 0.5)  # gone: maybe a repaint
    [resolved], _ = box.events(source, False, True, report)
    assert (resolved.kind, resolved.evidence.rule) == ("approval_resolved", "approval box closed")
    # Where a stream reports the boxes the screen did not, their close says nothing.
    quiet = BoxReport(dialog="tool", rule="panel", marker="Allow once", message="asks", close_unreported=False)
    box = SettledBox(0.5)
    box.events(source, True, False, quiet)
    box.events(source, False, False, quiet)
    assert box.events(source, False, True, quiet) == ([], None)


def test_api_error_message_unwraps_the_api_json_each_cli_wraps_in_a_string() -> None:
    api = '{"error":{"code":400,"message":"mock error 400 requested"}}'
    assert api_error_message({"message": api}) == "mock error 400 requested"  # Codex: the JSON alone
    assert api_error_message(f"[API Error: {api}]") == "mock error 400 requested"  # Gemini: wrapped
    assert api_error_message({"message": "plain text {not json"}) == "plain text {not json"
    assert api_error_message({"message": ""}) is None and api_error_message(42) is None


class SessionHooks(HookLogParser):
    """A hook log parser that keeps each payload's name with the session the host knew then, and
    follows the session a SessionStart names."""

    def __init__(self, source: OutputSource, ctx: SpawnContext | None = None) -> None:
        super().__init__(source, ctx)
        self.seen: list[tuple[str, str | None]] = []

    def read(self, record: dict[str, Any], name: str) -> ParseResult:
        if self.another_session(record):
            return ParseResult()
        self.seen.append((name, self.known_session))
        if name == "SessionStart":
            self.session_id = text_field(record, "session_id")
        return ParseResult()


def hook_line(name: str, session: str) -> bytes:
    return json.dumps({"hook_event_name": name, "session_id": session}).encode()


def test_a_hook_log_parser_reads_the_session_its_context_names_at_each_line(tmp_path: Path) -> None:
    ctx = spawn_context(tmp_path, "kit")
    parser = SessionHooks(OutputSource(name="hooks", path=tmp_path / "hooks.jsonl"), ctx)
    parser.feed(hook_line("UserPromptSubmit", "s-0"))
    ctx.provider_session_id = "s-1"  # as the host does once an event named the session
    parser.feed(hook_line("Stop", "s-1"))
    parser.feed(b"not a payload")

    assert parser.seen == [("UserPromptSubmit", None), ("Stop", "s-1")]


def test_a_hook_log_parser_rests_while_it_holds_no_session_but_the_hosts(tmp_path: Path) -> None:
    ctx = spawn_context(tmp_path, "kit")
    parser = SessionHooks(OutputSource(name="hooks", path=tmp_path / "hooks.jsonl"), ctx)
    assert parser.feed(hook_line("UserPromptSubmit", "s-1")).rests()
    assert not parser.feed(hook_line("SessionStart", "s-1")).rests(), "a session the host does not know yet"
    ctx.provider_session_id = "s-1"
    assert parser.feed(hook_line("Stop", "s-1")).rests()
    # Another session's payload is ignored: the parser follows the one it adopted.
    assert parser.feed(hook_line("Stop", "s-2")).rests()
    assert parser.seen[-1] == ("Stop", "s-1")


def _markers_of_every_tui() -> tuple[str, ...]:
    from wardian_claude import tui as claude
    from wardian_codex import tui as codex
    from wardian_gemini import tui as gemini
    from wardian_opencode import tui as opencode

    return tuple(
        {
            *claude.ALWAYS,
            *claude.PROMPT_MARKERS,
            claude.INTERRUPTED_MARKER,
            claude.REFUSED_MARKER,
            *codex.ALWAYS,
            *codex.STATUS_LINE,
            *codex.ANSWER_MARKERS,
            *codex.TRUST_ANSWER_MARKERS,
            *gemini.READY_MARKERS,
            *gemini.BOX_MARKERS,
            *opencode.READY_MARKERS,
            *opencode.PANEL_MARKERS,
        }
    )


def _seen_in_squeezed_text(squeezed_pieces: list[str], markers: tuple[str, ...]) -> list[bool]:
    """Where the watch sees one of `markers`, found the slow way: in the stream decoded,
    stripped, squeezed."""
    tail, seen = "", []
    for piece in squeezed_pieces:
        squeezed = tail + piece
        end = max((squeezed.rfind(marker) + len(marker) for marker in markers if marker in squeezed), default=-1)
        tail = squeezed[max(end, 0) :][-200:]
        seen.append(end >= 0)
    return seen


@pytest.mark.parametrize("chunk", [251, 4096])
def test_markers_in_the_raw_stream_are_seen_where_the_squeezed_text_shows_them(chunk: int) -> None:
    recordings = sorted(Path(__file__).parent.parent.glob("providers/*/tests/fixtures/**/*.raw"))
    assert len(recordings) >= 10
    seen_somewhere = 0
    for recording in recordings:
        data = recording.read_bytes()
        pieces = [data[start : start + chunk] for start in range(0, len(data), chunk)]
        text = TerminalText()
        squeezed = [squeeze(text.feed(piece)) for piece in pieces]
        for markers in [(marker,) for marker in _markers_of_every_tui()] + [_markers_of_every_tui()]:
            watch = MarkerWatch()
            found = [watch.saw_any(piece, markers) for piece in pieces]
            assert found == _seen_in_squeezed_text(squeezed, markers), (recording.name, markers)
            seen_somewhere += any(found)
    assert seen_somewhere >= 20  # the comparison is not between two blind watches


def test_a_marker_is_seen_across_hyperlinks_unicode_spaces_and_colours() -> None:
    marker = squeeze("Do you want to proceed?")
    drawn = "Do\xa0you\x1b]8;;https://x.example/a?b\x07want\x1b]8;;\x1b\\\u3000to\x1b[38;2;1;2;3mproceed\x1b[0m?"
    assert MarkerWatch().saw_any(drawn.encode(), (marker,)) is True
    assert MarkerWatch().saw_any(b"Do you want to-proceed?", (marker,)) is False
    watch = MarkerWatch()
    assert [watch.saw_any(piece, (marker,)) for piece in (b"Do you want to \x1b[38;2;1", b";2;3mproceed?")] == [
        False,
        True,
    ]


def test_a_rest_is_a_line_at_rest_that_asks_the_host_for_nothing() -> None:
    assert ParseResult(at_rest=True).rests()
    assert not ParseResult().rests()
    # What a replay of the line would ask again: a next host must read it, at rest or not.
    for asks in ({"want_screen": True}, {"sources_changed": True}, {"call_again_after": 0.5}):
        assert not ParseResult(at_rest=True, **asks).rests(), asks


class Stateless(JsonLinesParser):
    at_rest = True

    def read(self, record: dict[str, Any], line: str) -> ParseResult:
        return ParseResult()


def test_a_json_lines_parser_without_memory_rests_after_every_line() -> None:
    """A parser without memory holds nothing a new one would not: every line is a rest, one that is
    no JSON object too."""
    stateless = Stateless(OutputSource(name="log", path=Path("log.jsonl")))
    assert stateless.feed(b"{}").rests() and stateless.feed(b"[1, 2]").rests()


class Screen(Stateless):
    pass


class Named(Stateless):
    pass


def test_parsers_by_source_reads_the_screen_each_named_source_and_the_rest(tmp_path: Path) -> None:
    """The dispatch a provider's `parse_output` makes: the PTY's chunks to its screen parser, a
    source to the parser its name picks, any other to the rest's; marked as that hook."""
    parse_output = parsers_by_source(screen=Screen, named={"hooks": Named}, rest=Stateless)
    ctx = spawn_context(tmp_path, "example")
    made = [
        parse_output(ctx, source)
        for source in (PTY_SOURCE, OutputSource(name="hooks", path=Path("h")), HEADLESS_SOURCE)
    ]
    assert [type(parser) for parser in made] == [Screen, Named, Stateless]
    assert isinstance(made[0], Screen) and (made[0].source, made[0].ctx) == (PTY_SOURCE, ctx)
    plugins = pluggy.PluginManager("wardian")
    plugins.add_hookspecs(hookspecs)
    plugins.register(SimpleNamespace(parse_output=parse_output))
    assert [type(parser) for parser in plugins.hook.parse_output(ctx=ctx, source=PTY_SOURCE)] == [Screen]
