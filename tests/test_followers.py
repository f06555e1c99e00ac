"""Followers of provider telemetry: a folder tree, an SSE stream, a command's stdout."""

import asyncio
import contextlib
import logging
import os
import shutil
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import psutil
import pytest
from file_following import TIMEOUT, Lines, forced_backend  # noqa: F401 - the `backend` fixture the tests below take

from wardian_core.parsing.sse import MAX_EVENT_BYTES
from wardian_core.provider_models import HEADLESS_SOURCE, PTY_SOURCE, OutputSource
from wardian_host.output import directory_watch, sse_stream
from wardian_host.output.command_stream import CommandStream
from wardian_host.output.directory_watch import DirectoryWatch
from wardian_host.output.followers import open_follower
from wardian_host.output.polling import Stamp
from wardian_host.output.sse_stream import SseStream

# A folder tree


async def _new_files_in_new_nested_folders_are_reported_once(root: Path, backend: str) -> list[bytes]:
    (root / "old").mkdir(parents=True)
    (root / "old" / "rollout-old.jsonl").write_text("{}\n")
    lines = Lines()
    watch = DirectoryWatch(asyncio.get_running_loop(), root, "rollout-*.jsonl", lines)
    watch.start()
    uses_inotify = watch._notify is not None
    assert uses_inotify == (backend == "linux"), "inotify on Linux, polling under the portable backend as on macOS"
    # Three folders and a file at once, as Codex does: the folders fill before they are watched.
    day = root / "2025" / "01" / "15"
    day.mkdir(parents=True)
    (day / "notes.txt").write_text("not a session\n")
    (day / "rollout-1.jsonl").write_text("{}\n")
    (root / "old" / "rollout-old.jsonl").write_text("{}\n{}\n")  # written again, not new
    await lines.wait_for(1)
    (root / "a" / "b" / "c" / "d" / "e").mkdir(parents=True)
    (root / "a" / "b" / "c" / "d" / "e" / "rollout-too-deep.jsonl").write_text("{}\n")
    (day / "rollout-1.jsonl").rename(day / "rollout-1.jsonl.tmp")
    (day / "rollout-1.jsonl.tmp").rename(day / "rollout-1.jsonl")  # back again: the same file
    (root / "old" / "rollout-2.jsonl").write_text("{}\n")  # in a folder there before start
    await lines.wait_for(2)
    (root / "2025" / "01" / "16").mkdir()
    (root / "2025" / "01" / "16" / "rollout-3.jsonl").write_text("{}\n")
    received = await lines.wait_for(3)
    watch.close()
    return received


def test_directory_reports_files_in_nested_folders_made_after_start_once(tmp_path: Path, backend: str) -> None:
    received = asyncio.run(_new_files_in_new_nested_folders_are_reported_once(tmp_path / "sessions", backend))

    assert received == [b"2025/01/15/rollout-1.jsonl", b"old/rollout-2.jsonl", b"2025/01/16/rollout-3.jsonl"]


def test_directory_polls_where_inotify_is_missing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # As on Linux with the per-user inotify instances all taken.
    monkeypatch.setattr(directory_watch, "open_inotify", lambda loop, on_event: None)

    async def scenario() -> tuple[list[bytes], bool]:
        root = tmp_path / "sessions"
        root.mkdir()
        (root / "rollout-old.jsonl").write_text("{}\n")
        lines = Lines()
        watch = DirectoryWatch(asyncio.get_running_loop(), root, "rollout-*.jsonl", lines)
        watch.start()
        polling = watch._poll_watch is not None
        day = root / "2025" / "01" / "15"
        day.mkdir(parents=True)
        (day / "notes.txt").write_text("\n")
        (day / "rollout-1.jsonl").write_text("{}\n")
        await lines.wait_for(1)
        (root / "rollout-2.jsonl").write_text("{}\n")
        await lines.wait_for(2)
        shutil.rmtree(day)  # the folder replaced: made again, with a new file
        day.mkdir()
        (day / "rollout-3.jsonl").write_text("{}\n")
        received = await lines.wait_for(3)
        watch.close()
        return received, polling

    received, polling = asyncio.run(scenario())

    assert polling
    assert received == [b"2025/01/15/rollout-1.jsonl", b"rollout-2.jsonl", b"2025/01/15/rollout-3.jsonl"]


