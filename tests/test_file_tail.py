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
