"""The host's loopback endpoint for HTTP hooks: it appends what an agent's own hooks post, and
nothing a caller without the agent's token sends (Wardian's plumbing; that Claude Code posts
its hooks there is proven by its real-CLI tests)."""

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import pytest

from wardian_core import hook_endpoint, paths
from wardian_host.daemon.hook_endpoint import HookEndpoint

AGENT = "0b5c7a52-1f1e-4d6b-9a7e-3c2d1e0f9a8b"
OTHER = "9f8e7d6c-5b4a-4321-8765-0fedcba98765"


@pytest.fixture
def log_file(tmp_path: Path) -> Path:
    path = paths.agent_dir(tmp_path, AGENT) / "cli" / "hooks.jsonl"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"")
    return path


T = TypeVar("T")


def served(home: Path, scenario: Callable[[int], Awaitable[T]]) -> T:
    """`scenario` given the port of `home`'s endpoint, served in this test's own loop."""

    async def run() -> T:
        endpoint = HookEndpoint(home)
        await endpoint.start()
        try:
            assert endpoint.port is not None  # start() sets it
            return await scenario(endpoint.port)
        finally:
            await endpoint.close()

    return asyncio.run(run())


async def post(port: int, target: str, body: bytes, headers: dict[str, str]) -> list[int]:
    """Two requests on one kept-alive connection (as a CLI sends them); their statuses."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    head = "".join(f"{name}: {value}\r\n" for name, value in headers.items())
    request = f"POST {target} HTTP/1.1\r\nHost: x\r\nContent-Length: {len(body)}\r\n{head}\r\n".encode() + body
    statuses = []
    for _ in range(2):
        writer.write(request)
        status_line = await reader.readline()
        statuses.append(int(status_line.split()[1]))
        while (line := await reader.readline()) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        await reader.readexactly(length)
        if b"Connection: close" in request or statuses[-1] != 200:
            break
    writer.close()
    return statuses


def test_an_agents_hook_is_appended_as_one_compact_line(tmp_path: Path, log_file: Path) -> None:
    payload = json.dumps({"hook_event_name": "Stop", "session_id": "s1"}, indent=2).encode()

    async def scenario(port: int) -> list[int]:
        target = hook_endpoint.hook_target(tmp_path, AGENT, log_file)
        assert target is not None and target.url.startswith(f"http://127.0.0.1:{port}/hooks/{AGENT}/")
        return await post(port, target.url.split(str(port), 1)[1], payload, target.headers)

    assert served(tmp_path, scenario) == [200, 200]
    assert log_file.read_bytes() == b'{"hook_event_name":"Stop","session_id":"s1"}\n' * 2


@pytest.mark.parametrize(
    ("path", "token_of", "status"),
    [
        (f"/hooks/{AGENT}/cli/hooks.jsonl", OTHER, 401),  # another agent's token
        (f"/hooks/{AGENT}/cli/hooks.jsonl", None, 401),  # no token at all
        (f"/hooks/{AGENT}/../{OTHER}/cli/hooks.jsonl", AGENT, 404),  # out of its own folder
        (f"/hooks/{AGENT}/cli/missing.jsonl", AGENT, 404),  # a file its launch did not make
        ("/elsewhere", AGENT, 404),
    ],
)
def test_a_caller_writes_nothing_without_its_agents_token_and_file(
    tmp_path: Path, log_file: Path, path: str, token_of: str | None, status: int
) -> None:
    secret = hook_endpoint.home_secret(tmp_path)
    headers = {"Authorization": f"Bearer {hook_endpoint.agent_token(secret, token_of)}"} if token_of else {}

    statuses = served(tmp_path, lambda port: post(port, path, b'{"hook_event_name":"Stop"}', headers))
    assert statuses == [status]
    assert log_file.read_bytes() == b""


def test_a_restarted_host_listens_where_its_agents_hooks_post(tmp_path: Path, log_file: Path) -> None:
    async def port_and_target(port: int) -> tuple[int, object]:
        return port, hook_endpoint.hook_target(tmp_path, AGENT, log_file)

    first, second = served(tmp_path, port_and_target), served(tmp_path, port_and_target)

    assert first == second
    assert (paths.run_dir(tmp_path) / hook_endpoint.SECRET_FILE).stat().st_mode & 0o777 == 0o600


def test_a_client_that_leaves_mid_body_is_no_error_and_the_next_is_served(
    tmp_path: Path, log_file: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def leave_then_post(port: int) -> list[int]:
        _reader, writer = await asyncio.open_connection("127.0.0.1", port)
        writer.write(b"POST /hooks/x HTTP/1.1\r\nContent-Length: 100\r\n\r\n{")
        await writer.drain()
        writer.close()
        await writer.wait_closed()
        secret = hook_endpoint.home_secret(tmp_path)
        headers = {"Authorization": f"Bearer {hook_endpoint.agent_token(secret, AGENT)}"}
        return await post(port, f"/hooks/{AGENT}/cli/hooks.jsonl", b'{"hook_event_name":"Stop"}', headers)

    with caplog.at_level(logging.ERROR):
        assert served(tmp_path, leave_then_post) == [200, 200]
    assert log_file.read_bytes() == b'{"hook_event_name":"Stop"}\n' * 2
    assert [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR] == []
