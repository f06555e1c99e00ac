"""The terminal wire, defined once (`terminal_wire`): every frame kind read back as it was
built, what a field's type refuses refused, and the hand-built hot-path frames the same bytes."""

import json
from typing import Any

import pytest

from wardian_core import terminal_wire as wire
from wardian_host.terminal.server.framing import FrameSplitter

V = wire.TERMINAL_PROTOCOL_VERSION
HANDED = wire.HandedTerminal(
    key="k\n☃",
    pid=41,
    session_id=41,
    start_offset=3,
    acked_offset=9,
    exited=True,
    exit_code=-9,
    rows=30,
    cols=100,
    ring_bytes=12,
    pieces=2,
    has_master=False,
)
STATE = wire.TerminalState(key="u", pid=5, session_id=5, start_offset=0, end_offset=8, acked_offset=3, rows=24, cols=80)
# One of each frame a server reads (a host's, and a starting server's `HandOver`).
CLIENT_FRAMES: list[wire.Frame] = [
    wire.Hello(v=V),
    wire.Launch(id=7, key="uuid-1", argv=["sh", "-c", 'echo "é"'], env={"A": "1", "É": ""}, cwd="/w", rows=24, cols=80),
    wire.Launch(id=8, key="u", argv=["cat"], env={}, cwd="/", rows=1, cols=1, offset=123456789012),
    wire.Launch(
        id=9, key="r", argv=["cat"], env={}, cwd="/", rows=2, cols=3, recording_dir="/rec", recording_max_bytes=10
    ),
    wire.Write(key="u"),
    wire.Resize(key="u", rows=50, cols=200),
    wire.Follow(key="u", offset=0),
    wire.Ack(key='q"\\', offset=5),
    wire.Release(key="u"),
    wire.Shutdown(),
    wire.HandOver(v=V + 1, pid=99),
]
# One of each frame a server sends.
SERVER_FRAMES: list[wire.Frame] = [
    wire.Welcome(v=V, pid=1, version="0.1.0", started_at="2026-01-01T00:00:00Z", backend="linux", terminals=[STATE]),
    wire.Welcome(v=V, pid=1, version="0.1.0", started_at="", backend="portable", terminals=[]),
    wire.Refused(error={"code": "request_failed", "message": "m", "details": {"reason": "host_connected"}}),
    wire.Launched(id=4, key="u", pid=10, session_id=10),
    wire.LaunchFailed(id=4, error={"code": "generic", "message": "x"}),
    wire.Output(key="é", offset=2**40),
    wire.Exited(key="u", exit_code=None),
    wire.Exited(key="u", exit_code=3),
    wire.HandedOver(
        v=V,
        pid=3,
        terminals=[HANDED, wire.HandedTerminal(**{**HANDED.dump(), "exit_code": None, "recording_dir": "/r"})],
        descriptors=4,
    ),
    wire.HandedOver(v=V + 1, pid=3, terminals=[], descriptors=2),
]


def _header(encoded: bytes) -> bytes:
    header_size, _ = wire.check_prefix(encoded[: wire.PREFIX.size])
    return encoded[wire.PREFIX.size : wire.PREFIX.size + header_size]


@pytest.mark.parametrize("frame", CLIENT_FRAMES, ids=lambda frame: frame.kind)
def test_every_frame_a_host_sends_the_server_reads_back_as_it_was(frame: wire.Frame) -> None:
    assert wire.decode_client(_header(wire.encode(frame, b"keys"))) == frame


@pytest.mark.parametrize("frame", SERVER_FRAMES, ids=lambda frame: frame.kind)
def test_every_frame_a_server_sends_its_peer_reads_back_as_it_was(frame: wire.Frame) -> None:
    encoded = wire.encode(frame, b"payload")
    assert encoded.endswith(b"payload") and wire.decode_server(_header(encoded)) == frame


