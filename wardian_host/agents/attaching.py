"""`wardian agent attach`: a person's terminal on an agent's PTY, through the host.

After the attach request the connection carries raw terminal traffic both ways as
frames: the host streams `{"output": <base64>}`; the client sends `{"input": ...}`,
`{"resize": [rows, cols]}` and `{"detach": true}`. Several clients may attach to one
agent; each sees all output and, unless read-only, types into the same PTY, whose size
follows `viewer_sizes`' rule (the smallest of the typing viewers'; the agent's own once
they all left). Each client reads the agent's bounded buffer from its own cursor: one
that reads slower than the agent writes holds back neither the agent nor the other
viewers, and gets `{"lagged": ...}` and recent output. A read-only viewer (a web tile) is sent
busy output paced, at most every `READ_ONLY_FRAME_SECONDS`, sooner when a page's worth is
waiting; output after a quiet moment goes at once, and a typing viewer is never paced. A frame
the host cannot take (not JSON, a field of the wrong shape, a side over MAX_TERMINAL_SIDE)
ends the attach with `bad_request`; the connection goes on serving requests.
"""

import asyncio
import base64
from typing import Any

from wardian_core.control.frame_checks import bad_request, checked_frame
from wardian_core.control.models import AttachClientFrame, AttachParams
from wardian_core.errors import WardianError
from wardian_host.agents.client_stream import ClientStream
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.agents.output_cursor import STREAM_PAGE_BYTES, OutputCursor
from wardian_host.output.buffer import OutputBuffer
from wardian_host.terminal.supervisor import TerminalSupervisor

# Recent output shown on attach to a program on the main screen (a full-screen one's screen is
# painted instead), before the redraw.
REPLAY_BYTES = 64 * 1024
# A read-only viewer (a page's tile) is sent busy output at most this often, each time all of
# it; output after a quiet moment goes at once. One send per chunk was a wake-up, a frame and
# a system call each: five printing tiles cost the host as much CPU as their agents' output.
READ_ONLY_FRAME_SECONDS = 1 / 20


