"""The terminal server's wire: frames between the host and the process that owns the PTYs.

A frame is a 4-byte big-endian length of its header, a 4-byte length of its payload, the
header (JSON of one of the frames below) and the payload (raw bytes: an agent's output or
the keys written to it). Output is never JSON-escaped or base64-encoded: a flood of it
costs a copy, not a transcoding. Offsets are absolute byte counts of an agent's output
since its launch, so a host that reconnects asks for "everything from offset N" and
neither misses nor repeats a byte the ring still holds.

The first frame each side sends is a `Hello`/`Welcome` carrying `TERMINAL_PROTOCOL_VERSION`;
a server of another version answers `Refused` with the `protocol_mismatch` envelope.

An upgrade: a server of the new version, starting, opens with `HandOver` instead; the running
one answers `HandedOver`, then sends the descriptors it lists over SCM_RIGHTS (its lock, its
listening socket, each live PTY's master) and each terminal's ring, and exits
(`wardian_host.terminal.server.handover`). `HandOver`, `HandedOver` and `Refused` keep their
shape in every version: they are how two versions talk.

Each frame is defined once, here, as a dataclass (not frozen: that doubles the cost of
building one, and the host builds one per output frame it reads); both the host and the server read
and build them. Standard library only: the server process never imports pydantic (it was a
third of its memory, and the server runs as long as any agent). A field's type says what
`read` accepts: a plain type is checked exactly (an int is no bool, float or string of
digits), an `Annotated` one by the check it carries (a bound, a non-empty list).
"""

import json
import os
import struct
from collections.abc import Callable, Mapping
from dataclasses import MISSING, dataclass, fields
from typing import Annotated, Any, ClassVar, Self, get_args, get_origin

# Tests bump it (for a host and the server it starts) to prove an upgrade keeps every agent.
# 2: a launch and a handed-over terminal say where its output is recorded.
TERMINAL_PROTOCOL_VERSION = 2 + int(os.environ.get("WARDIAN_TEST_TERMINAL_PROTOCOL_STEP", "0"))

PREFIX = struct.Struct(">II")  # header length, payload length
MAX_HEADER_BYTES = 1024 * 1024  # an environment and argv fit with room to spare
MAX_PAYLOAD_BYTES = 8 * 1024 * 1024

Check = Callable[[Any], Any]  # the value as read, or BadFrame


class FrameTooLarge(ValueError):
    pass


class BadFrame(ValueError):
    """A header that is no frame this side reads (a broken or foreign peer)."""


def check_prefix(prefix: bytes | bytearray, at: int = 0) -> tuple[int, int]:
    """The header and payload lengths the prefix at `at` announces; refused beyond the limits
    (a broken peer)."""
    header_size, payload_size = PREFIX.unpack_from(prefix, at)
    if header_size > MAX_HEADER_BYTES or payload_size > MAX_PAYLOAD_BYTES:
        raise FrameTooLarge(f"a frame of {header_size} + {payload_size} bytes is over the limits")
    return header_size, payload_size


def framed(header: bytes, payload: bytes = b"") -> bytes:
    return PREFIX.pack(len(header), len(payload)) + header + payload


# -- checks: what a field of each type accepts -------------------------------------------------


def _int(value: Any) -> int:
    if type(value) is not int:  # not a bool, a float or a string of digits: no side sends one
        raise BadFrame(f"{value!r} is not an integer")
    return value


def _at_least(low: int) -> Check:
    def check(value: Any) -> int:
        if _int(value) < low:
            raise BadFrame(f"{value} is below {low}")
        return int(value)

    return check


def _bool(value: Any) -> bool:
    if type(value) is not bool:
        raise BadFrame(f"{value!r} is not a boolean")
    return value


def _str(value: Any) -> str:
    if type(value) is not str:
        raise BadFrame(f"{value!r} is not a string")
    return value


def _non_empty_str(value: Any) -> str:
    if not _str(value):
        raise BadFrame("an empty string")
    return str(value)


def _optional(check: Check) -> Check:
    return lambda value: None if value is None else check(value)