def _polled_watch(root: Path, lines: Lines, listed: list[Path]) -> DirectoryWatch:
    """A started DirectoryWatch under the portable backend whose folder listings are recorded in `listed`."""
    watch = DirectoryWatch(asyncio.get_running_loop(), root, "rollout-*.jsonl", lines)
    watch.start()
    assert watch._poll_watch is not None, "polled"
    add_tree = watch._add_tree

    def recording(top: Path, *, report: bool) -> bool:
        listed.append(top)
        return add_tree(top, report=report)

    watch._add_tree = recording  # type: ignore[method-assign]  # the seam that counts listings
    return watch


def test_polling_lists_only_the_folders_whose_stamp_moved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARDIAN_PTY_BACKEND", "ptyprocess")
    root = tmp_path / "sessions"
    days = [root / "2025" / "01" / f"{day:02}" for day in range(1, 21)]
    for day in days:
        day.mkdir(parents=True)
        (day / f"rollout-{day.name}.jsonl").write_text("{}\n")
    an_hour_ago = time.time_ns() - 3600 * 10**9
    for folder in [*days, root / "2025" / "01", root / "2025", root]:
        os.utime(folder, ns=(an_hour_ago, an_hour_ago))  # settled: its time can be trusted

    async def scenario() -> tuple[list[bool], list[Path], list[Path], list[bytes]]:
        lines, listed = Lines(), list[Path]()
        watch = _polled_watch(root, lines, listed)
        # No await: the poller's own timer cannot run meanwhile.
        quiet = [watch._poll(), watch._poll()]
        listed_while_quiet = list(listed)
        (days[6] / "rollout-new.jsonl").write_text("{}\n")
        changed = watch._poll()
        watch.close()
        return [*quiet, changed], listed_while_quiet, listed, lines.received

    polls, listed_while_quiet, listed, received = asyncio.run(scenario())

    assert polls == [False, False, True]
    assert listed_while_quiet == [], "23 folders looked at with a stat each, none listed"
    assert listed == [days[6]], "only the folder that changed"
    assert received == [b"2025/01/07/rollout-new.jsonl"]


