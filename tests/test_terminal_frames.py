"""The plain frames the terminal server speaks (`terminal_frames`) held to their models
(`terminal_wire`): every kind read and built both ways, and what a model refuses refused."""

import json
from typing import Any

import pytest
from pydantic import BaseModel, ValidationError

from wardian_core import terminal_frames as frames
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
# One of each frame the server reads (a host's, and a starting server's `HandOver`).
CLIENT_FRAMES: list[BaseModel] = [
    wire.Hello(v=V),
    wire.Launch(id=7, key="uuid-1", argv=["sh", "-c", 'echo "é"'], env={"A": "1", "É": ""}, cwd="/w", rows=24, cols=80),
    wire.Launch(id=8, key="u", argv=["cat"], env={}, cwd="/", rows=1, cols=1, offset=123456789012),
    wire.Write(key="u"),
    wire.Resize(key="u", rows=50, cols=200),
    wire.Follow(key="u", offset=0),
    wire.Ack(key='q"\\', offset=5),
    wire.Release(key="u"),
    wire.Shutdown(),
    wire.HandOver(v=V + 1, pid=99),
]
HANDOVER_ANSWERS: list[BaseModel] = [
    wire.HandedOver(v=V, pid=3, terminals=[HANDED, HANDED.model_copy(update={"exit_code": None})], descriptors=4),
    wire.HandedOver(v=V + 1, pid=3, terminals=[], descriptors=2),
    wire.Refused(error={"code": "request_failed", "message": "m", "details": {"reason": "host_connected"}}),
]
TOLD: dict[str, Any] = {
    "key": "u",
    "pid": 5,
    "session_id": 5,
    "start_offset": 0,
    "acked_offset": 3,
    "exited": False,
    "exit_code": None,
}
# Each frame the server builds, beside the model it must read as.
BUILT: list[tuple[frames.Frame, BaseModel]] = [
    (
        frames.welcome(1, "0.1.0", "2026-01-01T00:00:00Z", "linux", [frames.terminal_state(TOLD, 8, 24, 80)]),
        wire.Welcome(
            v=V,
            pid=1,
            version="0.1.0",
            started_at="2026-01-01T00:00:00Z",
            backend="linux",
            terminals=[wire.TerminalState(**TOLD, end_offset=8, rows=24, cols=80)],
        ),
    ),
    (
        frames.handed_over(2, [frames.handed_terminal(TOLD, 24, 80, 3, 1, True)], 3),
        wire.HandedOver(
            v=V,
            pid=2,
            terminals=[wire.HandedTerminal(**TOLD, rows=24, cols=80, ring_bytes=3, pieces=1, has_master=True)],
            descriptors=3,
        ),
    ),
    (
        frames.refused({"code": "unauthorized", "message": "no"}),
        wire.Refused(error={"code": "unauthorized", "message": "no"}),
    ),
    (frames.launched(4, "u", 10, 10), wire.Launched(id=4, key="u", pid=10, session_id=10)),
    (
        frames.launch_failed(4, {"code": "generic", "message": "x"}),
        wire.LaunchFailed(id=4, error={"code": "generic", "message": "x"}),
    ),
    (frames.output("é", 2**40), wire.Output(key="é", offset=2**40)),
    (frames.exited("u", None), wire.Exited(key="u", exit_code=None)),
    (frames.exited("u", 3), wire.Exited(key="u", exit_code=3)),
    (frames.hand_over(12), wire.HandOver(v=V, pid=12)),
]


@pytest.mark.parametrize("model", CLIENT_FRAMES + HANDOVER_ANSWERS, ids=lambda model: type(model).__name__)
def test_what_the_models_encode_the_server_reads_as_the_same_frame(model: BaseModel) -> None:
    kinds = frames.HANDOVER_ANSWERS if model in HANDOVER_ANSWERS else frames.CLIENT_FRAMES
    assert frames.decode(model.model_dump_json().encode(), kinds) == model.model_dump()


@pytest.mark.parametrize("built, model", BUILT, ids=lambda each: getattr(each, "kind", ""))
def test_what_the_server_builds_the_models_read_as_the_same_frame(built: frames.Frame, model: BaseModel) -> None:
    encoded = frames.encode(built, b"payload")
    header_size, payload_size = frames.check_prefix(encoded[: frames.PREFIX.size])
    header = encoded[frames.PREFIX.size : frames.PREFIX.size + header_size]
    assert (payload_size, encoded[frames.PREFIX.size + header_size :]) == (7, b"payload")
    frames_of_its_side = wire.CLIENT_FRAMES if isinstance(model, wire.HandOver) else wire.SERVER_FRAMES
    assert frames_of_its_side.validate_json(header) == model
    assert built == model.model_dump()  # nothing more, nothing less than the model holds


