"""The built-in generic provider: launch arguments and status from output activity."""

from pathlib import Path
from typing import Any

import pytest

from wardian_core.errors import WardianError
from wardian_core.provider_models import PTY_SOURCE, ParseResult, SpawnContext
from wardian_host.providers.builtin_generic import parser
from wardian_host.providers.manager import load_plugins
from wardian_host.providers.replay import replay
from wardian_host.providers.source_parser import SourceParser
from wardian_host.testing.contexts import spawn_context


def context(
    tmp_path: Path, extra_args: list[str] | None = None, mode: str = "interactive", **settings: Any
) -> SpawnContext:
    # A program without shell marks, whose start-up Wardian does not extend: quiet time decides.
    command = ["node"] if extra_args is None else extra_args
    return spawn_context(tmp_path, "generic", workspace=tmp_path, extra_args=command, mode=mode, settings=settings)


class Feed:
    """Calls the parser as the host does: through the plugin, with its declared state."""

    def __init__(self, ctx: SpawnContext) -> None:
        self.ctx = ctx
        self.parser = SourceParser(load_plugins({"WARDIAN_PLUGINS": "generic"}), "generic", PTY_SOURCE)
        self.parser.start(ctx)
        assert isinstance(self.parser.parser, parser.GenericParser)

    def __call__(self, data: bytes) -> tuple[list[str], float | None]:
        return self._answer(self.parser.parse(self.ctx, data))

    def opened(self) -> tuple[list[str], float | None]:
        return self._answer(self.parser.opened(self.ctx))

    def quiet(self) -> tuple[list[str], float | None]:
        return self._answer(self.parser.quiet(self.ctx))

    def caught_up(self) -> tuple[list[str], float | None]:
        return self._answer(self.parser.caught_up(self.ctx))

    def quiet_spell(self) -> tuple[list[str], float | None]:
        """A whole quiet time without output: while starting, the calls of each quarter."""
        calls = [self.quiet() for _ in range(parser.STARTING_TICKS)]
        assert all(call == ([], calls[0][1]) for call in calls[:-1]), calls
        return calls[-1]

    @staticmethod
    def _answer(result: ParseResult) -> tuple[list[str], float | None]:
        return [event.kind for event in result.events], result.call_again_after


def test_build_argv_runs_the_command_given_after_the_double_dash(tmp_path: Path) -> None:
    plan = load_plugins({"WARDIAN_PLUGINS": "generic"}).build_argv("generic", ctx=context(tmp_path, ["python3", "-i"]))
    assert (plan.argv, plan.env, plan.cwd) == (["python3", "-i"], {}, tmp_path)


@pytest.mark.parametrize(
    ("extra_args", "mode", "settings", "code"),
    [
        ([], "interactive", {}, "usage"),
        (["bash"], "headless", {}, "not_supported"),
        (["bash"], "interactive", {"prompt_pattern": "(unclosed"}, "validation_failed"),
        (["bash"], "interactive", {"idle_quiet_seconds": 0}, "validation_failed"),
        (["bash"], "interactive", {"idle_quiet_seconds": -1}, "validation_failed"),
        (["bash"], "interactive", {"idle_quiet_seconds": "soon"}, "validation_failed"),
    ],
)
def test_build_argv_refuses_what_it_cannot_run(tmp_path: Path, extra_args, mode, settings, code) -> None:
    plugins = load_plugins({"WARDIAN_PLUGINS": "generic"})
    with pytest.raises(WardianError) as caught:
        plugins.build_argv("generic", ctx=context(tmp_path, extra_args, mode, **settings))
    assert caught.value.code == code


def test_startup_output_keeps_starting_until_quiet_then_ready(tmp_path: Path) -> None:
    feed = Feed(context(tmp_path))
    assert feed.opened() == ([], 0.375)  # the source opened: called every quarter of the quiet time
    assert feed(b"Welcome to the shell\r\n") == ([], None)  # the call asked for stands
    assert feed.quiet() == ([], 0.375)  # output came in this quarter
    assert feed.quiet_spell() == (["ready"], None)


