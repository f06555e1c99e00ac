"""The terminal wire as plain data: its framing, and the frames the terminal server reads and sends.

`terminal_wire` defines every frame as a pydantic model; the host speaks them so. The server
speaks the same frames through this module instead, as dicts, so its process never imports
pydantic (a third of its memory: the server must stay small, it runs as long as any agent).
A decoded frame is the dict `Model.model_dump()` gives, checked as the model checks it, and
a built one is what `Model(...).model_dump()` gives: tests hold every frame kind to its
model, both ways. Plain standard library: nothing here may pull in pydantic.
"""

import json
import os
import struct
from collections.abc import Callable, Mapping
from typing import Any

# Tests bump it (for a host and the server it starts) to prove an upgrade keeps every agent.
# 2: a launch and a handed-over terminal say where its output is recorded.
TERMINAL_PROTOCOL_VERSION = 2 + int(os.environ.get("WARDIAN_TEST_TERMINAL_PROTOCOL_STEP", "0"))

PREFIX = struct.Struct(">II")  # header length, payload length
MAX_HEADER_BYTES = 1024 * 1024  # an environment and argv fit with room to spare
MAX_PAYLOAD_BYTES = 8 * 1024 * 1024

Frame = dict[str, Any]
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


def encode(frame: Frame, payload: bytes = b"") -> bytes:
    return framed(json.dumps(frame, separators=(",", ":")).encode(), payload)


# -- checks: what each field's model type and constraints accept ------------------------------


def _int(value: Any) -> int:
    if type(value) is not int:  # not a bool, a float or a string of digits: the host sends none
        raise BadFrame(f"{value!r} is not an integer")
    return value


def _at_least(low: int) -> Check:
    def check(value: Any) -> int:
        if _int(value) < low:
            raise BadFrame(f"{value} is below {low}")
        return int(value)

    return check


def _optional_int(value: Any) -> int | None:
    return None if value is None else _int(value)


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


def _argv(value: Any) -> list[str]:
    if type(value) is not list or not value:
        raise BadFrame("argv is not a non-empty list")
    return [_str(each) for each in value]


def _env(value: Any) -> dict[str, str]:
    if type(value) is not dict:
        raise BadFrame("env is not an object")
    return {_str(name): _str(each) for name, each in value.items()}


def _optional_str(value: Any) -> str | None:
    return None if value is None else _str(value)


def _object(value: Any) -> dict[str, Any]:
    if type(value) is not dict:
        raise BadFrame(f"{value!r} is not an object")
    return value


class Fields:
    """One frame's fields: each one's check, and the defaults of those that may be left out.
    A frame's (`kind` given) are read with their kind, which `decode` has looked up already."""

    def __init__(self, checks: Mapping[str, Check], defaults: Mapping[str, Any] | None = None, kind: str = "") -> None:
        self.checks = checks
        self.defaults = defaults or {}
        self.kind = kind
        self._names = checks.keys() | ({"kind"} if kind else set())

    def read(self, data: Any) -> Frame:
        if type(data) is not dict:
            raise BadFrame("a frame is not an object")
        if not data.keys() <= self._names:
            raise BadFrame(f"unknown fields {sorted(data.keys() - self._names)}")
        frame = {"kind": self.kind} if self.kind else {}
        for name, check in self.checks.items():
            if name in data:
                frame[name] = check(data[name])
            elif name in self.defaults:
                frame[name] = self.defaults[name]
            else:
                raise BadFrame(f"{name!r} is missing")
        return frame


def _each(fields: Fields) -> Check:
    def check(value: Any) -> list[Frame]:
        if type(value) is not list:
            raise BadFrame(f"{value!r} is not a list")
        return [fields.read(each) for each in value]

    return check


_POSITIVE, _NON_NEGATIVE = _at_least(1), _at_least(0)

HANDED_TERMINAL = Fields(
    {
        "key": _str,
        "pid": _int,
        "session_id": _int,
        "start_offset": _NON_NEGATIVE,
        "acked_offset": _NON_NEGATIVE,
        "exited": _bool,
        "exit_code": _optional_int,
        "rows": _POSITIVE,
        "cols": _POSITIVE,
        "ring_bytes": _NON_NEGATIVE,
        "pieces": _NON_NEGATIVE,
        "has_master": _bool,
        "recording_dir": _optional_str,
        "recording_max_bytes": _NON_NEGATIVE,
    },
    # A server before protocol 2 names no recording.
    {"exit_code": None, "recording_dir": None, "recording_max_bytes": 0},
)


