"""Answers and streams of agent output stay bounded: watch pages, list pages, lagging followers."""

import asyncio
import contextlib
import json
import random
import socket
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from answer_wire import assert_wired_unchanged
from stand_in_rows import stand_in_row

from wardian_core.control.client import ControlClient
from wardian_core.control.models import AttachParams, WatchParams
from wardian_core.control.protocol import MAX_FRAME_BYTES, encode, ok_frame, stream_frame
from wardian_core.errors import WardianError
from wardian_host.agents.attaching import REPLAY_BYTES, attach
from wardian_host.agents.listing import CUT_MARK, LIST_PAGE_BYTES, pages
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.agents.watching import EVENT_BACKLOG, WATCH_PAGE_BYTES, watch
from wardian_host.cli.attach_client import _frames
from wardian_host.output.buffer import OutputBuffer, clean_page_end

LINE = b"x" * 1023 + b"\n"


def _agent(capacity: int) -> LiveAgent:
    agent = LiveAgent(row=stand_in_row(), buffer=OutputBuffer(capacity))
    agent.is_running = True
    return agent


class StalledClient:
    """A streaming client that stops reading after its first item until `resume()`."""

    def __init__(self) -> None:
        self.reader = asyncio.StreamReader()
        self.items: list[dict[str, Any]] = []
        self._reading = asyncio.Event()
        self._sent = asyncio.Event()

    async def emit(self, item: dict[str, Any]) -> None:
        self.items.append(item)
        self._sent.set()
        await self._reading.wait()  # the host's write waits on a socket nobody drains

    def resume(self) -> None:
        self._reading.set()

    async def until(self, done: Callable[[], bool]) -> None:
        """Until the items received satisfy `done` (each emit re-checks; no polling)."""
        async with asyncio.timeout(30):  # a guard against a hang, not a measured time
            while not done():
                self._sent.clear()
                await self._sent.wait()


def _watch_once(agent: LiveAgent, params: WatchParams) -> dict[str, Any]:
    async def answer() -> dict[str, Any]:
        return await watch(agent, params, StalledClient())

    return asyncio.run(answer())


def _kinds(items: list[dict[str, Any]]) -> list[str]:
    return [next(iter(item)) for item in items]


# -- the buffer's pages -------------------------------------------------------------------


def test_a_page_ends_after_a_line_and_never_inside_a_character() -> None:
    buffer = OutputBuffer(1 << 20)
    buffer.append(b"first line\n" + b"y" * 40 + "é€".encode())
    page = buffer.read_page(0, 11 + 40 + 3)  # stops inside the 3-byte euro sign
    assert page == b"first line\n" + b"y" * 40 + "é".encode()
    assert buffer.read_page(0, 13) == b"first line\n"  # the newline sits in the last quarter
    assert buffer.read_page(0, 16) == b"first line\nyyyyy"  # it does not: the page is full
    assert clean_page_end("ab€".encode()[:4]) == 2
    assert buffer.read_page(0, 1 << 20) == b"first line\n" + b"y" * 40 + "é€".encode()


def test_a_page_of_an_expired_cursor_is_none() -> None:
    buffer = OutputBuffer(100)
    buffer.append(b"z" * 250)
    assert buffer.read_page(149, 10) is None
    assert buffer.read_page(150, 10) == b"z" * 10


@pytest.mark.parametrize("seed", range(20))
def test_the_buffer_keeps_the_newest_bytes_through_any_appends_clears_and_skips(seed: int) -> None:
    chance = random.Random(seed)
    capacity = chance.choice([1, 7, 64, 1000])
    buffer, written, start = OutputBuffer(capacity), b"", 0  # `written`: every byte, cursor 0 on
    for round_ in range(60):
        action = chance.random()
        if action < 0.05:
            buffer.clear()
            start = len(written)
        elif action < 0.1:
            skipped = chance.randrange(0, 50)
            buffer.skip_to(len(written) + skipped)
            written += b"\x00" * skipped  # never read: what a next host skips over
            start = len(written)
        else:
            chunk = bytes(chance.randrange(256) for _ in range(chance.choice([1, 3, capacity, 2 * capacity + 1])))
            buffer.append(chunk)
            written += chunk
        kept_from = max(start, len(written) - capacity)
        assert (buffer.start_cursor, buffer.end_cursor) == (kept_from, len(written)), round_
        cursor = chance.randrange(max(0, kept_from - 3), len(written) + 2)
        expected = written[cursor:] if cursor >= kept_from else None
        assert buffer.read_from(cursor) == expected, round_
        page = buffer.read_page(cursor, limit := chance.randrange(1, capacity + 2))
        if expected is None:
            assert page is None, round_
        else:  # a start of what is there, cut cleanly, and never empty while there is more
            assert page is not None and expected[:limit].startswith(page) and bool(page) == bool(expected), round_


