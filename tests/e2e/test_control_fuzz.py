"""A bounded, seeded fuzzer of the control endpoint against a real host.

Malformed frames of every kind the issue's fuzzer found harmful (truncated, oversized,
invalid UTF-8, lone surrogates, deep nesting, wrong types, unknown kinds, huge numbers,
garbage) go down real connections, several per connection. Every frame must get an
error envelope in order (or, for a frame that cannot be read to its end, one refusal and
a clean close); the valid request that ends each batch must be answered on the same
connection; and afterwards the host is the same process, its log has no traceback and
state.db's rows are what they were. Deadlines are fuzzed too (past, far future, past a
float's range, not numbers), and some connections attach to a live agent and send the
attach stream's frames, valid ones then a malformed one, which ends the attach with
`bad_request` while the connection goes on. The case count is fixed (not a time budget), so a
failure reproduces from its seed: every commit sends 1,200 connections (each kind of frame
hundreds of times, an oversized one twice), `benchmarks/soaks.py` the issue's full 3,600
(WARDIAN_FUZZ_CONNECTIONS=3600), one to two minutes on a 2-core machine.
"""

import base64
import contextlib
import json
import os
import random
import socket
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil

from wardian_core.control import endpoint
from wardian_core.control.models import REQUEST_PARAMS, AttachClientFrame
from wardian_core.control.protocol import MAX_FRAME_BYTES, PROTOCOL_VERSION
from wardian_host.daemon.connection_limits import MAX_CONNECTIONS

SEED = int(os.environ.get("WARDIAN_FUZZ_SEED", "20261117"))
CONNECTIONS = int(os.environ.get("WARDIAN_FUZZ_CONNECTIONS", "1200"))
LONGEST_BATCH = 12
OVERSIZED_EVERY = 500  # an 8 MiB frame costs as much as thousands of small ones
ATTACH_EVERY = 6  # every sixth connection attaches to the live agent
LIVE_AGENT = "live"

# What a malformed or pointless request may be answered with. `request_failed` is not
# here: it is the host's own failure (an exception in a handler), which a fuzzer finds.
EXPECTED_CODES = {
    "bad_request",
    "not_supported",
    "protocol_mismatch",
    "not_found",
    "message_too_large",
    "usage",
    "invalid_name",
    "control_endpoint_timeout",  # a fuzzed `deadline` already past
}
# Never sent well-formed: a valid one would stop the host or start agents, or turn the
# connection into an MCP session whose lines are JSON-RPC, not frames (tests/test_mcp_session.py
# feeds that side its bad lines).
UNSAFE_KINDS = {"host.stop", "agent.spawn", "mcp.session"}
# Change nothing, so a fuzzed frame of theirs that still happens to be valid may be answered
# (`notify.test` sends a notice to the home's addresses, and the test's home has none;
# `web.revoke` ends the home's web sessions, and no page ever logged in to this one).
READ_ONLY_KINDS = {
    "host.status",
    "host.whoami",
    "agents.list",
    "workflow.list",
    "notify.test",
    "inbox.list",
    "web.revoke",
}
PROBE = {"v": PROTOCOL_VERSION, "id": 999_999, "kind": "host.status", "params": {}}


@dataclass
class Frame:
    line: bytes  # without its newline
    ends_connection: bool = False  # the host cannot read it to its end: it answers once and closes


def _encode(frame: Any) -> bytes:
    return json.dumps(frame, separators=(",", ":")).encode()


def _ghost(rng: random.Random) -> str:
    """A name no agent of the home has, so no fuzzed request can act on one."""
    return f"ghost-{rng.randrange(10**6)}"


