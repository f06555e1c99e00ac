"""`wardian mcp` outlives its host: a call the old host had taken is answered `host_restarted`,
and the next call is served by the next host, on the same relay — through the real `wardian`."""

import json
import subprocess
import sys
from collections.abc import Callable
from typing import IO, Any

WARDIAN = [sys.executable, "-m", "wardian_host", "mcp"]
HELLO = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}


def _write(stdin: IO[bytes], message: dict[str, Any]) -> None:
    stdin.write(json.dumps({"jsonrpc": "2.0"} | message).encode() + b"\n")
    stdin.flush()


def _answer(stdout: IO[bytes], request_id: int) -> dict[str, Any]:
    """The answer to `request_id`, past any notification (progress) before it."""
    while True:
        message: dict[str, Any] = json.loads(stdout.readline())
        if message.get("id") == request_id:
            return message


def _call(request_id: int, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return {"id": request_id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}


def test_a_relay_goes_on_with_the_next_host_and_answers_the_call_it_lost(
    spawn: Callable[..., dict], run_wardian: Callable[..., Any]
) -> None:
    spawn("sleeper", "sleep", "600")
    relay = subprocess.Popen(WARDIAN, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert relay.stdin is not None and relay.stdout is not None
    try:
        _write(relay.stdin, {"id": 1, "method": "initialize", "params": HELLO})
        assert _answer(relay.stdout, 1)["result"]["serverInfo"]["name"] == "wardian"
        _write(relay.stdin, _call(2, "whoami", {}))
        first_host = _answer(relay.stdout, 2)["result"]["structuredContent"]
        # A wait the host takes, then loses when it restarts.
        _write(relay.stdin, _call(3, "wait_for_agent", {"agent": "sleeper", "until": "error", "timeout": "60s"}))
        _write(relay.stdin, _call(4, "show_agent", {"agent": "sleeper"}))  # answered: the wait is under way
        assert _answer(relay.stdout, 4)["result"]["structuredContent"]["agent"]["name"] == "sleeper"

        restarted = run_wardian("host", "restart")
        assert restarted.returncode == 0, restarted.stderr

        lost = _answer(relay.stdout, 3)["result"]
        assert lost["isError"] and lost["structuredContent"]["error"]["code"] == "host_restarted"
        _write(relay.stdin, _call(5, "show_agent", {"agent": "sleeper", "fields": "name,status"}))
        again = _answer(relay.stdout, 5)["result"]
        assert not again.get("isError") and again["structuredContent"]["agent"]["name"] == "sleeper", again
        assert first_host["caller"]["verification"] == "none"
        relay.stdin.close()
        assert relay.wait(timeout=30) == 0
    finally:
        if relay.poll() is None:
            relay.kill()
            relay.wait()