def test_each_side_reads_every_kind_and_no_other() -> None:
    assert set(wire.CLIENT_FRAMES) == {type(frame).kind for frame in CLIENT_FRAMES}
    assert set(wire.SERVER_FRAMES) == {type(frame).kind for frame in SERVER_FRAMES}
    assert set(wire.HANDOVER_ANSWERS) == {"handed_over", "refused"}


def test_a_dumped_frame_is_its_kind_then_its_fields_as_plain_data() -> None:
    assert wire.Exited(key="u", exit_code=None).dump() == {"kind": "exited", "key": "u", "exit_code": None}
    dumped = wire.HandedOver(v=V, pid=3, terminals=[HANDED], descriptors=3).dump()
    assert dumped["terminals"] == [HANDED.dump()] and "kind" not in HANDED.dump()
    assert json.loads(json.dumps(dumped)) == dumped


def test_a_launch_and_a_handed_terminal_of_a_peer_before_protocol_2_read_without_a_recording() -> None:
    """Protocol 2 added where a terminal's output is recorded: a frame without it still reads."""
    launch = {"kind": "launch", "id": 1, "key": "k", "argv": ["cat"], "env": {}, "cwd": "/", "rows": 1, "cols": 1}
    read = wire.decode_client(json.dumps(launch).encode())
    assert isinstance(read, wire.Launch) and (read.offset, read.recording_dir, read.recording_max_bytes) == (0, None, 0)
    handed = {name: value for name, value in HANDED.dump().items() if not name.startswith("recording")}
    answer = {"kind": "handed_over", "v": 1, "pid": 2, "terminals": [handed], "descriptors": 2}
    read_answer = wire.decode(json.dumps(answer).encode(), wire.HANDOVER_ANSWERS)
    assert read_answer.terminals[0] == HANDED and HANDED.recording_dir is None


@pytest.mark.parametrize("key", ["0b6f6f7e-4c1e-4a59-9b0e-2d3c1f7a9e11", "a", 'quo"te\\', "é\n☃"])
def test_the_hot_path_frames_built_by_hand_are_the_frames_bytes(key: str) -> None:
    assert wire.encode_output(key, 2**40, b"out") == wire.encode(wire.Output(key=key, offset=2**40), b"out")
    assert wire.encode_ack(key, 7) == wire.encode(wire.Ack(key=key, offset=7))


LAUNCH: dict[str, Any] = CLIENT_FRAMES[1].dump()


@pytest.mark.parametrize(
    "header",
    [
        b"not json",
        b"\xff",
        b"[]",
        b'{"v": 1}',  # no kind
        b'{"kind": "welcome"}',  # the server's own frame
        b'{"kind": "hello"}',  # a field missing
        b'{"kind": "hello", "v": 1, "x": 2}',  # one too many
        b'{"kind": "hello", "v": "1x"}',
        b'{"kind": "hello", "v": "1"}',
        b'{"kind": "hello", "v": null}',
        b'{"kind": "hello", "v": 1.5}',
        b'{"kind": "hello", "v": true}',
        b'{"kind": "resize", "key": "u", "rows": 0, "cols": 80}',
        b'{"kind": "follow", "key": "u", "offset": -1}',
        b'{"kind": "ack", "key": 5, "offset": 1}',
        json.dumps({**LAUNCH, "key": ""}).encode(),
        json.dumps({**LAUNCH, "argv": []}).encode(),
        json.dumps({**LAUNCH, "argv": ["sh", 1]}).encode(),
        json.dumps({**LAUNCH, "env": {"A": 1}}).encode(),
        json.dumps({**LAUNCH, "env": ["A"]}).encode(),
        json.dumps({**LAUNCH, "cols": -3}).encode(),
        json.dumps({**LAUNCH, "recording_dir": 3}).encode(),
        json.dumps({**LAUNCH, "recording_max_bytes": -1}).encode(),
    ],
)
def test_a_header_that_is_no_client_frame_is_refused(header: bytes) -> None:
    with pytest.raises(wire.BadFrame):
        wire.decode_client(header)