KINDS: list[tuple[str, type[BaseModel]]] = [
    ("hello", wire.Hello),
    ("launch", wire.Launch),
    ("write", wire.Write),
    ("resize", wire.Resize),
    ("follow", wire.Follow),
    ("ack", wire.Ack),
    ("release", wire.Release),
    ("shutdown", wire.Shutdown),
    ("hand_over", wire.HandOver),
    ("handed_over", wire.HandedOver),
    ("refused", wire.Refused),
]


def test_the_server_reads_every_kind_a_host_sends() -> None:
    assert [kind for kind, _ in KINDS[:9]] == list(frames.CLIENT_FRAMES)
    assert {kind for kind, _ in KINDS[9:]} == set(frames.HANDOVER_ANSWERS)


@pytest.mark.parametrize("kind, model", KINDS)
def test_each_kind_has_its_models_fields_and_defaults(kind: str, model: type[BaseModel]) -> None:
    fields = {**frames.CLIENT_FRAMES, **frames.HANDOVER_ANSWERS}[kind]
    assert model.model_fields["kind"].default == kind
    assert set(fields.checks) | {"kind"} == set(model.model_fields)
    defaults = {name: info.default for name, info in model.model_fields.items() if not info.is_required()}
    assert {**fields.defaults, "kind": kind} == defaults


def test_a_handed_terminal_has_its_models_fields_and_defaults() -> None:
    fields = wire.HandedTerminal.model_fields
    assert set(frames.HANDED_TERMINAL.checks) == set(fields)
    assert frames.HANDED_TERMINAL.defaults == {
        name: info.default for name, info in fields.items() if not info.is_required()
    }


LAUNCH: dict[str, Any] = CLIENT_FRAMES[1].model_dump()


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
        b'{"kind": "hello", "v": null}',
        b'{"kind": "hello", "v": 1.5}',
        b'{"kind": "resize", "key": "u", "rows": 0, "cols": 80}',
        b'{"kind": "follow", "key": "u", "offset": -1}',
        b'{"kind": "ack", "key": 5, "offset": 1}',
        json.dumps({**LAUNCH, "key": ""}).encode(),
        json.dumps({**LAUNCH, "argv": []}).encode(),
        json.dumps({**LAUNCH, "argv": ["sh", 1]}).encode(),
        json.dumps({**LAUNCH, "env": {"A": 1}}).encode(),
        json.dumps({**LAUNCH, "env": ["A"]}).encode(),
        json.dumps({**LAUNCH, "cols": -3}).encode(),
    ],
)
def test_a_header_a_model_refuses_the_server_refuses(header: bytes) -> None:
    with pytest.raises(ValidationError):
        wire.CLIENT_FRAMES.validate_json(header)
    with pytest.raises(frames.BadFrame):
        frames.decode_client(header)


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
def test_a_handed_terminal_a_model_refuses_the_server_refuses(terminal: dict[str, Any]) -> None:
    answer = wire.HandedOver(v=V, pid=1, terminals=[HANDED], descriptors=2).model_dump()
    answer["terminals"] = [{**answer["terminals"][0], **terminal}]
    header = json.dumps(answer).encode()
    with pytest.raises(ValidationError):
        wire.SERVER_FRAMES.validate_json(header)
    with pytest.raises(frames.BadFrame):
        frames.decode(header, frames.HANDOVER_ANSWERS)


def test_frames_split_out_of_a_stream_cut_anywhere_are_the_frames_written() -> None:
    written = [(frames.output("a", 0), b"x" * 300), (frames.exited("a", 0), b""), (frames.output("b", 7), b"\x00")]
    stream = b"".join(frames.encode(frame, payload) for frame, payload in written)
    expected = [(json.dumps(frame, separators=(",", ":")).encode(), payload) for frame, payload in written]
    for cut in (1, 2, 7, 8, 9, 100, len(stream)):
        splitter = FrameSplitter()
        pieces = [stream[start : start + cut] for start in range(0, len(stream), cut)]
        assert [each for piece in pieces for each in splitter.feed(piece)] == expected, cut
        assert splitter.pending == 0
    splitter = FrameSplitter()
    assert splitter.feed(stream[:-1]) == expected[:2] and splitter.pending == len(frames.encode(*written[2])) - 1


def test_a_frame_over_the_limits_is_refused_as_soon_as_its_prefix_is_read() -> None:
    splitter = FrameSplitter()
    with pytest.raises(frames.FrameTooLarge):
        splitter.feed(frames.PREFIX.pack(10, frames.MAX_PAYLOAD_BYTES + 1))