def test_a_command_that_prints_nothing_is_ready_once_quiet(tmp_path: Path) -> None:
    feed = Feed(context(tmp_path, idle_quiet_seconds=0.25))
    assert feed.opened() == ([], 0.0625)
    assert feed.quiet_spell() == (["ready"], None)


def test_a_command_printing_through_a_quiet_time_from_launch_is_busy(tmp_path: Path) -> None:
    # `yes`, a build started at launch: never quiet, so the quiet timer alone left it starting.
    feed = Feed(context(tmp_path, idle_quiet_seconds=2))
    feed.opened()
    for _ in range(parser.STARTING_TICKS - 1):
        assert feed(b"y\r\n") == ([], None)
        assert feed.quiet() == ([], 0.5)
    feed(b"y\r\n")
    started = feed.parser.quiet(feed.ctx)
    assert ([event.kind for event in started.events], started.call_again_after) == (["turn_started"], 2.0)
    evidence = started.events[0].evidence.model_dump()
    assert evidence == {"source": "pty", "rule": "output through 2s from launch", "line": "y"}
    assert feed(b"y\r\n") == ([], 2.0)  # the quiet time as after any turn
    assert feed.quiet() == (["turn_completed"], None)


def test_a_pause_while_starting_begins_the_count_again(tmp_path: Path) -> None:
    feed = Feed(context(tmp_path, idle_quiet_seconds=2))
    feed.opened()
    for heard in (True, True, True, False, True, True, True):
        if heard:
            feed(b"banner\r\n")
        assert feed.quiet() == ([], 0.5)
    assert feed.quiet_spell() == (["ready"], None)


def test_output_after_quiet_starts_a_turn_and_quiet_ends_it(tmp_path: Path) -> None:
    feed = Feed(context(tmp_path, idle_quiet_seconds=4))
    feed.opened()
    feed.quiet_spell()
    assert feed(b"ls\r\n") == (["turn_started"], 4.0)
    assert feed(b"a.txt b.txt\r\n") == ([], 4.0)
    assert feed.quiet() == (["turn_completed"], None)
    assert feed.quiet() == ([], None)  # a late delayed call changes nothing


def test_an_adopted_launch_caught_up_takes_output_as_a_turn_and_its_first_quiet_ends_one(tmp_path: Path) -> None:
    typed_at_once = Feed(context(tmp_path, idle_quiet_seconds=4))
    typed_at_once.opened()
    typed_at_once(b"what the previous host parsed\r\n")  # replayed: counted no time
    assert typed_at_once.caught_up() == ([], 4.0)
    assert typed_at_once(b"ls\r\n") == (["turn_started"], 4.0)  # a turn, not start-up output
    assert typed_at_once.quiet() == (["turn_completed"], None)
    mid_turn = Feed(context(tmp_path, idle_quiet_seconds=4))
    mid_turn.opened()
    assert mid_turn.caught_up() == ([], 4.0)
    assert mid_turn.quiet() == (["turn_completed"], None)  # ends a turn the previous host saw begin
    assert mid_turn.quiet() == ([], None)
    prompted = Feed(context(tmp_path, prompt_pattern=r"\$ $"))
    prompted.opened()
    assert prompted.caught_up() == ([], None)  # a prompt pattern reads the replay as it is


def test_turn_started_evidence_names_the_line_that_showed_activity(tmp_path: Path) -> None:
    ctx = context(tmp_path)
    state = parser.GenericState()
    for _ in range(parser.STARTING_TICKS):
        parser.quiet(ctx, PTY_SOURCE, state)
    event = parser.parse(ctx, PTY_SOURCE, b"\x1b[1m\r\n  compiling foo\r\n", state).events[0]
    assert event.evidence.model_dump() == {"source": "pty", "rule": "output after quiet", "line": "compiling foo"}


def test_prompt_pattern_ends_a_turn_at_once_and_quiet_time_is_not_used(tmp_path: Path) -> None:
    feed = Feed(context(tmp_path, prompt_pattern=r"^\$ $"))
    assert feed.opened() == ([], None)
    assert feed(b"motd\r\n$ ") == (["ready"], None)
    assert feed(b"make\r\n") == (["turn_started"], None)
    assert feed.quiet() == ([], None)  # a long silent step is still the same turn
    assert feed(b"building\r\n$ ") == (["turn_completed"], None)
    assert feed.quiet() == ([], None)