def test_polling_lists_a_folder_again_while_its_time_is_too_recent_to_trust(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A file system whose clock has not moved since the folder was listed (HFS+ keeps whole
    # seconds): the entry added leaves the folder's stamp as it was.
    monkeypatch.setenv("WARDIAN_PTY_BACKEND", "ptyprocess")
    frozen = Stamp(device=1, inode=2, size=3, mtime_ns=time.time_ns())
    monkeypatch.setattr(directory_watch, "stamp", lambda path: frozen)
    root = tmp_path / "sessions"
    root.mkdir()

    async def scenario() -> list[bytes]:
        lines, listed = Lines(), list[Path]()
        watch = _polled_watch(root, lines, listed)
        (root / "rollout-1.jsonl").write_text("{}\n")
        watch._poll()
        watch.close()
        return lines.received

    assert asyncio.run(scenario()) == [b"rollout-1.jsonl"]


# An SSE stream, from a small server of the test's own

# A handler answers a request; True keeps the connection open until the follower hangs up.
Handler = Callable[[dict[str, str], asyncio.StreamWriter], Awaitable[bool]]


@contextlib.asynccontextmanager
async def _serving(handler: Handler) -> AsyncIterator[str]:
    connections: list[asyncio.Task[None]] = []

    async def on_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.append(asyncio.current_task())  # type: ignore[arg-type]  # always inside a task
        head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        request = {"request-line": head[0]}
        for line in head[1:]:
            if line:
                name, _, value = line.partition(":")
                request[name.strip().lower()] = value.strip()
        try:
            if await handler(request, writer):
                await writer.drain()
                await reader.read()  # the follower must not need the end of the body
        finally:
            writer.close()

    server = await asyncio.start_server(on_connection, "127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}/events?session=1"
    finally:
        server.close()
        # Every connection ends only once the follower hangs up, which its close() must do.
        await asyncio.wait_for(asyncio.gather(*connections), TIMEOUT)


def _chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


def _follow_sse(handler: Handler, count: int, headers: dict[str, str] | None = None) -> list[bytes]:
    """Follow the test server's stream until `count` events arrived; every event received."""

    async def scenario() -> list[bytes]:
        async with _serving(handler) as url:
            lines = Lines()
            stream = SseStream(asyncio.get_running_loop(), url, headers or {}, lines)
            stream.start()
            try:
                return await lines.wait_for(count)
            finally:
                stream.close()

    return asyncio.run(scenario())


def test_sse_joins_multi_line_data_and_skips_comments_in_a_chunked_stream() -> None:
    requests: list[dict[str, str]] = []

    async def handler(request: dict[str, str], writer: asyncio.StreamWriter) -> bool:
        requests.append(request)
        if request.get("authorization") != "Bearer secret":
            writer.write(b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n")
            return False
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
        stream = b": keep-alive\r\n\r\nevent: turn\r\ndata: line one\r\ndata:line two\r\nretry: 10\r\n\r\ndata: {}\n\n"
        cut = stream.index(b"line one\r") + len(b"line one\r")  # between "\r" and "\n"
        for piece in (stream[:5], stream[5:cut], stream[cut:]):
            writer.write(_chunk(piece))
            await writer.drain()
        return True

    assert _follow_sse(handler, 2, {"Authorization": "Bearer secret"}) == [b"line one\nline two", b"{}"]
    assert requests[0]["request-line"] == "GET /events?session=1 HTTP/1.1"
    assert requests[0]["accept"] == "text/event-stream"
    assert requests[0]["host"].startswith("127.0.0.1:")


def test_sse_without_the_credential_gets_no_event_and_keeps_asking(caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> list[bytes]:
        refused = 0
        asked_twice = asyncio.Event()

        async def handler(request: dict[str, str], writer: asyncio.StreamWriter) -> bool:
            nonlocal refused
            if request.get("authorization") != "Bearer secret":
                writer.write(b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n")
                refused += 1
                if refused == 2:
                    asked_twice.set()
                return False
            writer.write(b"HTTP/1.1 200 OK\r\n\r\ndata: private\n\n")
            return False

        async with _serving(handler) as url:
            lines = Lines()
            stream = SseStream(asyncio.get_running_loop(), url, {"Authorization": "Bearer wrong-token"}, lines)
            stream.start()
            await asyncio.wait_for(asked_twice.wait(), TIMEOUT)
            stream.close()
        return lines.received

    with caplog.at_level(logging.DEBUG, logger="wardian_host.output.sse_stream"):
        assert asyncio.run(scenario()) == []

    assert "401 Unauthorized" in caplog.text
    assert "wrong-token" not in caplog.text


def test_sse_reconnects_when_the_stream_ends_and_sends_the_last_event_id() -> None:
    requests: list[dict[str, str]] = []

    async def handler(request: dict[str, str], writer: asyncio.StreamWriter) -> bool:
        requests.append(request)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n")  # a plain body, to the end
        if len(requests) == 1:
            writer.write(b"id: 41\ndata: first\n\n")
            return False  # the server ends the stream
        writer.write(b"data: second\n\n")
        return True

    assert _follow_sse(handler, 2) == [b"first", b"second"]
    assert "last-event-id" not in requests[0]
    assert requests[1]["last-event-id"] == "41"


def test_sse_asks_again_when_a_starting_server_does_not_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sse_stream, "ANSWER_TIMEOUT_SECONDS", 0.2)
    asked = 0

    async def handler(request: dict[str, str], writer: asyncio.StreamWriter) -> bool:
        nonlocal asked
        asked += 1
        if asked == 1:
            return True  # the connection stays open, the request unanswered
        writer.write(b"HTTP/1.1 200 OK\r\n\r\ndata: up\n\n")
        return True

    assert _follow_sse(handler, 1) == [b"up"]
    assert asked == 2


def test_sse_drops_an_event_over_one_mebibyte_and_keeps_following(caplog: pytest.LogCaptureFixture) -> None:
    async def handler(request: dict[str, str], writer: asyncio.StreamWriter) -> bool:
        writer.write(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
        writer.write(_chunk(b"data: " + b"x" * (MAX_EVENT_BYTES + 10) + b"\n\n"))  # one huge line
        writer.write(_chunk(b"".join(b"data: " + b"y" * 100_000 + b"\n" for _ in range(12)) + b"\n"))  # many lines
        writer.write(_chunk(b"data: after\n\n"))
        return True

    with caplog.at_level(logging.WARNING, logger="wardian_core.parsing.sse"):
        assert _follow_sse(handler, 1) == [b"after"]

    assert caplog.text.count("dropped an sse event") == 2


# A command's stdout


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE  # an orphan init has yet to reap
    except psutil.NoSuchProcess:
        return True


async def _until(condition: Callable[[], bool]) -> None:
    """For what no event announces (another parent's child going away): look again, briefly."""
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "still there"
        await asyncio.sleep(0.02)


def test_command_lines_arrive_and_the_command_is_restarted_when_it_exits() -> None:
    script = "import os, sys; print('run', os.getpid()); print(os.environ['WARDIAN_TEST_VALUE'], end='')"

    async def scenario() -> list[bytes]:
        lines = Lines()
        command = CommandStream(
            asyncio.get_running_loop(), [sys.executable, "-c", script], {"WARDIAN_TEST_VALUE": "tail"}, lines
        )
        command.start()
        received = await lines.wait_for(4)
        command.close()
        await asyncio.wait_for(command.wait_closed(), TIMEOUT)
        return received

    first_run, first_tail, second_run, second_tail = asyncio.run(scenario())[:4]

    assert first_run.startswith(b"run ") and second_run.startswith(b"run ")
    assert first_run != second_run, "a second process"
    assert first_tail == second_tail == b"tail"  # the last line, though it has no newline


def test_command_drops_a_line_over_one_mebibyte() -> None:
    script = "import sys; sys.stdout.write('x' * (2**20 + 10) + '\\nafter\\n'); sys.stdout.flush()"

    async def scenario() -> list[bytes]:
        lines = Lines()
        command = CommandStream(asyncio.get_running_loop(), [sys.executable, "-c", script], {}, lines)
        command.start()
        received = await lines.wait_for(1)
        command.close()
        await asyncio.wait_for(command.wait_closed(), TIMEOUT)
        return received

    assert asyncio.run(scenario())[0] == b"after"


def test_command_close_ends_its_process_group_and_reaps_it() -> None:
    script = (
        "import os, subprocess, sys, time;"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)']);"
        "print(os.getpid(), child.pid, flush=True); time.sleep(60)"
    )

    async def scenario() -> None:
        lines = Lines()
        command = CommandStream(asyncio.get_running_loop(), [sys.executable, "-c", script], {}, lines)
        command.start()
        pid, grandchild = (int(word) for word in (await lines.wait_for(1))[0].split())
        assert command.pid == pid
        command.close()
        await asyncio.wait_for(command.wait_closed(), TIMEOUT)
        assert not psutil.pid_exists(pid), "reaped, not a zombie"
        await _until(lambda: _gone(grandchild))

    asyncio.run(scenario())


# open_follower


def test_open_follower_builds_the_follower_of_each_kind_and_refuses_the_host_own(tmp_path: Path) -> None:
    async def scenario() -> list[str]:
        loop = asyncio.get_running_loop()
        sources = [
            OutputSource(name="hooks", kind="file", path=tmp_path / "hooks.jsonl"),
            OutputSource(name="sessions", kind="directory", path=tmp_path / "sessions", pattern="*.jsonl"),
            OutputSource(name="events", kind="sse", url="http://127.0.0.1:9/events", headers={"X-Key": "k"}),
            OutputSource(name="log", kind="command", argv=[sys.executable, "-c", "pass"]),
        ]
        built = []
        for source in sources:
            follower = open_follower(loop, source, lambda line: None)
            built.append(type(follower).__name__)
            follower.close()
            if isinstance(follower, CommandStream):
                await asyncio.wait_for(follower.wait_closed(), TIMEOUT)
        for own in (PTY_SOURCE, HEADLESS_SOURCE):
            with pytest.raises(ValueError, match=own.kind):
                open_follower(loop, own, lambda line: None)
        return built

    assert asyncio.run(scenario()) == ["FileTail", "DirectoryWatch", "SseStream", "CommandStream"]
    assert (tmp_path / "sessions").is_dir(), "the watched folder is made"
