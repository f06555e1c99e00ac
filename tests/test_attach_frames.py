"""Frames an attached client sends: each is checked, a bad one ends the attach as `bad_request`."""

import asyncio
import base64
from typing import Any

import pytest
from answer_wire import assert_wired_unchanged
from stand_in_rows import stand_in_row

from wardian_core.control.models import AttachParams
from wardian_core.errors import WardianError
from wardian_core.parsing import DEFAULT_COLS, DEFAULT_ROWS, MAX_TERMINAL_SIDE
from wardian_core.parsing.screen import ScreenModel
from wardian_host.agents.attaching import attach
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.output.buffer import OutputBuffer

READER_LIMIT = 64 * 1024  # the control server's reader keeps this much of a line


class RecordingTerminals:
    """The terminal part as attach sees it: an agent that keeps running; what it was told."""

    def __init__(self) -> None:
        self.written: list[bytes] = []
        self.sizes: list[tuple[int, int]] = []

    async def wait_exit(self, _uuid: str) -> None:
        await asyncio.Event().wait()

    def write(self, _uuid: str, data: bytes) -> None:
        self.written.append(data)

    def resize(self, _uuid: str, rows: int, cols: int) -> None:
        self.sizes.append((rows, cols))


class Client:
    def __init__(self, sent: bytes) -> None:
        self.reader = asyncio.StreamReader(limit=READER_LIMIT)
        self.reader.feed_data(sent)
        self.reader.feed_eof()
        self.items: list[dict[str, Any]] = []

    async def emit(self, item: dict[str, Any]) -> None:
        self.items.append(item)


def _attach(sent: bytes) -> tuple[dict[str, Any] | WardianError, RecordingTerminals, tuple[int, int]]:
    """Attach a client that sends `sent`: the answer (or the refusal), what the terminal got,
    and the size of the agent's screen afterwards."""
    terminals = RecordingTerminals()

    async def scenario() -> tuple[dict[str, Any] | WardianError, tuple[int, int]]:
        agent = LiveAgent(row=stand_in_row(), buffer=OutputBuffer(64 * 1024))
        agent.is_running = True
        stand_in: Any = terminals  # the terminal part as attach uses it
        answer: dict[str, Any] | WardianError
        try:
            answer = await attach(agent, stand_in, AttachParams(target="a1"), Client(sent))
        except WardianError as error:
            answer = error
        size = (await agent.screen.snapshot()).size
        return answer, (size["rows"], size["cols"])

    answer, size = asyncio.run(scenario())
    return answer, terminals, size


def test_input_and_resize_frames_reach_the_terminal() -> None:
    typed = base64.b64encode(b"ls\r")
    answer, terminals, size = _attach(b'{"input": "%s"}\n{"resize": [50, 200]}\n{"detach": true}\n' % typed)
    assert isinstance(answer, dict) and answer["reason"] == "detached"
    assert_wired_unchanged("agent.attach", answer)
    assert terminals.written == [b"ls\r"] and terminals.sizes[0] == (50, 200)
    # The last viewer gone, the agent is back at its launch size (the viewers' size rule).
    assert terminals.sizes[1:] == [(40, 120)] and size == (40, 120)


@pytest.mark.parametrize(
    ("frame", "named"),
    [
        (b'{"resize": [10000, 10000]}', "resize.0"),  # froze the host's screen looks for 45 s
        (b'{"resize": [0, 80]}', "resize.0"),
        (b'{"resize": "big"}', "resize"),
        (b'{"input": "a"}', "input"),  # not base64
        (b'{"bogus": 1}', "bogus"),
        (b"not json", "not JSON"),
        (b"[1, 2]", "JSON object"),
        (b'{"input": "\\ud800"}', "surrogate"),
    ],
)
def test_a_bad_attach_frame_is_bad_request_and_changes_nothing(frame: bytes, named: str) -> None:
    answer, terminals, size = _attach(frame + b"\n" + b'{"resize": [50, 200]}\n')
    assert isinstance(answer, WardianError), answer
    assert answer.code == "bad_request" and answer.hint, answer
    assert named in answer.message
    assert terminals.sizes == [] and size == (DEFAULT_ROWS, DEFAULT_COLS)  # the attach ended there


