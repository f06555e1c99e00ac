"""A sent prompt is confirmed as taken: the turn-start signal, else the input box on screen.

Wardian's own plumbing, against a scripted terminal: what each provider really reports is
proven by its real-CLI delivery tests (providers/wardian-*/tests/test_real_cli_delivery.py).
"""

import asyncio
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from click.testing import CliRunner
from pydantic import ValidationError

from wardian_core import identity
from wardian_core.control.models import SendParams
from wardian_core.db import open_writer
from wardian_core.errors import WardianError
from wardian_core.parsing.events import event
from wardian_core.provider_models import TURN_START_LIMIT_SECONDS, InputProfile, OutputSource
from wardian_core.statuses import Status
from wardian_host.agents.confirming import input_box, waits_in_box
from wardian_host.agents.registry import AgentRegistry
from wardian_host.agents.sending import Sender
from wardian_host.agents.status_tracker import StatusTracker
from wardian_host.answers import send as send_answers
from wardian_host.answers.connection import LIFECYCLE_SECONDS
from wardian_host.cli import send as send_command

HOOKS = OutputSource(name="hooks", kind="file", path=Path("hooks.jsonl"))
# A bound short enough for a test that waits it out, long enough for a loop turn.
BOUND = 0.3
PROFILE = InputProfile(settle_seconds=0, turn_start_seconds=BOUND, input_marker="❯")
SUBMIT = b"\r"
# A settle no test could wait out: a send that finishes pressed its submit key once the text was drawn.
DRAWING = InputProfile(settle_seconds=3600, submit_once_drawn=True, turn_start_seconds=BOUND, input_marker="❯")
GEMINI_PASTE = r"\[Pasted Text: \d+ (?:lines|chars)(?: #\d+)?\]"
PASTING = InputProfile(settle_seconds=0, turn_start_seconds=BOUND, input_marker=">", paste_placeholder=GEMINI_PASTE)


def draw(*rows: str) -> bytes:
    return b"\x1b[2J\x1b[H" + "\r\n".join(rows).encode()


class ScriptedTerminal:
    """Plays a CLI: `on_submit(n)` answers the n-th submit key (1-based) with what the CLI does."""

    def __init__(self, tracker: StatusTracker, registry: AgentRegistry) -> None:
        self.tracker = tracker
        self.registry = registry
        self.typed: dict[str, bytes] = {}
        self.on_submit: Callable[[Any, int], None] = lambda agent, count: None

    def write(self, uuid: str, data: bytes) -> None:
        self.typed[uuid] = self.typed.get(uuid, b"") + data
        if data == SUBMIT:
            agent = self.registry.get(uuid)
            self.on_submit(agent, self.typed[uuid].count(SUBMIT))

    def start_turn(self, agent: Any) -> None:
        self.tracker.apply_event(agent, event("turn_started", HOOKS, "hook UserPromptSubmit", "UserPromptSubmit hi"))


@pytest.fixture
def home(tmp_path: Path) -> SimpleNamespace:
    conn = open_writer(tmp_path)
    registry = AgentRegistry(conn, 64 * 1024)
    tracker = StatusTracker(conn, lambda *_: None)
    terminal = ScriptedTerminal(tracker, registry)
    profiles = {
        "cli": PROFILE,
        "generic": InputProfile(settle_seconds=0, sender_tag=False),
        "drawing": DRAWING,
        "pasting": PASTING,
    }
    plugins = SimpleNamespace(info=lambda name: SimpleNamespace(input_profile=profiles[name]))
    sender = Sender(registry, plugins, terminal)  # type: ignore[arg-type]  # the parts a send uses

    def agent(name: str, status: Status = "idle", provider: str = "cli", running: bool = True) -> Any:
        row = identity.create_agent(conn, class_name="Coder", provider=provider, workspace=tmp_path, name=name)
        live = registry.add(dict(row))
        tracker.set_status(live, status, {"source": "test"})
        live.is_running = running
        return live

    return SimpleNamespace(agent=agent, terminal=terminal, sender=sender, tracker=tracker)


def send(home: SimpleNamespace, to: str, text: str = "hello there", **params: Any) -> dict[str, Any]:
    return asyncio.run(home.sender.send_message(SendParams(to=to, text=text, **params), None)).wire()


def failure(home: SimpleNamespace, to: str, **params: Any) -> WardianError:
    with pytest.raises(WardianError) as caught:
        send(home, to, **params)
    return caught.value


def test_a_send_is_confirmed_by_the_turn_start_signal(home: SimpleNamespace) -> None:
    home.agent("cc")
    home.terminal.on_submit = lambda agent, count: home.terminal.start_turn(agent)

    answer = send(home, "cc")

    assert answer["delivery"]["confirmed_by"] == "hook UserPromptSubmit"
    assert answer["results"][0]["delivery"] == answer["delivery"]
    assert home.terminal.typed[answer["results"][0]["uuid"]] == b"hello there\r"