def _argv(value: Any) -> list[str]:
    if type(value) is not list or not value:
        raise BadFrame("argv is not a non-empty list")
    return [_str(each) for each in value]


def _env(value: Any) -> dict[str, str]:
    if type(value) is not dict:
        raise BadFrame("env is not an object")
    return {_str(name): _str(each) for name, each in value.items()}


def _object(value: Any) -> dict[str, Any]:
    if type(value) is not dict:
        raise BadFrame(f"{value!r} is not an object")
    return value


def _each(item: "type[Frame]") -> Check:
    def check(value: Any) -> list[Frame]:
        if type(value) is not list:
            raise BadFrame(f"{value!r} is not a list")
        return [item.read(each) for each in value]

    return check


Positive = Annotated[int, _at_least(1)]
NonNegative = Annotated[int, _at_least(0)]
Key = Annotated[str, _non_empty_str]
Argv = Annotated[list[str], _argv]
ErrorObject = dict[str, Any]  # the envelope's error object: code, message, hint, details

_PLAIN_CHECKS: dict[Any, Check] = {
    int: _int,
    bool: _bool,
    str: _str,
    int | None: _optional(_int),
    str | None: _optional(_str),
    dict[str, str]: _env,
    ErrorObject: _object,
}


@dataclass(slots=True)
class Frame:
    """A frame of the wire (or a part of one, when `kind` is empty)."""

    kind: ClassVar[str] = ""

    @classmethod
    def read(cls, data: Any) -> Self:
        """The frame `data` (a decoded JSON object) holds; BadFrame for a field missing, left
        over or of a value its type refuses."""
        if type(data) is not dict:
            raise BadFrame("a frame is not an object")
        shape = _SHAPES[cls]
        if not data.keys() <= shape.names:
            raise BadFrame(f"unknown fields {sorted(data.keys() - shape.names)}")
        values = {}
        for name, check, default in shape.fields:
            if name in data:
                values[name] = check(data[name])
            elif default is not MISSING:
                values[name] = default
            else:
                raise BadFrame(f"{name!r} is missing")
        return cls(**values)

    def dump(self) -> dict[str, Any]:
        """The frame as plain data, its kind first: what `read` takes back."""
        dumped: dict[str, Any] = {"kind": self.kind} if self.kind else {}
        for name, _, _ in _SHAPES[type(self)].fields:
            value = getattr(self, name)
            dumped[name] = [each.dump() for each in value] if _is_frame_list(value) else value
        return dumped


def _is_frame_list(value: Any) -> bool:
    return type(value) is list and bool(value) and isinstance(value[0], Frame)


@dataclass(frozen=True)
class _Shape:
    """What `read` and `dump` go through for one frame type, worked out once from its fields."""

    fields: tuple[tuple[str, Check, Any], ...]  # name, check, default (MISSING: required)
    names: frozenset[str]  # what a header may hold, `kind` included


def _shape(cls: type[Frame]) -> _Shape:
    each = tuple((field.name, _check_of(field.type), field.default) for field in fields(cls))
    return _Shape(each, frozenset(name for name, _, _ in each) | ({"kind"} if cls.kind else set()))


def _check_of(annotation: Any) -> Check:
    if get_origin(annotation) is Annotated:
        check: Check = get_args(annotation)[1]
        return check
    return _PLAIN_CHECKS[annotation]


# -- client to server -----------------------------------------------------------------------


@dataclass(slots=True)
class Hello(Frame):
    kind: ClassVar[str] = "hello"
    v: int


@dataclass(slots=True)
class Launch(Frame):
    kind: ClassVar[str] = "launch"
    id: int
    key: Key
    argv: Argv
    env: dict[str, str]
    cwd: str
    rows: Positive
    cols: Positive
    offset: NonNegative = 0  # the offset of its first byte of output (the host's cursor)
    recording_dir: str | None = None  # where its output is recorded; None: not recorded
    recording_max_bytes: NonNegative = 0  # the recording's bound, oldest segments dropped past it


@dataclass(slots=True)
class Write(Frame):
    """The payload is written to the agent's PTY, in order, whatever the PTY accepts at once."""

    kind: ClassVar[str] = "write"
    key: str


