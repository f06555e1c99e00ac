"""The terminal server's wire: frames between the host and the process that owns the PTYs.

A frame is a 4-byte big-endian length of its header, a 4-byte length of its payload, the
header (JSON of one of the models below) and the payload (raw bytes: an agent's output or
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

These models define the format. The framing and its limits live in `terminal_frames`, with
the plain-data frames the server speaks (it never imports pydantic).
"""

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from wardian_core.terminal_frames import MAX_HEADER_BYTES as MAX_HEADER_BYTES
from wardian_core.terminal_frames import MAX_PAYLOAD_BYTES as MAX_PAYLOAD_BYTES
from wardian_core.terminal_frames import PREFIX as PREFIX
from wardian_core.terminal_frames import TERMINAL_PROTOCOL_VERSION as TERMINAL_PROTOCOL_VERSION
from wardian_core.terminal_frames import FrameTooLarge as FrameTooLarge
from wardian_core.terminal_frames import check_prefix as check_prefix
from wardian_core.terminal_frames import framed


class _Frame(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# -- client to server -----------------------------------------------------------------------


class Hello(_Frame):
    kind: Literal["hello"] = "hello"
    v: int


class Launch(_Frame):
    kind: Literal["launch"] = "launch"
    id: int
    key: str = Field(min_length=1)
    argv: list[str] = Field(min_length=1)
    env: dict[str, str]
    cwd: str
    rows: int = Field(gt=0)
    cols: int = Field(gt=0)
    offset: int = Field(0, ge=0, description="The offset of its first byte of output (the host's cursor).")
    recording_dir: str | None = Field(None, description="Where its output is recorded; None: not recorded.")
    recording_max_bytes: int = Field(0, ge=0, description="The recording's bound, oldest segments dropped past it.")


class Write(_Frame):
    """The payload is written to the agent's PTY, in order, whatever the PTY accepts at once."""

    kind: Literal["write"] = "write"
    key: str


class Resize(_Frame):
    kind: Literal["resize"] = "resize"
    key: str
    rows: int = Field(gt=0)
    cols: int = Field(gt=0)


class Follow(_Frame):
    """Send the agent's output from absolute `offset` on (what the ring still holds of it), then live."""

    kind: Literal["follow"] = "follow"
    key: str
    offset: int = Field(ge=0)


class Ack(_Frame):
    """The host handed the agent's output up to `offset` to its parser (what a next host need not report again)."""

    kind: Literal["ack"] = "ack"
    key: str
    offset: int = Field(ge=0)


class Release(_Frame):
    """The host recorded this exited terminal's outcome: the server may forget it and its ring."""

    kind: Literal["release"] = "release"
    key: str


class Shutdown(_Frame):
    """End the server (the host stopped every agent first)."""

    kind: Literal["shutdown"] = "shutdown"


class HandOver(_Frame):
    """From a starting server (of any version) to the running one: hand me every terminal, then exit."""

    kind: Literal["hand_over"] = "hand_over"
    v: int
    pid: int


# -- server to client -----------------------------------------------------------------------


class TerminalState(_Frame):
    """One terminal as the server holds it, told to a host that connects."""

    key: str
    pid: int
    session_id: int
    start_offset: int  # the oldest byte the ring still holds
    end_offset: int  # the next byte's offset
    # Where the output a host acknowledged ends: what follows, no host is known to have parsed.
    acked_offset: int
    exit_code: int | None = None
    exited: bool = False
    rows: int
    cols: int


class Welcome(_Frame):
    kind: Literal["welcome"] = "welcome"
    v: int
    pid: int
    version: str
    started_at: str
    backend: str  # the PTY backend it runs (chosen when it started)
    terminals: list[TerminalState]


class Refused(_Frame):
    """The connection is refused (another protocol version, another user, a host already connected)."""

    kind: Literal["refused"] = "refused"
    error: dict[str, Any]  # the envelope's error object: code, message, hint, details


class HandedTerminal(_Frame):
    """One terminal as a server hands it over; its ring follows the descriptors, in list order:
    `ring_bytes` of output from `start_offset`, then `pieces` big-endian u64 offsets where the
    ring's appends began (a replay hands output on in the pieces it was read in)."""

    key: str
    pid: int
    session_id: int
    start_offset: int = Field(ge=0)
    acked_offset: int = Field(ge=0)
    exited: bool
    exit_code: int | None = None
    rows: int = Field(gt=0)
    cols: int = Field(gt=0)
    ring_bytes: int = Field(ge=0)
    pieces: int = Field(ge=0)
    has_master: bool  # an exited one's PTY is closed: no descriptor comes for it
    recording_dir: str | None = None  # where the new server goes on recording it (protocol 2)
    recording_max_bytes: int = Field(0, ge=0)


class HandedOver(_Frame):
    """The descriptors that follow: the server lock, the listening socket, then the master of
    each terminal that `has_master`, in the order of `terminals`."""

    kind: Literal["handed_over"] = "handed_over"
    v: int
    pid: int
    terminals: list[HandedTerminal]
    descriptors: int = Field(ge=2)


class Launched(_Frame):
    kind: Literal["launched"] = "launched"
    id: int
    key: str
    pid: int
    session_id: int


class LaunchFailed(_Frame):
    kind: Literal["launch_failed"] = "launch_failed"
    id: int
    error: dict[str, Any]


class Output(_Frame):
    """The payload is the agent's output from absolute `offset` on."""

    kind: Literal["output"] = "output"
    key: str
    offset: int


class Exited(_Frame):
    kind: Literal["exited"] = "exited"
    key: str
    exit_code: int | None


ClientFrame = Annotated[
    Hello | Launch | Write | Resize | Follow | Ack | Release | Shutdown | HandOver, Field(discriminator="kind")
]
ServerFrame = Annotated[
    Welcome | Refused | Launched | LaunchFailed | Output | Exited | HandedOver, Field(discriminator="kind")
]
CLIENT_FRAMES: TypeAdapter[ClientFrame] = TypeAdapter(ClientFrame)
SERVER_FRAMES: TypeAdapter[ServerFrame] = TypeAdapter(ServerFrame)


def encode(frame: _Frame, payload: bytes = b"") -> bytes:
    return framed(frame.model_dump_json().encode(), payload)
