"""What a page that reads slowly costs the host: the newest state and a bounded list of notices."""

import asyncio
import json
from typing import Any

from wardian_core.notices import Notice
from wardian_host.web.pages import MAX_WAITING_NOTICES, Page, Pages


def _notice(number: int) -> Notice:
    return Notice(id=f"n{number}", kind="waiting", agent="a", uuid="u", title="t", body="b", at="2026-01-01T00:00:00Z")


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
        page = Page(send, answer, lambda: {"version": next(states)}, lambda _: None)
        pages.add(page)
        await asyncio.sleep(0)  # the first state is on its way, held by the tab
        for number in range(1000):
            pages.changed()
            pages.notice(_notice(number))
            await asyncio.sleep(0)
        reading.set()
        # The held state, the notices kept, then one state for all the changes made meanwhile.
        while not any(item.get("notice", {}).get("id") == "n999" for item in sent) or sent[-1]["op"] != "state":
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