def test_a_command_done_within_one_read_is_a_whole_turn(tmp_path: Path) -> None:
    feed = Feed(context(tmp_path, prompt_pattern=">>> "))
    feed(b"Python 3\r\n>>> ")
    assert feed(b"1+1\r\n2\r\n>>> ") == (["turn_started", "turn_completed"], None)


def test_a_line_submitted_at_the_prompt_starts_a_turn_however_its_output_is_split(tmp_path: Path) -> None:
    # As python3 -i printed it under load in CI: the echo, the newline, `print`'s text and its
    # line end in reads of their own. The newline was dropped, so `done` read as typed on the
    # prompt's line, and no turn started.
    feed = Feed(context(tmp_path, ["python3", "-i"], prompt_pattern=">>> "))
    assert feed(b"Python 3.11\r\n>>> ") == (["ready"], None)
    assert feed(b'import time; time.sleep(2); print("do" + "ne")') == ([], None)  # still the prompt's line
    assert feed(b"\r\n") == (["turn_started"], None)
    assert feed(b"done") == ([], None)
    assert feed(b"\r\n>>> ") == (["turn_completed"], None)


def test_a_command_that_prints_nothing_is_a_turn_named_by_its_line(tmp_path: Path) -> None:
    ctx = context(tmp_path, ["python3", "-i"], prompt_pattern=">>> ")
    state = parser.GenericState()
    parser.parse(ctx, PTY_SOURCE, b">>> ", state)
    assert parser.parse(ctx, PTY_SOURCE, b"x = 6 * 7", state).events == []
    started = parser.parse(ctx, PTY_SOURCE, b"\r\n", state).events
    assert [(event.kind, event.evidence.rule, event.evidence.line) for event in started] == [
        ("turn_started", "input submitted at the prompt", ">>> x = 6 * 7")
    ]
    assert [event.kind for event in parser.parse(ctx, PTY_SOURCE, b">>> ", state).events] == ["turn_completed"]


def test_a_prompt_split_across_reads_and_a_redrawn_line_are_read_as_the_screen_shows_them(tmp_path: Path) -> None:
    feed = Feed(context(tmp_path, ["python3", "-i"], prompt_pattern=">>> $"))
    assert feed(b">>>") == ([], None)
    assert feed(b" ") == (["ready"], None)  # the blank that completes the prompt
    feed = Feed(context(tmp_path, ["python3", "-i"], prompt_pattern=">>> "))
    feed(b">>> ")
    # A carriage return alone redraws the prompt's line: no line ended, nothing submitted.
    assert feed(b"imp") == ([], None)
    assert feed(b"\r>>> import os") == ([], None)
    assert feed(b"\r") == ([], None)
    assert feed(b"\n") == (["turn_started"], None)  # the CR LF, split between two reads
    assert feed(b">>>") == ([], None)
    assert feed(b" ") == (["turn_completed"], None)


def test_the_prompt_redrawn_alone_is_no_turn(tmp_path: Path) -> None:
    feed = Feed(context(tmp_path, prompt_pattern=">>> $"))
    feed(b">>> ")
    assert feed(b"\r\n>>> ") == ([], None)
    assert feed(b"p") == (["turn_started"], None)  # typing at the prompt is activity


def test_evidence_names_the_rule_in_force(tmp_path: Path) -> None:
    ctx = context(tmp_path, prompt_pattern=">>> $")
    state = parser.GenericState()
    parser.parse(ctx, PTY_SOURCE, b">>> ", state)
    started, completed = parser.parse(ctx, PTY_SOURCE, b"print(1)\r\n1\r\n>>> ", state).events
    assert started.evidence.model_dump() == {"source": "pty", "rule": "output after the prompt", "line": "print(1)"}
    assert completed.evidence.model_dump() == {"source": "pty", "rule": "prompt_pattern >>> $", "line": ">>>"}