def _well_formed(rng: random.Random) -> dict[str, Any]:
    kind = rng.choice(sorted(set(REQUEST_PARAMS) - UNSAFE_KINDS))
    params: dict[str, Any] = {"target": _ghost(rng)}
    extras: dict[str, dict[str, Any]] = {
        "agent.wait": {"until": "idle", "timeout": 1},
        "agent.rename": {"new_name": _ghost(rng)},
        "agent.delete": {"confirm": "x"},
        "agent.run": {"prompt": "p"},
        "agent.watch": {"since": 0},
        "ask": {"message": "hi"},
    }
    # Kinds that name no agent: each refers to a request, run or workflow no home has.
    elsewhere: dict[str, dict[str, Any]] = {
        "send": {"to": _ghost(rng), "text": "hi"},
        "reply": {"request_id": _ghost(rng), "status": "done", "body": "x"},
        "ask.wait": {"request_id": _ghost(rng), "since": 0, "timeout": 1},
        "workflow.show": {"workflow_id": _ghost(rng)},
        "workflow.run": {"workflow_id": _ghost(rng), "workspace": "/nonexistent"},
        "workflow.stop": {"run_id": _ghost(rng)},
        "workflow.approve": {"run_id": _ghost(rng), "node": "n"},
    }
    if kind.startswith("host.") or kind in ("agents.list", "workflow.list"):
        params = {}
    elif kind in elsewhere:
        params = elsewhere[kind]
    else:
        params |= extras.get(kind, {})
    return {"v": PROTOCOL_VERSION, "id": rng.randrange(1, 10**9), "kind": kind, "params": params}


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    choice = rng.randrange(9 if depth < 3 else 6)
    if choice == 0:
        return None
    if choice == 1:
        return rng.choice([True, False])
    if choice == 2:
        return rng.choice([0, -1, 1, 2**31, -(2**63), 10**30])
    if choice == 3:
        return rng.choice([0.0, -0.0, 0.5, 1e308, -1e-320, 3.14])
    if choice == 4:
        return "".join(chr(rng.randrange(32, 0x2FFF)) for _ in range(rng.randrange(12)))
    if choice == 5:
        return rng.choice(["", "idle", "accept", "../../etc", "-rf", "self", "all", "x" * 300])
    if choice == 6:
        return [_random_value(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {str(rng.randrange(99)): _random_value(rng, depth + 1) for _ in range(rng.randrange(4))}


def _truncated(rng: random.Random) -> Frame:
    line = _encode(_well_formed(rng))
    cut = line[: rng.randrange(1, len(line))]
    return Frame(cut, ends_connection=rng.random() < 0.3)  # else a newline follows the cut


def _invalid_utf8(rng: random.Random) -> Frame:
    line = bytearray(_encode(_well_formed(rng)))
    bad = rng.choice([b"\xff", b"\xc0\x80", b"\xed\xa0\x80", b"\x80", b"\xe2\x82", b"\xf8\x88\x80\x80\x80"])
    at = rng.randrange(len(line))
    line[at:at] = bad
    return Frame(bytes(line))


def _lone_surrogate(rng: random.Random) -> Frame:
    frame = _well_formed(rng)
    escape = f"\\u{rng.randrange(0xD800, 0xE000):04x}"
    text = _encode(frame).decode()
    quote = rng.choice([index for index, char in enumerate(text) if char == '"'])
    return Frame((text[: quote + 1] + escape + text[quote + 1 :]).encode())


def _deep(rng: random.Random) -> Frame:
    depth = rng.choice([33, 100, 990, 5000, 100_000])
    opener, closer = rng.choice([(b"[", b"]"), (b'{"a":', b"}")])
    nested = opener * depth + b"1" + closer * depth
    frame = _encode(_well_formed(rng))
    return Frame(frame[:-1] + b',"params":{"target":' + nested + b"}}")


def _wrong_type(rng: random.Random) -> Frame:
    frame = _well_formed(rng)
    where = rng.choice(["v", "id", "kind", "params", "deadline", "param", "extra"])
    if where == "param" and frame["params"]:
        frame["params"][rng.choice(sorted(frame["params"]))] = _random_value(rng)
    elif where == "extra":
        frame["params"][rng.choice(["bogus", "timeout", "rows", "raw", "follow", "since"])] = _random_value(rng)
    else:
        frame[where] = _random_value(rng)
    if str(frame.get("kind")) in UNSAFE_KINDS:
        frame["kind"] = "agent.kill"
    return Frame(_encode(frame))


def _unknown_kind(rng: random.Random) -> Frame:
    frame = _well_formed(rng)
    frame["kind"] = rng.choice(["", "agent", "agent.teleport", "AGENT.KILL", "host.stop ", "é" * 50, "x" * 5000])
    return Frame(_encode(frame))


def _huge_number(rng: random.Random) -> Frame:
    number = rng.choice(["1" + "0" * 400, "-" + "9" * 4000, "9" * 5000, "1e999", "-1e999", "1e308", "4e-400"])
    field = rng.choice(["id", "timeout", "since", "rows", "cols", "v", "deadline"])
    frame = _well_formed(rng)
    if field in ("id", "v", "deadline"):
        frame[field] = "NUMBER"
    else:
        frame["params"][field] = "NUMBER"
    return Frame(_encode(frame).replace(b'"NUMBER"', number.encode()))


def _deadline(rng: random.Random) -> Frame:
    """A request's deadline: past (refused as late), far off, past a float's range, or no time."""
    frame = _well_formed(rng)
    frame["deadline"] = "DEADLINE"
    deadline = rng.choice(["0", "-1", "1e308", "4e-400", "1" + "0" * 400, "-" + "1" * 500, '"soon"', "true", "[]"])
    return Frame(_encode(frame).replace(b'"DEADLINE"', deadline.encode()))


def _garbage(rng: random.Random) -> Frame:
    return Frame(bytes(rng.randrange(256) for _ in range(rng.randrange(200))).replace(b"\n", b" "))


# `[0, 0, ...]` as _encode writes it, made once: encoding the list for each of some 560 frames
# cost the test 7 s of its own CPU, beside the host's work it is meant to measure.
_ZEROS = {count: _encode([0] * count) for count in (20_000, 200_000)}


def _many_values(rng: random.Random) -> Frame:
    frame = _well_formed(rng)
    frame["params"]["target"] = "MANY-VALUES"
    zeros = _ZEROS[rng.choice([20_000, 200_000])]
    return Frame(_encode(frame).replace(b'"MANY-VALUES"', zeros, 1))


MUTATIONS = [
    _truncated,
    _invalid_utf8,
    _lone_surrogate,
    _deep,
    _wrong_type,
    _unknown_kind,
    _huge_number,
    _garbage,
    _many_values,
    _deadline,
]


def _stream_frame(rng: random.Random) -> bytes:
    """A frame an attached client may send: typed input or a resize within bounds."""
    if rng.random() < 0.5:
        typed = bytes(rng.randrange(32, 127) for _ in range(rng.randrange(1, 20)))  # no ^C or ^D: cat lives
        return _encode({"input": base64.b64encode(typed).decode()})
    return _encode({"resize": [rng.randrange(1, 1001), rng.randrange(1, 1001)]})


def _bad_stream_frame(rng: random.Random) -> bytes:
    """A frame inside an attach stream the host must refuse as bad_request."""
    choices = [
        lambda: _encode({"resize": [10_000, 10_000]}),  # once froze the host's screen looks
        lambda: _encode({"resize": [rng.choice([0, -1, 1001, 10**30]), 80]}),
        lambda: _encode({"resize": _random_value(rng, 2)}),
        lambda: _encode({"input": rng.choice(["a", "!!!", 5, None, [1]])}),
        lambda: _encode({rng.choice(["bogus", "v", "kind"]): _random_value(rng, 2)}),
        lambda: _encode(_random_value(rng, 2)) if rng.random() < 0.5 else b"[1]",
        lambda: b'{"input": "' + b"A" * 70_000 + b'"}',  # longer than the reader keeps
        lambda: b'{"resize": [' * 100 + b"]" * 100,
        lambda: _garbage(rng).line or b"x",
        lambda: _invalid_utf8(rng).line,
        lambda: b'{"input": "\\udc00"}',
    ]
    while True:  # a random value may happen to be a valid frame (`{"resize": null}`, [1, 1])
        line = rng.choice(choices)()
        if not _valid_stream_frame(line):
            return line


def _valid_stream_frame(line: bytes) -> bool:
    try:
        AttachClientFrame.model_validate_json(line)
    except ValueError:
        return False
    return line.strip() != b""


def _attach_batch(rng: random.Random) -> tuple[list[Frame], list[str]]:
    """An attach to the live agent, stream frames, then a malformed one or a detach, then a
    probe: the outcome expected of each answer."""
    request = {"v": PROTOCOL_VERSION, "id": rng.randrange(1, 10**9), "kind": "agent.attach", "params": {}}
    request["params"] = {"target": LIVE_AGENT, "rows": rng.randrange(1, 1001), "cols": rng.randrange(1, 1001)}
    stream = [Frame(_stream_frame(rng)) for _ in range(rng.randrange(4))]
    if rng.random() < 0.8:
        ending, outcome = Frame(_bad_stream_frame(rng)), "bad_request"
    else:
        ending, outcome = Frame(_encode({"detach": True})), "detached"
    return [Frame(_encode(request)), *stream, ending, Frame(_encode(PROBE))], [outcome, "probe"]


def _batch(rng: random.Random, index: int) -> list[Frame]:
    """Frames for one connection: after a frame that ends it nothing more is sent; else a probe."""
    frames = [rng.choice(MUTATIONS)(rng) for _ in range(rng.randrange(1, LONGEST_BATCH))]
    ending = next((number for number, frame in enumerate(frames) if frame.ends_connection), None)
    if index % OVERSIZED_EVERY == OVERSIZED_EVERY - 1:
        oversized = b'{"v":2,"id":1,"pad":"' + b"x" * MAX_FRAME_BYTES + b'"}'
        return [*frames[:ending], Frame(oversized, ends_connection=True)]
    if ending is not None:
        return frames[: ending + 1]
    return [*frames, Frame(_encode(PROBE))]


def _exchange(home: Path, frames: list[Frame]) -> list[dict[str, Any]]:
    """Send a batch down one connection and read every answer until the host closes it."""
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.settimeout(60)
    client.connect(str(endpoint.socket_path(home)))
    payload = b"".join(frame.line + (b"" if frame.ends_connection else b"\n") for frame in frames)
    try:
        client.sendall(payload)
        client.shutdown(socket.SHUT_WR)
    except (BrokenPipeError, ConnectionResetError):
        pass  # refused mid-frame (too large): its answer is still to read
    answers = []
    with client, client.makefile("rb") as reader, contextlib.suppress(ConnectionResetError):
        for line in reader:  # a reset comes after the answer, when the host closed with our frame unread
            frame = json.loads(line)
            if "stream" not in frame:  # a streamed request's items come before its answer
                answers.append(frame)
    return answers


def _check_attach_batch(outcomes: list[str], answers: list[dict[str, Any]], context: str) -> None:
    assert len(answers) == len(outcomes), f"{context}: {answers}"[:3000]
    attached, probe = answers
    if outcomes[0] == "detached":
        assert attached["ok"] and attached["result"]["reason"] == "detached", f"{context}: {attached}"
    else:
        error = attached.get("error") or {}
        assert error.get("code") == "bad_request" and error.get("hint"), f"{context}: {attached}"
    assert probe["ok"] is True and probe["id"] == PROBE["id"], f"{context}: the probe got {probe}"


def _check_batch(frames: list[Frame], answers: list[dict[str, Any]], context: str) -> None:
    assert len(answers) == len(frames), f"{context}: {len(answers)} answers to {len(frames)} frames: {answers}"[:3000]
    for frame, answer in zip(frames, answers, strict=False):
        assert answer["v"] == PROTOCOL_VERSION, context
        if frame.line == _encode(PROBE):
            assert answer["ok"] is True and answer["id"] == PROBE["id"], f"{context}: the probe got {answer}"
            continue
        if answer["ok"] and any(f'"kind":"{kind}"'.encode() in frame.line for kind in READ_ONLY_KINDS):
            continue
        assert answer["ok"] is False, f"{context}: {frame.line[:200]!r} was carried out: {answer}"
        error = answer["error"]
        assert error["code"] in EXPECTED_CODES, f"{context}: {frame.line[:200]!r} -> {error}"
        assert isinstance(error["message"], str) and error["message"], context
        if error["code"] == "bad_request":
            assert error.get("hint") and "errors" not in error.get("details", {}), f"{context}: {error}"


def _agent_rows(home: Path) -> list[tuple]:
    conn = sqlite3.connect(home / "state.db")
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        # The live agent's row changes as it is typed to: only the others must stay as they were.
        return conn.execute("SELECT * FROM agents WHERE name != ? ORDER BY uuid", (LIVE_AGENT,)).fetchall()
    finally:
        conn.close()


def _open_connections(home: Path, count: int, first_bytes: bytes = b"") -> list[socket.socket]:
    held = []
    for _ in range(count):
        client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        client.connect(str(endpoint.socket_path(home)))  # blocking: waits out a full listen queue
        client.settimeout(30)
        if first_bytes:
            client.sendall(first_bytes)
        held.append(client)
    return held


def _check_connection_floods(home: Path, host_pid: int, run_wardian) -> int:
    """Idle connections past the limit make room for a real request, busy ones get host_busy,
    and the host's descriptors stay bounded either way."""
    idle = _open_connections(home, 2 * MAX_CONNECTIONS + 100)  # what once locked every client out
    assert run_wardian("host", "status").returncode == 0
    assert psutil.Process(host_pid).num_fds() < 2 * MAX_CONNECTIONS + 100
    for client in idle:
        client.close()
    busy = _open_connections(home, MAX_CONNECTIONS, first_bytes=b'{"v": 2, ')  # each a frame under way
    extra = _open_connections(home, 10, first_bytes=_encode(PROBE) + b"\n")
    for client in extra:  # served if a connection was still idle when it came, else refused
        answer = json.loads(client.makefile("rb").readline())
        assert answer["ok"] or answer["error"]["code"] == "host_busy", answer
    for client in busy + extra:
        client.close()
    return len(idle) + len(busy) + len(extra)


def test_malformed_control_frames_never_break_the_host(run_wardian, seed_agent, spawn, wardian_home: Path) -> None:
    for name in ("keeper", "other"):
        seed_agent(name=name, status="idle")
    started = run_wardian("host", "start")
    assert started.returncode == 0, started.stderr
    host_pid = started.json()["host"]["pid"]
    rows = _agent_rows(wardian_home)
    spawn(LIVE_AGENT, "cat")

    rng = random.Random(SEED)
    for index in range(CONNECTIONS):
        context = f"seed {SEED}, connection {index}"
        if index % ATTACH_EVERY == ATTACH_EVERY - 1:
            frames, outcomes = _attach_batch(rng)
            _check_attach_batch(outcomes, _exchange(wardian_home, frames), context)
            continue
        frames = _batch(rng, index)
        answers = _exchange(wardian_home, frames)
        _check_batch(frames, answers, context)
    screen = run_wardian("agent", "screen", LIVE_AGENT).json()["screen"]["size"]
    assert screen["rows"] <= 1000 and screen["cols"] <= 1000

    flooded = _check_connection_floods(wardian_home, host_pid, run_wardian)

    status = run_wardian("host", "status")
    assert status.returncode == 0 and status.json()["host"]["pid"] == host_pid
    listed = run_wardian("agent", "list", "--fields", "name,status_source")
    assert sorted(agent["name"] for agent in listed.json()["agents"]) == ["keeper", LIVE_AGENT, "other"]
    assert _agent_rows(wardian_home) == rows
    log = (wardian_home / "logs" / "host.log").read_text()
    assert "Traceback" not in log and "ERROR" not in log
    connections = CONNECTIONS + flooded
    assert log.count("sent a bad frame") <= connections  # once per connection at most
    assert len(log) < 400 * connections, "bad frames must not flood the log"