def test_a_signal_that_leaves_the_status_as_it_was_still_confirms_a_queued_send(home: SimpleNamespace) -> None:
    home.agent("cc", status="processing")
    home.terminal.on_submit = lambda agent, count: home.terminal.start_turn(agent)

    answer = send(home, "cc")

    assert (answer["results"][0]["queued"], answer["delivery"]["confirmed_by"]) == (True, "hook UserPromptSubmit")


def test_a_dropped_submit_is_typed_once_more_when_the_text_still_waits_in_the_box(home: SimpleNamespace) -> None:
    home.agent("cc")

    def cli(agent: Any, count: int) -> None:
        if count == 1:  # mid-redraw: the Enter is lost, the text stays in the box
            agent.record_output(draw("earlier turn", "─" * 20, "❯ hello there", "─" * 20, "? for shortcuts"))
        else:
            home.terminal.start_turn(agent)

    home.terminal.on_submit = cli

    answer = send(home, "cc")

    assert answer["delivery"]["confirmed_by"] == "hook UserPromptSubmit"
    assert answer["delivery"]["resubmitted"] is True
    assert home.terminal.typed[answer["results"][0]["uuid"]] == b"hello there\r\r"


def test_a_paste_left_in_the_box_as_the_clis_placeholder_is_submitted_once_more(home: SimpleNamespace) -> None:
    home.agent("gm", provider="pasting")

    def cli(agent: Any, count: int) -> None:
        if count == 1:  # the submit key read with the paste, taken as part of it: the paste waits
            agent.record_output(draw("╭──╮", "│ > [Pasted Text: 2 lines] │", "╰──╯"))
        else:
            home.terminal.start_turn(agent)

    home.terminal.on_submit = cli

    answer = send(home, "gm", text="first line\nsecond line")

    assert answer["delivery"]["resubmitted"] is True
    typed = home.terminal.typed[answer["results"][0]["uuid"]]
    assert typed == b"\x1b[200~first line\nsecond line\x1b[201~\r\r"


def test_a_placeholder_counts_only_for_a_paste_and_only_in_the_box() -> None:
    box = ["[Pasted Text: 9 chars] sent earlier", "╭──╮", "│ > [Pasted Text: 9 chars] │", "╰──╯"]
    above_only = ["[Pasted Text: 9 chars] sent earlier", "╭──╮", "│ >   │", "╰──╯"]

    assert waits_in_box(box, ">", "some text", GEMINI_PASTE)
    assert not waits_in_box(box, ">", "some text")  # a typed text is read by its own words
    assert not waits_in_box(above_only, ">", "some text", GEMINI_PASTE)


def test_a_placeholder_that_is_no_pattern_is_refused() -> None:
    with pytest.raises(ValidationError, match="paste_placeholder"):
        InputProfile(paste_placeholder="[Pasted")


def test_text_out_of_the_box_and_on_screen_is_confirmed_by_the_screen(home: SimpleNamespace) -> None:
    home.agent("cc", status="processing")
    # Queued behind the running turn: the box is empty, the prompt shown above it.
    home.terminal.on_submit = lambda agent, count: agent.record_output(
        draw("working…", "❯ hello there (queued)", "─" * 20, "❯ ", "─" * 20)
    )

    answer = send(home, "cc")

    assert answer["delivery"]["confirmed_by"] == "screen"
    assert "resubmitted" not in answer["delivery"]
    assert home.terminal.typed[answer["results"][0]["uuid"]].count(SUBMIT) == 1


def test_text_that_never_arrived_fails_as_not_delivered(home: SimpleNamespace) -> None:
    home.agent("cc")
    home.terminal.on_submit = lambda agent, count: agent.record_output(draw("─" * 20, "❯ ", "─" * 20))

    error = failure(home, "cc")

    assert error.code == "request_failed"
    assert error.details["delivered"] is False
    result = error.details["results"][0]
    assert (result["result"], result["delivered"]) == ("failed", False)
    assert "shows the text nowhere" in result["reason"]
    assert "the others" not in (error.hint or "")


def test_text_still_in_the_box_after_a_second_submit_fails_without_a_third(home: SimpleNamespace) -> None:
    home.agent("cc")
    home.terminal.on_submit = lambda agent, count: agent.record_output(draw("─" * 20, "❯ hello there", "─" * 20))

    error = failure(home, "cc")

    assert error.details["delivered"] is False
    assert "still waits in its input box" in error.details["results"][0]["reason"]
    assert home.terminal.typed[error.details["results"][0]["uuid"]].count(SUBMIT) == 2


def test_a_provider_without_a_signal_says_the_send_is_unconfirmed(home: SimpleNamespace) -> None:
    home.agent("sh", provider="generic")

    answer = send(home, "sh")

    assert answer["delivery"] == {"confirmed_by": "unconfirmed"}


def test_a_wait_that_times_out_after_a_confirmed_send_says_it_was_delivered(home: SimpleNamespace) -> None:
    home.agent("cc")
    home.terminal.on_submit = lambda agent, count: home.terminal.start_turn(agent)

    error = failure(home, "cc", wait_until="idle", timeout=BOUND)

    assert error.code == "wait_timeout"
    assert error.details["delivered"] is True
    assert error.details["delivery"]["confirmed_by"] == "hook UserPromptSubmit"