def test_escape_sequences_and_blank_redraws_are_not_activity(tmp_path: Path) -> None:
    feed = Feed(context(tmp_path))
    feed.opened()
    feed.quiet_spell()
    assert feed(b"\x1b[?25l\x1b[2;1H\x1b[K \r\n") == ([], None)
    assert feed(b"\x1b]0;title\x07") == ([], None)
    assert feed(b"\x1b[3") == ([], None)  # an escape cut by the read
    assert feed(b"1m") == ([], None)  # its end is not text either
    assert feed(b"\xe2\x82") == ([], None)  # half a character
    assert feed(b"\xac") == (["turn_started"], 1.5)


def test_replay_of_a_session_with_pauses_gives_the_status_timeline(tmp_path: Path) -> None:
    recording = tmp_path / "session.raw"
    recording.write_bytes(b"banner\r\n" + b"x" * 8 + b"output\r\n")
    lines = list(
        replay(
            load_plugins({"WARDIAN_PLUGINS": "generic"}),
            "generic",
            recording,
            source="pty",
            home=tmp_path,
            settings={"idle_quiet_seconds": 2},
            chunk_size=8,
            gap=3.0,
        )
    )
    timeline = [(line["at"], line["to"]) for line in lines if line["type"] == "status"]
    # Three 8-byte reads, 3 s apart, with a 2 s quiet time: each read is its own turn. The
    # first quiet time is counted in quarters from the first read's quarter.
    assert timeline == [
        (0.0, "starting"),
        (2.5, "idle"),
        (3.0, "processing"),
        (5.0, "idle"),
        (6.0, "processing"),
        (8.0, "idle"),
    ]


def launch(tmp_path: Path, command: list[str], **settings: Any) -> tuple[list[str], dict[str, str]]:
    """What the host would run: the plugin's prepare_home, then build_argv."""
    plugins = load_plugins({"WARDIAN_PLUGINS": "generic"})
    ctx = context(tmp_path, command, **settings)
    home = plugins.prepare_home("generic", ctx=ctx)
    return plugins.build_argv("generic", ctx=ctx).argv, home.env


def test_a_bash_agent_reads_a_per_agent_rcfile_that_sources_the_users(tmp_path: Path) -> None:
    argv, env = launch(tmp_path, ["/bin/bash", "-i"])
    rcfile = context(tmp_path).agent_dir / "shell" / "bash" / "bashrc"
    assert (argv, env) == (["/bin/bash", "--rcfile", str(rcfile), "-i"], {})
    text = rcfile.read_text()
    assert text.index(". ~/.bashrc") < text.index("133;A")


def test_a_zsh_agent_gets_a_per_agent_zdotdir_whose_files_source_the_users(tmp_path: Path) -> None:
    argv, env = launch(tmp_path, ["zsh", "-l"])
    zdotdir = context(tmp_path).agent_dir / "shell" / "zsh"
    assert (argv, env["ZDOTDIR"]) == (["zsh", "-l"], str(zdotdir))
    assert sorted(path.name for path in zdotdir.iterdir()) == [".zlogin", ".zprofile", ".zshenv", ".zshrc"]
    for path in zdotdir.iterdir():
        assert f"source $ZDOTDIR/{path.name}" in path.read_text()


@pytest.mark.parametrize(
    ("command", "settings"),
    [
        (["bash", "-c", "echo hi"], {}),
        (["bash", "script.sh"], {}),
        (["bash", "--norc"], {}),
        (["bash", "--login"], {}),
        (["zsh", "-f"], {}),
        (["python3", "-i"], {}),
        (["bash"], {"shell_integration": False}),
        (["zsh"], {"shell_integration": False}),
    ],
)
def test_a_command_whose_start_up_is_not_extended_runs_as_given(tmp_path: Path, command, settings) -> None:
    assert launch(tmp_path, command, **settings) == (command, {})
    assert not (context(tmp_path).agent_dir.parent).exists() or not any(
        (context(tmp_path).agent_dir.parent).rglob("shell")
    )


def test_a_bad_setting_is_refused_with_a_hint(tmp_path: Path) -> None:
    with pytest.raises(WardianError) as caught:
        launch(tmp_path, ["python3", "-i"], prompt_pattern="(x")
    assert (caught.value.code, caught.value.details) == ("validation_failed", {"setting": "prompt_pattern"})
    assert "prompt_pattern=" in (caught.value.hint or "")
