"""What a page that reads slowly costs the host: the newest state and a bounded list of notices."""

import asyncio
import json
from typing import Any

from wardian_core.notices import Notice
from wardian_host.remote.roster import MachineRoster
from wardian_host.web.pages import MAX_WAITING_NOTICES, Page, Pages
from wardian_host.web.remotes import with_machines


def _notice(number: int) -> Notice:
    return Notice(id=f"n{number}", kind="waiting", agent="a", uuid="u", title="t", body="b", at="2026-01-01T00:00:00Z")


async def _no_screen(*_: Any) -> None:
    raise AssertionError("no remote screen is followed")


def test_a_page_that_stopped_reading_holds_only_the_newest_state_and_the_latest_notices() -> None:
    async def scenario() -> list[dict[str, Any]]:
        sent: list[dict[str, Any]] = []
        reading = asyncio.Event()
        states = iter(range(10_000))

        async def send(item: dict[str, Any]) -> None:
            await reading.wait()  # the tab stopped reading until the test lets it
            sent.append(item)

        async def answer(*_: Any) -> Any:
            raise AssertionError("no request is made")

        pages = Pages()
        page = Page(send, answer, lambda: {"version": next(states)}, lambda _: None, _no_screen)
        pages.add(page)
        await asyncio.sleep(0)  # the first state is on its way, held by the tab
        for number in range(1000):
            pages.changed()
            pages.notice(_notice(number))
            await asyncio.sleep(0)
        reading.set()
        # The held state, the notices kept, then one state for all the changes made meanwhile.
        # Sent frames are only appended: each turn of the loop lets the page send the next.
        while not any(item.get("notice", {}).get("id") == "n999" for item in sent) or sent[-1]["op"] != "state":  # noqa: ASYNC110
            await asyncio.sleep(0)
        await page.close()
        return sent

    sent = asyncio.run(scenario())
    states = [item for item in sent if item["op"] == "state"]
    notices = [item["notice"]["id"] for item in sent if item["op"] == "notice"]
    # The state held while blocked, then the newest one: none of the 999 in between queued up.
    assert len(states) == 2 and states[1]["version"] > states[0]["version"]
    assert notices == [f"n{number}" for number in range(1000 - MAX_WAITING_NOTICES, 1000)]
    assert len(json.dumps(sent)) < 64 * 1024


def test_a_remote_tile_follows_its_screen_until_closed_and_never_attaches() -> None:
    async def scenario() -> tuple[list[tuple[str, str]], bool]:
        followed: list[tuple[str, str]] = []
        ended = asyncio.Event()

        async def follow(machine: str, agent: str, send: Any) -> None:
            followed.append((machine, agent))
            try:
                await asyncio.Event().wait()
            finally:
                ended.set()

        async def answer(*_: Any) -> Any:
            raise AssertionError("a remote agent is never attached here")

        async def send(_: dict[str, Any]) -> None:
            pass

        page = Page(send, answer, dict, lambda _: None, follow)
        assert page.take(json.dumps({"op": "open", "agent": "u1", "machine": "devbox"})) is None
        await asyncio.sleep(0)
        assert page.take(json.dumps({"op": "close", "agent": "u1"})) is None
        await asyncio.wait_for(ended.wait(), 30)
        await page.close()
        return followed, ended.is_set()

    assert asyncio.run(scenario()) == ([("devbox", "u1")], True)


def test_a_pages_state_marks_each_agent_with_its_machine_and_names_the_unreachable() -> None:
    rosters = [
        MachineRoster(machine="devbox", reachable=True, agents=[{"uuid": "r1", "status": "idle"}]),
        MachineRoster(machine="gone", reachable=False, error={"code": "remote_unreachable", "message": "no"}),
    ]
    state = with_machines({"agents": [{"uuid": "l1", "status": "off"}], "asks": []}, rosters)
    assert state["agents"] == [
        {"machine": "local", "uuid": "l1", "status": "off"},
        {"machine": "devbox", "uuid": "r1", "status": "idle", "is_running": True},
    ]
    assert [machine["machine"] for machine in state["machines"]] == ["local", "devbox", "gone"]
    assert state["machines"][2]["reachable"] is False and state["machines"][2]["error"]["code"] == "remote_unreachable"