def test_send_to_all_skips_agents_that_are_off_and_succeeds(home: SimpleNamespace) -> None:
    home.agent("on1", provider="generic")
    home.agent("gone", status="off", provider="generic", running=False)
    home.agent("on2", provider="generic")

    answer = send(home, "all")

    outcomes = {result["agent"]: result["result"] for result in answer["results"]}
    assert outcomes == {"on1": "delivered", "on2": "delivered", "gone": "skipped"}
    assert "gone" not in [home.terminal.registry.get(uuid).name for uuid in home.terminal.typed]


def test_send_to_all_with_no_live_agent_fails_as_not_live(home: SimpleNamespace) -> None:
    home.agent("gone", status="off", provider="generic", running=False)

    error = failure(home, "all")

    assert (error.code, error.details["delivered"]) == ("not_live", False)
    assert [result["result"] for result in error.details["results"]] == ["skipped"]


def test_a_send_to_a_headless_agent_gives_a_hint_that_is_true(home: SimpleNamespace) -> None:
    home.agent("loose", status="headless", provider="generic", running=False)

    error = failure(home, "loose")

    assert error.code == "not_live"
    assert "the others" not in (error.hint or "")
    assert "wardian agent kill loose" in (error.hint or "")
    assert not (error.hint or "").startswith("Resume")


def test_an_off_agent_named_alone_is_still_not_live_with_a_resume_hint(home: SimpleNamespace) -> None:
    home.agent("gone", status="off", provider="generic", running=False)

    error = failure(home, "gone")

    assert error.code == "not_live"
    assert error.hint == "Resume it with `wardian agent resume gone`."


def test_the_input_box_is_the_last_run_of_marker_rows_to_the_bottom() -> None:
    rows = ["┃ hello there", "", "┃ ", "┃ Build mock-model", "status line"]

    assert input_box(rows, "┃") == ["┃ ", "┃ Build mock-model", "status line"]
    assert not waits_in_box(rows, "┃", "hello there")
    assert waits_in_box(["│ > hello   there │", "╰──╯"], ">", "hello there")


def test_the_cli_waits_for_a_send_as_long_as_its_confirmation_may_take(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: list[float | None] = []
    monkeypatch.delenv("WARDIAN_CONTROL_TIMEOUT", raising=False)

    def request(kind: str, params: dict[str, Any], timeout: float | None) -> dict[str, Any]:
        asked.append(timeout)
        return {}

    monkeypatch.setattr(send_answers, "request", request)

    CliRunner().invoke(send_command.send, ["hello", "--to", "cc"], catch_exceptions=False)

    # Two turn-start waits of the longest a provider may declare, then the usual time to answer.
    assert send_answers.CONFIRMING_SECONDS == 2 * TURN_START_LIMIT_SECONDS
    assert asked[0] is not None and asked[0] >= 2 * TURN_START_LIMIT_SECONDS + LIFECYCLE_SECONDS / 2


def test_a_turn_that_starts_before_the_submit_key_does_not_confirm_the_prompt(home: SimpleNamespace) -> None:
    cc = home.agent("cc", status="processing")
    write = home.terminal.write

    def typed(uuid: str, data: bytes) -> None:
        if data != SUBMIT:  # the running turn's queued prompt starts while the text is typed
            home.terminal.start_turn(cc)
        write(uuid, data)

    home.terminal.write = typed
    home.terminal.on_submit = lambda agent, count: agent.record_output(draw("❯ hello there", "─" * 20, "❯ "))

    answer = send(home, "cc")

    assert answer["delivery"]["confirmed_by"] == "screen"


def test_the_submit_key_follows_as_soon_as_the_typed_text_is_drawn(home) -> None:
    agent = home.agent("drawer", provider="drawing")

    def draw_or_start(uuid: str, data: bytes) -> None:
        if data == SUBMIT:
            home.terminal.start_turn(agent)
        else:  # the TUI draws the typed text, its last word split across two reads
            agent.record_output(b"\x1b[7m" + data[:-3])
            agent.record_output(data[-3:] + b"\x1b[0m")

    home.terminal.write = draw_or_start

    async def sent() -> dict[str, Any]:
        sending = home.sender.send_message(SendParams(to="drawer", text="run the tests"), None)
        return (await asyncio.wait_for(sending, 30)).wire()

    answer = asyncio.run(sent())
    assert answer["delivery"]["confirmed_by"] == "hook UserPromptSubmit"


@pytest.mark.parametrize(
    ("text", "profile", "tail"),
    [
        ("run the tests", DRAWING, b"tests"),
        ("ECHO:abcdefghij", DRAWING, b"cdefghij"),
        ("one\ntwo", DRAWING, None),  # pasted: drawn as a placeholder, so the full settle
        ("run the tests", PROFILE, None),  # the provider did not ask for it
    ],
)
def test_what_shows_the_text_was_drawn(text: str, profile: InputProfile, tail: bytes | None) -> None:
    from wardian_host.agents.typing_input import drawn_tail

    assert drawn_tail(text, profile) == tail
