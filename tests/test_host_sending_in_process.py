"""`send` on the in-process host (`running_host`): a failure names the `Sender` function that
broke. Confirming a delivery against scripted terminals is tests/test_send_delivery.py; the
same paths through `wardian` are in tests/e2e/test_talking.py."""

import asyncio
from pathlib import Path
from typing import Any

import pytest
from in_process_agents import WAIT_SECONDS, spawn, wait_until

from wardian_core.control.models import SendParams
from wardian_core.errors import WardianError
from wardian_host.agents.status_waits import wait_for_status
from wardian_host.agents.watching import output_page
from wardian_host.testing.in_process import InProcessHost


def output_since(host: InProcessHost, name: str, cursor: int) -> str:
    return str(output_page(host.host.registry.resolve(name), cursor, raw=False)["output"])


def test_a_message_is_typed_once_and_the_send_waits_for_its_turn(running_host: InProcessHost, tmp_path: Path) -> None:
    spawn(running_host, tmp_path, "shell", "bash")
    wait_until(running_host, "shell", "idle")
    cursor = running_host.host.registry.resolve("shell").buffer.end_cursor

    params = SendParams(to="shell", text="echo answer-$((6*7))", wait_until="idle", timeout=20)
    sent = running_host.call(running_host.host.sender.send_message(params, None)).wire()

    assert [result["result"] for result in sent["results"]] == ["delivered"]
    assert sent["agent"]["status"] == "idle" and sent["agent"]["status_evidence"]["event"] == "turn_completed"
    # The command ran once, and its output came before the turn ended.
    assert output_since(running_host, "shell", cursor).count("answer-42") == 1


def test_all_reaches_every_live_agent_and_names_the_others_as_skipped(
    running_host: InProcessHost, tmp_path: Path
) -> None:
    for name in ("left", "right", "gone"):
        spawn(running_host, tmp_path, name, "bash")
        wait_until(running_host, name, "idle")
    running_host.call(running_host.host.lifecycle.stop("gone", "kill"))

    registry, sender = running_host.host.registry, running_host.host.sender

    async def send_to_all() -> dict[str, Any]:
        """The send, and the turn it starts in each live agent (awaited from before the first keystroke)."""
        turns = [wait_for_status(registry.resolve(name), "idle", WAIT_SECONDS, True) for name in ("left", "right")]
        turns_ended = asyncio.gather(*turns)
        await asyncio.sleep(0)  # the waits listen before anything is typed
        sent = (await sender.send_message(SendParams(to="all", text="echo hi-$((1+1))"), None)).wire()
        await turns_ended
        return sent

    sent = running_host.call(send_to_all())

    results = {result["agent"]: result["result"] for result in sent["results"]}
    assert results == {"left": "delivered", "right": "delivered", "gone": "skipped"}
    assert all(output_since(running_host, name, 0).count("hi-2") == 1 for name in ("left", "right"))


def test_a_send_to_an_agent_that_is_off_is_not_live_and_says_how_to_resume_it(
    running_host: InProcessHost, tmp_path: Path
) -> None:
    spawn(running_host, tmp_path, "sleeper", "sleep", "600")
    running_host.call(running_host.host.lifecycle.stop("sleeper", "kill"))

    with pytest.raises(WardianError) as refused:
        running_host.call(running_host.host.sender.send_message(SendParams(to="sleeper", text="hello"), None))

    assert refused.value.code == "not_live"
    assert "wardian agent resume sleeper" in (refused.value.hint or "")
    assert refused.value.details["delivered"] is False
    assert [result["result"] for result in refused.value.details["results"]] == ["not_live"]