def _encode(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _fit(agent: LiveAgent, terminals: TerminalSupervisor) -> None:
    """Give the PTY the size its viewers' rule chooses, when that changed."""
    viewers = agent.viewers
    if not agent.is_running:
        viewers.applied = viewers.own  # its next launch starts at its own size
        return
    rows, cols = viewers.chosen()
    if (rows, cols) != viewers.applied:
        viewers.applied = (rows, cols)
        agent.screen.resize(rows, cols)
        terminals.resize(agent.uuid, rows, cols)


def _apply_client_frame(
    agent: LiveAgent, terminals: TerminalSupervisor, frame: AttachClientFrame, viewer: object | None
) -> bool:
    """Act on one frame from the client (`viewer` None: a read-only one); False when it asks to detach."""
    if frame.detach:
        return False
    if frame.input is not None and viewer is not None and agent.is_running:
        terminals.write(agent.uuid, frame.input)
    if frame.resize is not None and viewer is not None:
        agent.viewers.set(viewer, frame.resize)
        _fit(agent, terminals)
    return True


async def _client_line(reader: asyncio.StreamReader) -> bytes:
    """The client's next frame (b"" once it left); one longer than the reader keeps is skipped
    to its end and refused, so its tail is not read as the next request."""
    try:
        return await reader.readuntil(b"\n")
    except asyncio.IncompleteReadError as ended:
        return ended.partial
    except asyncio.LimitOverrunError:  # no newline within the reader's limit; nothing consumed
        await _skip_line(reader)
        raise bad_request(
            "an attach frame is longer than the host reads at once",
            "Send typed input in pieces of a few KiB, a frame each, as `wardian agent attach` does.",
        ) from None


async def _skip_line(reader: asyncio.StreamReader) -> None:
    while True:
        try:
            await reader.readuntil(b"\n")
            return
        except asyncio.LimitOverrunError as overrun:
            await reader.readexactly(overrun.consumed)
        except asyncio.IncompleteReadError:
            return


def _recent_output(buffer: OutputBuffer) -> int:
    """Where a terminal's stream starts, and resumes after a lag: recent output, then live."""
    return max(buffer.start_cursor, buffer.end_cursor - REPLAY_BYTES)


async def _first_output(agent: LiveAgent, typing: bool) -> tuple[bytes, int]:
    """What a terminal is shown first, and the output cursor it reads on from.

    A person's typing terminal is shown a full-screen program's screen painted from the host's
    model (its last bytes are changes to a frame drawn long before). A read-only viewer (a web
    tile, opened a page's worth at a time) is not: the model's catch-up costs up to a second of
    CPU per 100 KB behind, and a tile's next redraw is a resize away. Otherwise nothing: the
    recent output read from the cursor is all of it."""
    screen = await agent.screen.painted() if typing else None
    return screen if screen is not None else (b"", _recent_output(agent.buffer))


def _refuse_own_terminal(agent: LiveAgent, caller: LiveAgent | None) -> None:
    """An agent attached to itself writes its output into its own terminal, which prints it
    again: a loop without end, read-only or not."""
    if caller is None or caller.uuid != agent.uuid:
        return
    raise WardianError(
        "usage",
        f"agent {agent.name} cannot attach to itself: its output would come back into its own terminal forever",
        f"Attach to {agent.name} from a person's terminal; from inside it, read its output with "
        f"`wardian agent watch {agent.name}` or its screen with `wardian agent screen {agent.name}`.",
        {"agent": agent.name, "caller_agent": caller.name},
    )


async def attach(
    agent: LiveAgent,
    terminals: TerminalSupervisor,
    params: AttachParams,
    request: ClientStream,
    caller: LiveAgent | None = None,
) -> dict[str, Any]:
    """`caller`: the agent the request comes from (verified or claimed), None for a person."""
    _refuse_own_terminal(agent, caller)
    if not agent.is_running:
        raise WardianError(
            "request_failed",
            f"agent {agent.name} is {agent.status}: there is no terminal to attach to",
            f"Resume it first: `wardian agent resume {agent.name}`.",
            {"agent": agent.name, "status": agent.status},
        )
    exited = asyncio.ensure_future(terminals.wait_exit(agent.uuid))
    reason = "detached"
    viewer = None if params.read_only else object()  # this attach's place among the sizing viewers
    try:
        first, start = await _first_output(agent, typing=viewer is not None)
        with OutputCursor(agent, start, _recent_output) as reader:
            # A painted screen of the largest size is megabytes: paged, as output is.
            pages = [first[at : at + STREAM_PAGE_BYTES] for at in range(0, len(first), STREAM_PAGE_BYTES)]
            await request.emit({"attached": agent.name, "output": _encode(pages[0] if pages else reader.read())})
            for page in pages[1:]:
                await request.emit({"output": _encode(page)})
            if params.rows and params.cols and viewer is not None:
                agent.viewers.set(viewer, (params.rows, params.cols))
                _fit(agent, terminals)  # a size change makes TUIs redraw
            reason = await _pump(agent, terminals, viewer, request, reader, exited)
    finally:
        exited.cancel()
        if viewer is not None:
            agent.viewers.leave(viewer)
            _fit(agent, terminals)
    return {"agent": agent.name, "reason": reason, "status": agent.status}


def _next_output(reader: OutputCursor) -> dict[str, Any] | None:
    """The next stream item for the terminal (a `lagged` notice, or output); None when it has all."""
    lagged = reader.lag()
    if lagged is not None:
        return {"lagged": lagged}
    page = reader.read()
    return {"output": _encode(page)} if page else None


async def _pump(
    agent: LiveAgent,
    terminals: TerminalSupervisor,
    viewer: object | None,
    request: ClientStream,
    reader: OutputCursor,
    exited: "asyncio.Future[Any]",
) -> str:
    loop = asyncio.get_running_loop()
    incoming = asyncio.ensure_future(_client_line(request.reader))
    next_frame_at = float("-inf")  # when a read-only viewer may be sent output again
    try:
        while True:
            if incoming.done():
                line = incoming.result()
                if not line:
                    return "detached"
                frame = checked_frame(line, AttachClientFrame, "agent.attach")
                if not _apply_client_frame(agent, terminals, frame, viewer):
                    return "detached"
                incoming = asyncio.ensure_future(_client_line(request.reader))
                continue
            pause = next_frame_at - loop.time()
            next_frame_at = float("-inf")
            if pause > 0 and reader.unread < STREAM_PAGE_BYTES:
                # A page's worth ends the pause: a paced viewer must not fall behind what is kept.
                await reader.wait(incoming, exited, timeout=pause, unread=STREAM_PAGE_BYTES)
                continue
            item = _next_output(reader)
            if item is not None:
                await request.emit(item)
                if viewer is None and not reader.unread:  # caught up: pace
                    next_frame_at = loop.time() + READ_ONLY_FRAME_SECONDS
            elif exited.done():
                return "agent exited"
            else:
                await reader.wait(incoming, exited)
    finally:
        incoming.cancel()