# -- agent watch: bounded answers --------------------------------------------------------------


def test_watch_answers_a_16_mib_buffer_in_pages_that_each_fit_a_frame() -> None:
    agent = _agent(16 * 1024 * 1024)
    chunk = b"\x1b[31mred\x1b[0m \xff\n" * 4096  # escapes and bad UTF-8: what JSON grows most
    while agent.buffer.end_cursor < agent.buffer.capacity:
        agent.record_output(chunk)
    since, output = agent.buffer.start_cursor, []
    while True:
        params = WatchParams(target="a1", since=since, raw=True)
        answer = _watch_once(agent, params)
        assert len(encode(ok_frame(1, answer))) <= MAX_FRAME_BYTES
        assert answer["since"] == since and 0 < answer["cursor"] - since <= WATCH_PAGE_BYTES
        assert_wired_unchanged("agent.watch", answer)
        output.append(answer["output"])
        since = answer["cursor"]
        if not answer["more"]:
            break
    assert len(output) > 10 and all(page.endswith("\n") for page in output)
    whole = agent.buffer.read_from(agent.buffer.start_cursor) or b""
    assert "".join(output) == whole.decode("utf-8", errors="replace")
    assert since == agent.buffer.end_cursor


def test_watch_drops_the_oldest_events_when_their_evidence_would_outgrow_the_answer() -> None:
    agent = _agent(1 << 20)
    agent.record_output(b"done\n")
    evidence = {"source": "test", "message": "e" * 100_000}
    for index in range(EVENT_BACKLOG):
        agent.event_log.append({"cursor": 0, "to": "idle", "evidence": evidence | {"n": index}})
    answer = _watch_once(agent, WatchParams(target="a1"))
    assert len(encode(ok_frame(1, answer))) <= MAX_FRAME_BYTES
    assert answer["events_dropped"] > 0 and answer["events"][-1]["evidence"]["n"] == EVENT_BACKLOG - 1
    assert answer["events_dropped"] + len(answer["events"]) == EVENT_BACKLOG
    assert_wired_unchanged("agent.watch", answer)


# -- agents.list: pages --------------------------------------------------------------------------


def test_list_rows_past_the_frame_limit_go_out_in_pages_that_each_fit_a_frame() -> None:
    rows = [{"name": f"a{index}", "description": "d" * (1 << 20)} for index in range(20)]
    grouped = list(pages(rows))
    assert len(grouped) > 1 and [row for page in grouped for row in page] == rows
    for page in grouped:
        assert len(encode(stream_frame(1, {"agents": page}))) <= MAX_FRAME_BYTES


def test_a_row_too_large_for_a_page_alone_keeps_the_start_of_its_description() -> None:
    huge = "\x07" * (2 << 20)  # six bytes each in JSON: 12 MiB
    [[row]] = list(pages([{"name": "big", "description": huge}]))
    assert len(json.dumps(row, separators=(",", ":"))) <= LIST_PAGE_BYTES
    assert row["description"].endswith(CUT_MARK) and huge.startswith(row["description"].removesuffix(CUT_MARK))


# -- a follower that stopped reading -------------------------------------------------------------


def test_a_stalled_follower_holds_nothing_and_is_told_it_lagged() -> None:
    async def scenario() -> None:
        agent = _agent(64 * 1024)
        agent.record_output(b"before\n")
        client = StalledClient()
        follow = asyncio.create_task(watch(agent, WatchParams(target="a1", follow=True), client))
        await client.until(lambda: len(client.items) == 1)  # the first item is stuck in the socket
        for _ in range(160):  # 160 KiB while the client reads nothing
            agent.record_output(LINE)
        end = agent.buffer.end_cursor
        client.resume()
        await client.until(lambda: client.items[-1].get("cursor") == end)
        lagged = [item["lagged"] for item in client.items if "lagged" in item]
        assert lagged == [
            {
                "cursor": agent.buffer.start_cursor,
                "missed_from": len(b"before\n"),
                "dropped_bytes": agent.buffer.start_cursor - len(b"before\n"),
                "dropped_events": 0,
            }
        ]
        delivered = sum(len(item.get("output", "")) for item in client.items[2:])
        assert delivered == agent.buffer.capacity  # what the buffer keeps, not all 160 KiB
        client.reader.feed_eof()
        ended = await follow
        assert ended == {"cursor": end}
        assert_wired_unchanged("agent.watch", ended)
        assert agent.output_listeners == set() and agent.event_listeners == set()

    asyncio.run(scenario())