def test_an_attach_frame_longer_than_the_reader_keeps_is_refused_and_skipped_to_its_end() -> None:
    long_frame = b'{"input": "' + b"A" * (3 * READER_LIMIT) + b'"}\n'

    async def scenario() -> bytes:
        client = Client(long_frame + b'{"v": 2, "id": 7}\n')
        agent = LiveAgent(row=stand_in_row(), buffer=OutputBuffer(1024))
        agent.is_running = True
        with pytest.raises(WardianError) as refused:
            await attach(agent, RecordingTerminals(), AttachParams(target="a1"), client)  # type: ignore[arg-type]  # a stand-in terminal part
        assert refused.value.code == "bad_request" and refused.value.hint
        return await client.reader.readline()

    assert asyncio.run(scenario()) == b'{"v": 2, "id": 7}\n'  # the next request, whole


def test_no_terminal_size_passes_the_largest_side() -> None:
    model = ScreenModel(10_000, 10_000)
    assert model.size == (MAX_TERMINAL_SIDE, MAX_TERMINAL_SIDE)
    model.resize(50_000, 0)
    assert model.size == (MAX_TERMINAL_SIDE, 1)


def _first_frames(*outputs: bytes, read_only: bool = False) -> list[dict[str, Any]]:
    """What a client that detaches at once is sent by an agent that wrote `outputs`."""

    async def scenario() -> list[dict[str, Any]]:
        agent = LiveAgent(row=stand_in_row(), buffer=OutputBuffer(1024 * 1024))
        agent.is_running = True
        for output in outputs:
            agent.buffer.append(output)
        client = Client(b'{"detach": true}\n')
        stand_in: Any = RecordingTerminals()
        await attach(agent, stand_in, AttachParams(target="a1", read_only=read_only), client)
        return client.items

    return asyncio.run(scenario())


def _shown(frames: list[dict[str, Any]]) -> ScreenModel:
    terminal = ScreenModel()
    for frame in frames:
        terminal.feed(base64.b64decode(frame.get("output", "")))
    return terminal


# OpenCode draws its footer once per start, then about 2 KB a second of changes while a turn
# runs: after a turn of 33 s the last 64 KiB held no footer, and an attach at the agent's own
# size (no resize, no redraw) showed a spinner on a blank screen.
FRAME = b"\x1b[?1049h\x1b[2J\x1b[1;1Hsession\x1b[40;1H\x1b[2mctrl+p commands\x1b[0m"
SPINNER = b"".join(b"\x1b[16;14H\x1b[38;5;8m \xc2\xb7 %5.1fs\x1b[0m" % (tenth / 10) for tenth in range(4000))


def test_a_full_screen_tui_is_shown_whole_though_its_frame_lies_far_back() -> None:
    assert len(SPINNER) > 64 * 1024

    frames = _first_frames(FRAME, SPINNER)

    terminal = _shown(frames)
    assert "ctrl+p commands" in terminal.text() and "session" in terminal.text()
    assert "399.9s" in terminal.rows()[15]
    assert terminal.on_alternate_screen()


def test_a_program_on_the_main_screen_gets_its_recent_output_as_it_came() -> None:
    lines = b"".join(b"line %d\r\n" % number for number in range(20))

    frames = _first_frames(lines)

    assert base64.b64decode(frames[0]["output"]) == lines  # its scrollback, not a painting


def test_a_read_only_viewer_gets_the_recent_output_not_a_painting() -> None:
    # A page opens its tiles together: a catch-up of each far-behind agent would cost the host
    # seconds of CPU (docs/web.md), so a tile starts from the last 64 KiB as it came.
    frames = _first_frames(FRAME, SPINNER, read_only=True)

    shown = b"".join(base64.b64decode(frame.get("output", "")) for frame in frames)
    assert shown == SPINNER[-64 * 1024 :]
