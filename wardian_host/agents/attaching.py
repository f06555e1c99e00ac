"""`wardian agent attach`: a person's terminal on an agent's PTY, through the host.

After the attach request the connection carries raw terminal traffic both ways as
frames: the host streams `{"output": <base64>}`; the client sends `{"input": ...}`,
`{"resize": [rows, cols]}` and `{"detach": true}`. Several clients may attach to one
agent; each sees all output and, unless read-only, types into the same PTY.
"""

import asyncio
import base64
import json
from typing import Any

from wardian_core.errors import WardianError
from wardian_host.agents.client_stream import ClientStream
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.terminal.supervisor import TerminalSupervisor

REPLAY_BYTES = 64 * 1024  # recent output shown on attach, before the redraw


def _encode(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _resize(agent: LiveAgent, terminals: TerminalSupervisor, rows: int, cols: int) -> None:
    agent.screen.resize(rows, cols)
    terminals.resize(agent.uuid, rows, cols)


def _apply_client_frame(
    agent: LiveAgent, terminals: TerminalSupervisor, frame: dict[str, Any], read_only: bool
) -> bool:
    """Act on one frame from the client; False when it asks to detach."""
    if frame.get("detach"):
        return False
    if "input" in frame and not read_only and agent.is_running:
        terminals.write(agent.uuid, base64.b64decode(frame["input"]))
    if "resize" in frame and not read_only:
        rows, cols = (int(value) for value in frame["resize"])
        _resize(agent, terminals, rows, cols)
    return True


async def attach(agent: LiveAgent, terminals: TerminalSupervisor, params: Any, request: ClientStream) -> dict[str, Any]:
    if not agent.is_running:
        raise WardianError(
            "request_failed",
            f"agent {agent.name} is {agent.status}: there is no terminal to attach to",
            f"Resume it first: `wardian agent resume {agent.name}`.",
            {"agent": agent.name, "status": agent.status},
        )
    queue: asyncio.Queue[bytes | None] = asyncio.Queue()
    recent = agent.buffer.read_from(max(agent.buffer.start_cursor, agent.buffer.end_cursor - REPLAY_BYTES)) or b""
    await request.emit({"attached": agent.name, "output": _encode(recent)})

    def on_output(_cursor: int, data: bytes) -> None:
        queue.put_nowait(data)

    agent.output_listeners.add(on_output)
    exited = asyncio.ensure_future(terminals.wait_exit(agent.uuid))
    if params.rows and params.cols and not params.read_only:
        _resize(agent, terminals, params.rows, params.cols)  # a size change makes TUIs redraw
    reason = "detached"
    try:
        reason = await _pump(agent, terminals, params.read_only, request, queue, exited)
    finally:
        exited.cancel()
        agent.output_listeners.discard(on_output)
    return {"agent": agent.name, "reason": reason, "status": agent.status}


async def _pump(
    agent: LiveAgent,
    terminals: TerminalSupervisor,
    read_only: bool,
    request: ClientStream,
    queue: "asyncio.Queue[bytes | None]",
    exited: "asyncio.Future[Any]",
) -> str:
    incoming = asyncio.ensure_future(request.reader.readline())
    outgoing = asyncio.ensure_future(queue.get())
    try:
        while True:
            done, _ = await asyncio.wait({incoming, outgoing, exited}, return_when=asyncio.FIRST_COMPLETED)
            if outgoing in done:
                await request.emit({"output": _encode(outgoing.result() or b"")})
                outgoing = asyncio.ensure_future(queue.get())
            if incoming in done:
                line = incoming.result()
                if not line or not _apply_client_frame(agent, terminals, json.loads(line), read_only):
                    return "detached"
                incoming = asyncio.ensure_future(request.reader.readline())
            if exited in done and outgoing not in done and queue.empty():
                return "agent exited"
    finally:
        incoming.cancel()
        outgoing.cancel()
