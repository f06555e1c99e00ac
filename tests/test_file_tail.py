"""FileTail follows a file that appears later, line by line: woken by inotify on Linux, by polling elsewhere."""

import asyncio
import os
from pathlib import Path
from typing import IO, Any

import pytest
from file_following import Lines, forced_backend  # noqa: F401 - the `backend` fixture the tests below take

from wardian_host.output import file_tail
from wardian_host.output.file_tail import FileTail


def _started(tail: FileTail, backend: str) -> FileTail:
    tail.start()
    uses_inotify = tail._notify_fd is not None
    assert uses_inotify == (backend == "linux"), "inotify on Linux, polling under the portable backend as on macOS"
    return tail


def test_lines_arrive_as_they_are_written_including_a_file_created_later(tmp_path: Path, backend: str) -> None:
    target = tmp_path / "later" / "hooks.jsonl"

    async def scenario() -> list[bytes]:
        lines = Lines()
        tail = _started(FileTail(asyncio.get_running_loop(), target, lines), backend)
        target.write_bytes(b'{"n": 1}\n{"n": 2')  # the second line is not finished yet
        await lines.wait_for(1)
        with target.open("ab") as handle:
            handle.write(b'}\n\n{"n": 3}\n')
        received = await lines.wait_for(3)
        tail.close()
        return received

    assert asyncio.run(scenario()) == [b'{"n": 1}', b'{"n": 2}', b'{"n": 3}']


def test_a_truncated_file_is_read_again_from_the_start(tmp_path: Path, backend: str) -> None:
    target = tmp_path / "log.jsonl"
    target.write_bytes(b"first\nsecond\n")

    async def scenario() -> list[bytes]:
        lines = Lines()
        tail = _started(FileTail(asyncio.get_running_loop(), target, lines), backend)
        target.write_bytes(b"new\n")
        received = await lines.wait_for(3)
        tail.close()
        return received

    assert asyncio.run(scenario()) == [b"first", b"second", b"new"]


def test_a_file_replaced_by_a_longer_one_is_read_from_its_start(tmp_path: Path, backend: str) -> None:
    target = tmp_path / "log.jsonl"
    target.write_bytes(b"first\n")

    async def scenario() -> list[bytes]:
        lines = Lines()
        tail = _started(FileTail(asyncio.get_running_loop(), target, lines), backend)
        await lines.wait_for(1)
        replacement = tmp_path / "log.jsonl.tmp"
        replacement.write_bytes(b"another file\nlonger than the first\n")
        os.replace(replacement, target)
        received = await lines.wait_for(3)
        tail.close()
        return received

    assert asyncio.run(scenario()) == [b"first", b"another file", b"longer than the first"]


def test_a_file_followed_from_its_end_skips_its_history_but_not_a_line_being_written(
    tmp_path: Path, backend: str
) -> None:
    log = tmp_path / "rollout.jsonl"
    log.write_bytes(b'{"old": 1}\n{"old": 2}\n{"half')

    async def scenario() -> list[bytes]:
        lines = Lines()
        tail = _started(FileTail(asyncio.get_running_loop(), log, lines, start_at_end=True), backend)
        try:
            with log.open("ab") as handle:
                handle.write(b'": 3}\n')
            return await lines.wait_for(1)
        finally:
            tail.close()

    assert asyncio.run(scenario()) == [b'{"half": 3}']


def test_polling_opens_the_file_only_when_its_stat_moved(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WARDIAN_PTY_BACKEND", "ptyprocess")
    target = tmp_path / "hooks.jsonl"
    target.write_bytes(b"one\n")
    opened: list[Path] = []

    def counting_open(path: Path, *args: Any, **kwargs: Any) -> IO[Any]:
        opened.append(Path(path))
        return open(path, *args, **kwargs)

    monkeypatch.setattr(file_tail, "open", counting_open, raising=False)  # shadows the builtin in that module

    async def scenario() -> tuple[list[bool], int, list[bool], list[bytes]]:
        lines = Lines()
        tail = _started(FileTail(asyncio.get_running_loop(), target, lines), "ptyprocess")
        opened.clear()
        quiet = [tail._poll() for _ in range(5)]  # no await: the poller's own timer cannot run meanwhile
        opened_while_quiet = len(opened)
        with target.open("ab") as handle:
            handle.write(b"two\n")
        after_write = [tail._poll(), tail._poll()]
        tail.close()
        return quiet, opened_while_quiet, after_write, lines.received

    quiet, opened_while_quiet, after_write, received = asyncio.run(scenario())

    assert quiet == [False] * 5
    assert opened_while_quiet == 0, "an unchanged file is not opened, let alone read"
    assert after_write == [True, False]
    assert opened == [target], "opened once, for the write"
    assert received == [b"one", b"two"]