def _by_kind(*kinds: Fields) -> dict[str, Fields]:
    return {fields.kind: fields for fields in kinds}


# What a host sends the server (and a starting server the running one: `hand_over`), by kind.
CLIENT_FRAMES = _by_kind(
    Fields({"v": _int}, kind="hello"),
    Fields(
        {
            "id": _int,
            "key": _non_empty_str,
            "argv": _argv,
            "env": _env,
            "cwd": _str,
            "rows": _POSITIVE,
            "cols": _POSITIVE,
            "offset": _NON_NEGATIVE,
            "recording_dir": _optional_str,
            "recording_max_bytes": _NON_NEGATIVE,
        },
        {"offset": 0, "recording_dir": None, "recording_max_bytes": 0},
        kind="launch",
    ),
    Fields({"key": _str}, kind="write"),
    Fields({"key": _str, "rows": _POSITIVE, "cols": _POSITIVE}, kind="resize"),
    Fields({"key": _str, "offset": _NON_NEGATIVE}, kind="follow"),
    Fields({"key": _str, "offset": _NON_NEGATIVE}, kind="ack"),
    Fields({"key": _str}, kind="release"),
    Fields({}, kind="shutdown"),
    Fields({"v": _int, "pid": _int}, kind="hand_over"),
)

# What a running server may answer a `hand_over` with.
HANDOVER_ANSWERS = _by_kind(
    Fields(
        {"v": _int, "pid": _int, "terminals": _each(HANDED_TERMINAL), "descriptors": _at_least(2)},
        kind="handed_over",
    ),
    Fields({"error": _object}, kind="refused"),
)


def decode(header: bytes, kinds: Mapping[str, Fields]) -> Frame:
    """The frame `header` holds, checked as its model would: BadFrame if it is none of `kinds`."""
    try:
        data = json.loads(header)
    except ValueError as exc:  # UnicodeDecodeError too
        raise BadFrame(f"a header that is not JSON: {exc}") from exc
    kind = data.get("kind") if type(data) is dict else None
    fields = kinds.get(kind) if type(kind) is str else None
    if fields is None:
        raise BadFrame(f"a frame of kind {kind!r} is none of {sorted(kinds)}")
    return fields.read(data)


def decode_client(header: bytes) -> Frame:
    return decode(header, CLIENT_FRAMES)


# -- the frames a server builds ----------------------------------------------------------------


def hand_over(pid: int) -> Frame:
    return {"kind": "hand_over", "v": TERMINAL_PROTOCOL_VERSION, "pid": pid}


def welcome(pid: int, version: str, started_at: str, backend: str, terminals: list[Frame]) -> Frame:
    """`terminals`: each a `terminal_state`."""
    return {
        "kind": "welcome",
        "v": TERMINAL_PROTOCOL_VERSION,
        "pid": pid,
        "version": version,
        "started_at": started_at,
        "backend": backend,
        "terminals": terminals,
    }


def terminal_state(told: Frame, end_offset: int, rows: int, cols: int) -> Frame:
    """`told`: key, pid, session_id, start_offset, acked_offset, exited, exit_code."""
    return {**told, "end_offset": end_offset, "rows": rows, "cols": cols}


def handed_terminal(told: Frame, rows: int, cols: int, ring_bytes: int, pieces: int, has_master: bool) -> Frame:
    """`told` as for `terminal_state`; no recording (the caller adds one)."""
    return {
        **told,
        "rows": rows,
        "cols": cols,
        "ring_bytes": ring_bytes,
        "pieces": pieces,
        "has_master": has_master,
        "recording_dir": None,
        "recording_max_bytes": 0,
    }


def handed_over(pid: int, terminals: list[Frame], descriptors: int) -> Frame:
    """`terminals`: each a `handed_terminal`."""
    return {
        "kind": "handed_over",
        "v": TERMINAL_PROTOCOL_VERSION,
        "pid": pid,
        "terminals": terminals,
        "descriptors": descriptors,
    }


def refused(error: dict[str, Any]) -> Frame:
    return {"kind": "refused", "error": error}


def launched(id: int, key: str, pid: int, session_id: int) -> Frame:
    return {"kind": "launched", "id": id, "key": key, "pid": pid, "session_id": session_id}


def launch_failed(id: int, error: dict[str, Any]) -> Frame:
    return {"kind": "launch_failed", "id": id, "error": error}


def output(key: str, offset: int) -> Frame:
    return {"kind": "output", "key": key, "offset": offset}


def exited(key: str, exit_code: int | None) -> Frame:
    return {"kind": "exited", "key": key, "exit_code": exit_code}
