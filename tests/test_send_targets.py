"""`send --to A --to B` reaches each target, and says so target by target.

The host runs in the test's process (`running_host`); `wardian` runs beside its loop, as any
command would, and the agents are generic ones whose terminal echoes what is typed.
"""

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from in_process_agents import spawn

from wardian_host.testing.in_process import InProcessHost

WARDIAN = str(Path(sys.executable).parent / "wardian")


def wardian(host: InProcessHost, *args: str) -> tuple[int | None, dict[str, Any]]:
    """(exit code, the JSON printed: the answer, or the error envelope) of `wardian ARGS`."""

    async def run() -> tuple[int | None, dict[str, Any]]:
        process = await asyncio.create_subprocess_exec(
            WARDIAN, *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
        )
        out, err = await process.communicate()
        printed: dict[str, Any] = json.loads(out or err)
        return process.returncode, printed

    return host.call(run())


def output_of(host: InProcessHost, agent: str) -> str:
    code, answer = wardian(host, "agent", "watch", agent, "--since", "0")
    assert code == 0, answer
    output: str = answer["watch"]["output"]
    return output


def test_a_send_to_two_targets_reaches_both(running_host: InProcessHost, tmp_path: Path) -> None:
    spawn(running_host, tmp_path, "first", "sleep", "600")
    spawn(running_host, tmp_path, "second", "sleep", "600")

    code, answer = wardian(running_host, "send", "hello-both", "--to", "first", "--to", "second")

    assert code == 0, answer
    assert [(result["agent"], result["result"]) for result in answer["results"]] == [
        ("first", "delivered"),
        ("second", "delivered"),
    ]
    assert "hello-both" in output_of(running_host, "first")
    assert "hello-both" in output_of(running_host, "second")


def test_a_target_named_twice_gets_the_text_once(running_host: InProcessHost, tmp_path: Path) -> None:
    spawn(running_host, tmp_path, "only", "sleep", "600")

    code, answer = wardian(running_host, "send", "just-once", "--to", "only", "--to", "only")

    assert code == 0, answer
    assert [result["agent"] for result in answer["results"]] == ["only"]
    assert output_of(running_host, "only").count("just-once") == 1


def test_a_missing_target_does_not_stop_the_others_and_fails_the_send(
    running_host: InProcessHost, tmp_path: Path
) -> None:
    spawn(running_host, tmp_path, "present", "sleep", "600")

    code, envelope = wardian(running_host, "send", "still-sent", "--to", "absent", "--to", "present")

    assert code != 0
    error = envelope["error"]
    assert error["code"] == "not_found" and "present received it" in error["hint"]
    assert [(result["agent"], result["result"]) for result in error["details"]["results"]] == [
        ("absent", "failed"),
        ("present", "delivered"),
    ]
    assert error["details"]["delivered"] is False
    assert "still-sent" in output_of(running_host, "present")


def test_a_wait_or_an_approval_for_several_targets_is_usage_and_sends_nothing(
    running_host: InProcessHost, tmp_path: Path
) -> None:
    spawn(running_host, tmp_path, "one", "sleep", "600")
    spawn(running_host, tmp_path, "two", "sleep", "600")

    waited = wardian(running_host, "send", "never-typed", "--to", "one", "--to", "two", "--wait-until", "idle")
    approved = wardian(running_host, "send", "--approval", "accept", "--to", "one", "--to", "two")

    for code, envelope in (waited, approved):
        assert code == 1 and envelope["error"]["code"] == "usage" and envelope["error"]["hint"]
        assert envelope["error"]["details"]["to"] == ["one", "two"]
    assert "never-typed" not in output_of(running_host, "one") + output_of(running_host, "two")