@dataclass(slots=True)
class Resize(Frame):
    kind: ClassVar[str] = "resize"
    key: str
    rows: Positive
    cols: Positive


@dataclass(slots=True)
class Follow(Frame):
    """Send the agent's output from absolute `offset` on (what the ring still holds of it), then live."""

    kind: ClassVar[str] = "follow"
    key: str
    offset: NonNegative


@dataclass(slots=True)
class Ack(Frame):
    """The host handed the agent's output up to `offset` to its parser (what a next host need not report again)."""

    kind: ClassVar[str] = "ack"
    key: str
    offset: NonNegative


@dataclass(slots=True)
class Release(Frame):
    """The host recorded this exited terminal's outcome: the server may forget it and its ring."""

    kind: ClassVar[str] = "release"
    key: str


@dataclass(slots=True)
class Shutdown(Frame):
    """End the server (the host stopped every agent first)."""

    kind: ClassVar[str] = "shutdown"


@dataclass(slots=True)
class HandOver(Frame):
    """From a starting server (of any version) to the running one: hand me every terminal, then exit."""

    kind: ClassVar[str] = "hand_over"
    v: int
    pid: int


# -- server to client -----------------------------------------------------------------------


@dataclass(slots=True)
class TerminalState(Frame):
    """One terminal as the server holds it, told to a host that connects."""

    key: str
    pid: int
    session_id: int
    start_offset: int  # the oldest byte the ring still holds
    end_offset: int  # the next byte's offset
    # Where the output a host acknowledged ends: what follows, no host is known to have parsed.
    acked_offset: int
    rows: int
    cols: int
    exit_code: int | None = None
    exited: bool = False


@dataclass(slots=True)
class Welcome(Frame):
    kind: ClassVar[str] = "welcome"
    v: int
    pid: int
    version: str
    started_at: str
    backend: str  # the PTY backend it runs (chosen when it started)
    terminals: Annotated[list[TerminalState], _each(TerminalState)]


@dataclass(slots=True)
class Refused(Frame):
    """The connection is refused (another protocol version, another user, a host already connected)."""

    kind: ClassVar[str] = "refused"
    error: ErrorObject


@dataclass(slots=True)
class HandedTerminal(Frame):
    """One terminal as a server hands it over; its ring follows the descriptors, in list order:
    `ring_bytes` of output from `start_offset`, then `pieces` big-endian u64 offsets where the
    ring's appends began (a replay hands output on in the pieces it was read in)."""

    key: str
    pid: int
    session_id: int
    start_offset: NonNegative
    acked_offset: NonNegative
    exited: bool
    rows: Positive
    cols: Positive
    ring_bytes: NonNegative
    pieces: NonNegative
    has_master: bool  # an exited one's PTY is closed: no descriptor comes for it
    exit_code: int | None = None
    # Where the new server goes on recording it; a server before protocol 2 names none.
    recording_dir: str | None = None
    recording_max_bytes: NonNegative = 0


@dataclass(slots=True)
class HandedOver(Frame):
    """The descriptors that follow: the server lock, the listening socket, then the master of
    each terminal that `has_master`, in the order of `terminals`."""

    kind: ClassVar[str] = "handed_over"
    v: int
    pid: int
    terminals: Annotated[list[HandedTerminal], _each(HandedTerminal)]
    descriptors: Annotated[int, _at_least(2)]


@dataclass(slots=True)
class Launched(Frame):
    kind: ClassVar[str] = "launched"
    id: int
    key: str
    pid: int
    session_id: int


@dataclass(slots=True)
class LaunchFailed(Frame):
    kind: ClassVar[str] = "launch_failed"
    id: int
    error: ErrorObject


@dataclass(slots=True)
class Output(Frame):
    """The payload is the agent's output from absolute `offset` on."""

    kind: ClassVar[str] = "output"
    key: str
    offset: int


@dataclass(slots=True)
class Exited(Frame):
    kind: ClassVar[str] = "exited"
    key: str
    exit_code: int | None