def test_a_stalled_follower_counts_the_status_changes_it_missed() -> None:
    async def scenario() -> None:
        agent = _agent(64 * 1024)
        client = StalledClient()
        follow = asyncio.create_task(watch(agent, WatchParams(target="a1", follow=True), client))
        await client.until(lambda: len(client.items) == 1)
        for index in range(EVENT_BACKLOG + 44):
            agent.record_output(b"line\n")
            agent.log_event("status", {"to": "idle", "n": index})
        client.resume()
        await client.until(lambda: client.items[-1].get("event", {}).get("n") == EVENT_BACKLOG + 43)
        assert _kinds(client.items)[:2] == ["output", "lagged"]
        assert client.items[1]["lagged"]["dropped_events"] == 44
        assert client.items[1]["lagged"]["dropped_bytes"] == 0
        events = [item["event"]["n"] for item in client.items if "event" in item]
        assert events == list(range(44, EVENT_BACKLOG + 44))
        client.reader.feed_eof()
        await follow

    asyncio.run(scenario())


class IdleTerminals:
    """The terminal part as attach sees it, for an agent that keeps running."""

    async def wait_exit(self, _uuid: str) -> None:
        await asyncio.Event().wait()

    def resize(self, *_: object) -> None:
        pass


def test_a_stalled_attach_is_told_it_lagged_and_goes_on_from_recent_output() -> None:
    async def scenario() -> None:
        agent = _agent(256 * 1024)
        client = StalledClient()
        params = AttachParams(target="a1", read_only=True)
        attached = asyncio.create_task(attach(agent, IdleTerminals(), params, client))  # type: ignore[arg-type]  # a stand-in terminal part
        await client.until(lambda: len(client.items) == 1)
        for _ in range(400):
            agent.record_output(LINE)
        client.resume()
        await client.until(lambda: any("lagged" in item for item in client.items))
        lagged = next(item["lagged"] for item in client.items if "lagged" in item)
        assert lagged["cursor"] == agent.buffer.end_cursor - REPLAY_BYTES and lagged["missed_from"] == 0
        client.reader.feed_data(b'{"detach": true}\n')
        assert (await attached)["reason"] == "detached"

    asyncio.run(scenario())


# -- the CLI's side --------------------------------------------------------------------------------


def test_an_answer_over_the_frame_limit_is_the_message_too_large_envelope(tmp_path: Path) -> None:
    cli_end, host_end = socket.socketpair()
    answer = encode(ok_frame(1, {"output": "x" * MAX_FRAME_BYTES}))  # what an older host sent

    def old_host() -> None:
        with contextlib.suppress(OSError):  # the CLI stops reading and closes
            host_end.recv(65536)
            host_end.sendall(answer)
        host_end.close()

    sender = threading.Thread(target=old_host)
    sender.start()
    with ControlClient(cli_end, tmp_path) as client, pytest.raises(WardianError) as raised:
        client.request("agent.watch", {"target": "a1"}, timeout=30)
    sender.join()
    assert raised.value.code == "message_too_large" and raised.value.hint
    assert raised.value.details == {"kind": "agent.watch", "limit_bytes": MAX_FRAME_BYTES}


def test_attach_stops_reading_a_frame_over_the_limit_instead_of_hoarding_it() -> None:
    cli_end, host_end = socket.socketpair()

    def send_and_leave() -> None:
        host_end.sendall(b'{"stream": "' + b"x" * MAX_FRAME_BYTES)
        host_end.close()

    sender = threading.Thread(target=send_and_leave)
    sender.start()
    buffer = bytearray()
    with pytest.raises(WardianError) as raised:
        while True:
            assert list(_frames(cli_end, buffer)) == []
    sender.join()
    cli_end.close()
    assert raised.value.code == "message_too_large" and len(buffer) <= MAX_FRAME_BYTES + 65536


def test_attach_reads_every_frame_a_chunk_holds() -> None:
    cli_end, host_end = socket.socketpair()
    host_end.sendall(b'{"a": 1}\n{"b": 2}\n{"c"')
    buffer = bytearray()
    assert list(_frames(cli_end, buffer)) == [{"a": 1}, {"b": 2}]
    assert buffer == b'{"c"'
    cli_end.close()
    host_end.close()
