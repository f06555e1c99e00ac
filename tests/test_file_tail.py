"""FileTail follows a file that appears later, line by line, woken by inotify."""

import asyncio
from pathlib import Path

from wardian_host.output.file_tail import FileTail


def test_lines_arrive_as_they_are_written_including_a_file_created_later(tmp_path: Path) -> None:
    target = tmp_path / "later" / "hooks.jsonl"

    async def scenario() -> list[bytes]:
        loop = asyncio.get_running_loop()
        lines: list[bytes] = []
        three = asyncio.Event()

        def on_line(line: bytes) -> None:
            lines.append(line)
            if len(lines) == 3:
                three.set()

        tail = FileTail(loop, target, on_line)
        tail.start()
        assert tail._notify_fd is not None, "inotify is available on Linux"
        target.write_bytes(b'{"n": 1}\n{"n": 2')  # the second line is not finished yet
        await asyncio.sleep(0)
        with target.open("ab") as handle:
            handle.write(b'}\n\n{"n": 3}\n')
        await asyncio.wait_for(three.wait(), 10)
        tail.close()
        return lines

    assert asyncio.run(scenario()) == [b'{"n": 1}', b'{"n": 2}', b'{"n": 3}']


def test_a_truncated_file_is_read_again_from_the_start(tmp_path: Path) -> None:
    target = tmp_path / "log.jsonl"
    target.write_bytes(b"first\nsecond\n")

    async def scenario() -> list[bytes]:
        lines: list[bytes] = []
        arrived = asyncio.Event()
        tail = FileTail(asyncio.get_running_loop(), target, lambda line: (lines.append(line), arrived.set()))
        tail.start()
        arrived.clear()
        target.write_bytes(b"new\n")
        await asyncio.wait_for(arrived.wait(), 10)
        tail.close()
        return lines

    assert asyncio.run(scenario()) == [b"first", b"second", b"new"]


def test_a_file_followed_from_its_end_skips_its_history_but_not_a_line_being_written(tmp_path: Path) -> None:
    log = tmp_path / "rollout.jsonl"
    log.write_bytes(b'{"old": 1}\n{"old": 2}\n{"half')

    async def scenario() -> list[bytes]:
        lines: list[bytes] = []
        arrived = asyncio.Event()

        def on_line(line: bytes) -> None:
            lines.append(line)
            arrived.set()

        tail = FileTail(asyncio.get_running_loop(), log, on_line, start_at_end=True)
        tail.start()
        try:
            with log.open("ab") as handle:
                handle.write(b'": 3}\n')
            await asyncio.wait_for(arrived.wait(), 10)
        finally:
            tail.close()
        return lines

    assert asyncio.run(scenario()) == [b'{"half": 3}']