ClientFrame = Hello | Launch | Write | Resize | Follow | Ack | Release | Shutdown | HandOver
ServerFrame = Welcome | Refused | Launched | LaunchFailed | Output | Exited | HandedOver


def _by_kind(*kinds: type[Frame]) -> dict[str, type[Frame]]:
    return {each.kind: each for each in kinds}


# What a host sends the server (and a starting server the running one: `hand_over`), by kind.
CLIENT_FRAMES = _by_kind(Hello, Launch, Write, Resize, Follow, Ack, Release, Shutdown, HandOver)
# What a server sends (a host; a starting server, `handed_over`).
SERVER_FRAMES = _by_kind(Welcome, Refused, Launched, LaunchFailed, Output, Exited, HandedOver)
# What a running server may answer a `hand_over` with.
HANDOVER_ANSWERS = _by_kind(HandedOver, Refused)


_SHAPES: Mapping[type[Frame], _Shape] = {
    each: _shape(each) for each in (*CLIENT_FRAMES.values(), *SERVER_FRAMES.values(), TerminalState, HandedTerminal)
}


def decode(header: bytes, kinds: Mapping[str, type[Frame]]) -> Any:
    """The frame `header` holds, checked by its kind's fields: BadFrame if it is none of `kinds`.

    Typed Any: each caller narrows it to the frames of its side (`isinstance`)."""
    try:
        data = json.loads(header)
    except ValueError as exc:  # UnicodeDecodeError too
        raise BadFrame(f"a header that is not JSON: {exc}") from exc
    kind = data.get("kind") if type(data) is dict else None
    frame_type = kinds.get(kind) if type(kind) is str else None
    if frame_type is None:
        raise BadFrame(f"a frame of kind {kind!r} is none of {sorted(kinds)}")
    return frame_type.read(data)


def decode_client(header: bytes) -> ClientFrame:
    frame: ClientFrame = decode(header, CLIENT_FRAMES)
    return frame


def decode_server(header: bytes) -> ServerFrame:
    if header.startswith(_OUTPUT_HEAD) and (output := _plain_output(header)) is not None:
        return output
    frame: ServerFrame = decode(header, SERVER_FRAMES)
    return frame


_OUTPUT_HEAD = b'{"kind":"output","key":"'
_OUTPUT_OFFSET = b'","offset":'
# What json.dumps escapes (and JSON refuses unescaped): a key holding one takes the JSON parser.
_ESCAPED = bytes(range(0x20)) + b'"\\' + bytes(range(0x7F, 0x100))


def _plain_output(header: bytes) -> Output | None:
    """The `Output` that `encode_output` built for a key with nothing escaped, read without a
    JSON parser; None for any other header (`decode` reads it). The host reads one per busy
    agent per gathered write: json.loads and the generic read took 4x what pydantic did."""
    key_end = header.find(_OUTPUT_OFFSET, len(_OUTPUT_HEAD))
    digits = header[key_end + len(_OUTPUT_OFFSET) : -1]
    key = header[len(_OUTPUT_HEAD) : key_end]
    if key_end < 0 or not header.endswith(b"}") or not digits.isdigit() or (digits[:1] == b"0" and digits != b"0"):
        return None
    if len(key.translate(None, _ESCAPED)) != len(key):
        return None
    return Output(key.decode(), int(digits))


def encode(frame: Frame, payload: bytes = b"") -> bytes:
    return framed(json.dumps(frame.dump(), separators=(",", ":")).encode(), payload)


def encode_output(key: str, offset: int, payload: bytes) -> bytes:
    """`encode(Output(key, offset), payload)` without building the frame: the server sends one
    per busy agent per gathered write (tests check both give the same bytes)."""
    return framed(b'{"kind":"output","key":%s,"offset":%d}' % (json.dumps(key).encode(), offset), payload)


def encode_ack(key: str, offset: int) -> bytes:
    """`encode(Ack(key, offset))` without building the frame: the host sends one per parse
    gathered (tests check both give the same bytes)."""
    return framed(b'{"kind":"ack","key":%s,"offset":%d}' % (json.dumps(key).encode(), offset))
