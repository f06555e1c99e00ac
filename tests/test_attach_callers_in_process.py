"""Who may sit at an agent's terminal, on the in-process host (`running_host`): never the agent
itself (its output would come back into its own terminal forever, issue 46 item 14), and a
command whose standard input is no terminal only to watch (item 13)."""

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

from in_process_agents import WAIT_SECONDS, first_line, spawn, wait_until

from wardian_host.testing.in_process import InProcessHost

WARDIAN = str(Path(sys.executable).parent / "wardian")


async def _wardian(*args: str, env: dict[str, str] | None = None) -> "subprocess.CompletedProcess[str]":
    """`wardian ARGS` with no terminal for its standard input, run beside the host's loop."""
    command, environment = [WARDIAN, *args], os.environ | (env or {})
    return await asyncio.to_thread(
        subprocess.run, command, env=environment, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60
    )


def _refusal(stderr: str) -> dict[str, Any]:
    error: dict[str, Any] = json.loads(stderr)["error"]
    return error


def test_an_agent_attaching_to_itself_is_refused(running_host: InProcessHost, tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "done")
    # In its own terminal: a stdin that is a terminal, the caller verified by its process tree.
    script = "wardian agent attach looper 2> refused.json; echo $? > done; exec sleep 600"
    spawn(running_host, tmp_path, "looper", "bash", "--norc", "--noprofile", "-c", script)
    exit_code = running_host.call(first_line(tmp_path / "done"))
    error = _refusal((tmp_path / "refused.json").read_text())
    assert (exit_code, error["code"], error["details"]) == ("1", "usage", {"agent": "looper", "caller_agent": "looper"})
    assert "wardian agent watch looper" in error["hint"]


def test_a_process_claiming_an_agent_may_not_attach_to_it_even_read_only(
    running_host: InProcessHost, tmp_path: Path
) -> None:
    agent = spawn(running_host, tmp_path, "claimed", "bash", "--norc", "--noprofile")
    wait_until(running_host, "claimed", "idle")
    claiming = {"WARDIAN_SESSION_ID": agent["uuid"]}
    refused = running_host.call(_wardian("agent", "attach", "claimed", "--read-only", env=claiming))
    error = _refusal(refused.stderr)
    assert (refused.returncode, error["code"], error["details"]["caller_agent"]) == (1, "usage", "claimed")


def test_attach_without_a_terminal_for_its_input_says_to_watch_read_only(
    running_host: InProcessHost, tmp_path: Path
) -> None:
    spawn(running_host, tmp_path, "seat", "bash", "--norc", "--noprofile")
    refused = running_host.call(_wardian("agent", "attach", "seat"))
    error = _refusal(refused.stderr)
    assert (refused.returncode, error["code"], error["details"]["stdin"]) == (1, "usage", "not a terminal")
    assert "wardian agent attach seat --read-only" in error["hint"]


def _read_until(stream: IO[bytes], text: bytes) -> bytes:
    shown = b""
    while text not in shown:
        chunk = os.read(stream.fileno(), 65536)
        assert chunk, f"the attach ended before {text!r}: {shown!r}"
        shown += chunk
    return shown


def test_a_read_only_attach_without_a_terminal_watches_until_the_agent_exits(
    running_host: InProcessHost, tmp_path: Path
) -> None:
    os.mkfifo(tmp_path / "release")
    script = "echo hello-$((6*7)); read x < release; echo bye-$((6*7))"
    spawn(running_host, tmp_path, "shown", "bash", "--norc", "--noprofile", "-c", script)

    async def watched() -> tuple[bytes, bytes]:
        command = [WARDIAN, "agent", "attach", "shown", "--read-only"]
        # Started off the loop: the in-process host it attaches to runs on this loop.
        attach = await asyncio.to_thread(
            subprocess.Popen, command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        assert attach.stdout is not None
        shown = await asyncio.to_thread(_read_until, attach.stdout, b"hello-42")  # the recent output, replayed
        await asyncio.to_thread((tmp_path / "release").write_text, "go\n")
        rest, error = await asyncio.to_thread(attach.communicate, timeout=WAIT_SECONDS)
        assert attach.returncode == 0, error
        return shown, rest

    shown, rest = running_host.call(watched())
    assert b"bye-42" in shown + rest
    answer = json.loads(rest[rest.index(b"{") :])["attach"]
    assert (answer["agent"], answer["reason"]) == ("shown", "agent exited")
