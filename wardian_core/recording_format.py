"""An agent's recording on disk: its terminal output with the time each piece was read.

The terminal server writes it (`wardian_host.terminal.server.recorder`), as it reads each
PTY: the one process that sees every byte once, whether a host is connected, restarting or
gone, so a recording has no gap and no byte twice across host restarts and crashes. Plain
standard library: the server never imports pydantic.

A recording is a folder of segments, `<sequence>.rec`, oldest first. Each segment is a run of
records, each a fixed header (`RECORD`: kind, Unix time, output offset, payload length) and
its payload, raw bytes as read (no escaping, no transcoding: the server's output path pays one
write). Kinds:

- `h` (head): a launch began, or a segment did; payload `{"rows": R, "cols": C}` as JSON. Every
  segment starts with one, so a segment is read on its own once older ones are rotated away;
- `o` (output): the payload is what the agent printed from `offset` on;
- `r` (resize): payload `{"rows": R, "cols": C}`.

A record cut short (a server killed while writing) ends its segment's reading.
"""

import json
import os
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

RECORD = struct.Struct(">cdQI")  # kind, time (Unix seconds), offset, payload length
SEGMENT_SUFFIX = ".rec"
FOLDER_NAME = "recording"
# A segment is at most this share of the recording's bound: rotation drops the oldest segment,
# so at least three quarters of the bound's newest output are kept.
SEGMENTS_PER_BOUND = 4
DEFAULT_MAX_BYTES = 64 * 1024 * 1024

HEAD, OUTPUT, RESIZE = b"h", b"o", b"r"


class Target(NamedTuple):
    """Where a launch's output is recorded, and the bound of what is kept there."""

    folder: Path
    max_bytes: int


@dataclass(frozen=True)
class Record:
    kind: bytes
    time: float
    offset: int
    payload: bytes

    def size(self) -> tuple[int, int]:
        """(rows, cols) of a head or resize record."""
        told = json.loads(self.payload)
        return int(told["rows"]), int(told["cols"])


def folder(agent_dir: Path) -> Path:
    """Where an agent's recording lives: inside its own folder, so deleting the agent deletes it."""
    return agent_dir / FOLDER_NAME


def encode(kind: bytes, time: float, offset: int, payload: bytes) -> bytes:
    return RECORD.pack(kind, time, offset, len(payload)) + payload


def size_payload(rows: int, cols: int) -> bytes:
    return json.dumps({"rows": rows, "cols": cols}).encode()


def segment_name(sequence: int) -> str:
    return f"{sequence:012d}{SEGMENT_SUFFIX}"


def segments(recording: Path) -> list[Path]:
    """The recording's segments, oldest first (none when it has no folder)."""
    try:
        names = os.listdir(recording)
    except FileNotFoundError:
        return []
    kept = [name for name in names if name.endswith(SEGMENT_SUFFIX) and name[: -len(SEGMENT_SUFFIX)].isdigit()]
    return [recording / name for name in sorted(kept)]


def sequence_of(segment: Path) -> int:
    return int(segment.name[: -len(SEGMENT_SUFFIX)])


def read_segment(segment: Path) -> Iterator[Record]:
    """Its whole records, in order; a segment rotated away meanwhile reads as empty."""
    try:
        data = segment.read_bytes()
    except FileNotFoundError:
        return
    at = 0
    while at + RECORD.size <= len(data):
        kind, time, offset, length = RECORD.unpack_from(data, at)
        end = at + RECORD.size + length
        if end > len(data):
            return  # cut short by a server killed mid-write
        yield Record(kind, time, offset, data[at + RECORD.size : end])
        at = end


def read(recording: Path) -> Iterator[Record]:
    for segment in segments(recording):
        yield from read_segment(segment)