@pytest.mark.parametrize(
    "terminal",
    [
        {"start_offset": -1},
        {"rows": 0},
        {"exited": "maybe"},
        {"exit_code": "one"},
        {"has_master": None},
        {"extra": 1},
    ],
)
def test_a_handed_terminal_its_fields_refuse_is_refused(terminal: dict[str, Any]) -> None:
    answer = wire.HandedOver(v=V, pid=1, terminals=[HANDED], descriptors=2).dump()
    answer["terminals"] = [{**answer["terminals"][0], **terminal}]
    with pytest.raises(wire.BadFrame):
        wire.decode(json.dumps(answer).encode(), wire.HANDOVER_ANSWERS)


def test_a_server_frame_its_fields_refuse_is_refused() -> None:
    for header in (
        {"kind": "welcome", "v": V, "pid": 1, "version": "", "started_at": "", "backend": "", "terminals": [{}]},
        {"kind": "handed_over", "v": V, "pid": 1, "terminals": [], "descriptors": 1},
        {"kind": "refused", "error": "no"},
        {"kind": "output", "key": "u"},
    ):
        with pytest.raises(wire.BadFrame):
            wire.decode_server(json.dumps(header).encode())


def test_frames_split_out_of_a_stream_cut_anywhere_are_the_frames_written() -> None:
    written = [(wire.Output("a", 0), b"x" * 300), (wire.Exited("a", 0), b""), (wire.Output("b", 7), b"\x00")]
    stream = b"".join(wire.encode(frame, payload) for frame, payload in written)
    expected = [(json.dumps(frame.dump(), separators=(",", ":")).encode(), payload) for frame, payload in written]
    for cut in (1, 2, 7, 8, 9, 100, len(stream)):
        splitter = FrameSplitter()
        pieces = [stream[start : start + cut] for start in range(0, len(stream), cut)]
        assert [each for piece in pieces for each in splitter.feed(piece)] == expected, cut
        assert splitter.pending == 0
    splitter = FrameSplitter()
    assert splitter.feed(stream[:-1]) == expected[:2] and splitter.pending == len(wire.encode(*written[2])) - 1


def test_a_frame_over_the_limits_is_refused_as_soon_as_its_prefix_is_read() -> None:
    splitter = FrameSplitter()
    with pytest.raises(wire.FrameTooLarge):
        splitter.feed(wire.PREFIX.pack(10, wire.MAX_PAYLOAD_BYTES + 1))


@pytest.mark.parametrize(
    "header",
    [
        wire.encode_output("0b6f6f7e-4c1e-4a59-9b0e-2d3c1f7a9e11", 0, b"")[wire.PREFIX.size :],
        wire.encode_output("a", 2**40, b"")[wire.PREFIX.size :],
        wire.encode_output('a","offset":1', 5, b"")[wire.PREFIX.size :],
        wire.encode_output("é\n☃", 5, b"")[wire.PREFIX.size :],
        b'{"kind":"output","key":"a","offset":7,"x":1}',
        b'{"kind":"output","key":"a","offset":07}',
        b'{"kind":"output","key":"a","offset":-7}',
        b'{"kind":"output","key":"a","offset":7.0}',
        b'{"kind":"output","key":"a\x01","offset":7}',
        b'{"kind":"output","key":"a","offset":}',
        b'{"kind":"output","key":"a"}',
    ],
)
def test_an_output_header_reads_as_the_json_parser_reads_it(header: bytes) -> None:
    """The host's hand-made read of an `Output` header gives what the generic one gives, or
    leaves the header to it (which refuses what is no frame)."""
    try:
        expected: Any = wire.decode(header, wire.SERVER_FRAMES)
    except wire.BadFrame as refused:
        expected = type(refused)
    try:
        read: Any = wire.decode_server(header)
    except wire.BadFrame as refused:
        read = type(refused)
    assert read == expected
