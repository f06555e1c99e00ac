"""Telemetry followers resumed where a previous host stopped: what it read is replayed to the
parser (events dropped), what was written meanwhile is handed on as new, nothing twice."""

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from file_following import Lines
from stand_in_provider import StandIn, registered

from wardian_core import hookimpl
from wardian_core.db import open_writer
from wardian_core.parsing.events import event
from wardian_core.provider_models import OutputSource, ParseResult, ProviderEvent
from wardian_core.telemetry_positions import FilePosition, FolderPosition, position_key
from wardian_host.agents.telemetry_positions import LaunchPositions
from wardian_host.output import file_tail
from wardian_host.output.directory_watch import DirectoryWatch
from wardian_host.output.feed import OutputFeed
from wardian_host.output.file_tail import FileTail
from wardian_host.testing.contexts import spawn_context


def _tail(
    target: Path, resume: FilePosition | None = None, start_at_end: bool = False
) -> tuple[Lines, Lines, FileTail]:
    """A started tail of `target` (its file's lines are read at once), with what it replayed and handed on."""
    replayed, lines = Lines(), Lines()
    tail = FileTail(asyncio.get_running_loop(), target, lines, start_at_end, resume, replayed)
    tail.start()
    return replayed, lines, tail


def test_a_resumed_tail_replays_what_was_read_and_hands_on_the_rest(tmp_path: Path) -> None:
    target = tmp_path / "hooks.jsonl"
    target.write_bytes(b"one\ntwo\nthr")  # the last line is still being written

    async def scenario() -> tuple[FilePosition, list[bytes], list[bytes]]:
        _, first, tail = _tail(target)
        assert first.received == [b"one", b"two"]
        position = tail.position()
        tail.close()
        with target.open("ab") as handle:  # written while no host read
            handle.write(b"ee\nfour\n")
        replayed, lines, again = _tail(target, position)
        again.close()
        return position, replayed.received, lines.received

    position, replayed, lines = asyncio.run(scenario())
    assert (position.start, position.read) == (0, len(b"one\ntwo\n"))
    assert replayed == [b"one", b"two"]
    assert lines == [b"three", b"four"]


def test_a_long_log_resumed_is_replayed_a_chunk_a_loop_turn_in_order_and_once(tmp_path: Path) -> None:
    target = tmp_path / "hooks.jsonl"
    # Weeks of hooks: lines of 1 KB, over three chunks read before the previous host stopped.
    lines_read = [b"%05d " % n + b"x" * 1018 for n in range(3 * file_tail.READ_CHUNK_BYTES // 1024)]
    written_since = [b"%05d new" % n for n in range(3)]
    target.write_bytes(b"\n".join(lines_read) + b"\n")
    status = target.stat()
    read_before = FilePosition(start=0, read=status.st_size, device=status.st_dev, inode=status.st_ino)
    with target.open("ab") as handle:
        handle.write(b"\n".join(written_since) + b"\n")

    async def scenario() -> tuple[int, int, list[bytes], list[bytes]]:
        replayed, lines, tail = _tail(target, read_before)
        at_start = len(replayed.received)
        between: list[int] = []  # what had been replayed when another callback had its turn
        asyncio.get_running_loop().call_soon(lambda: between.append(len(replayed.received)))
        await lines.wait_for(len(written_since))
        tail.close()
        return at_start, between[0], replayed.received, lines.received

    at_start, between, replayed, lines = asyncio.run(scenario())
    assert 0 < at_start <= file_tail.READ_CHUNK_BYTES // 1024, "start() reads one chunk, not the whole log"
    assert at_start < between < len(lines_read), "the loop ran another callback between two chunks"
    assert replayed == lines_read
    assert lines == written_since


def test_a_resumed_tail_that_began_at_the_end_keeps_what_was_written_meanwhile(tmp_path: Path) -> None:
    target = tmp_path / "rollout.jsonl"
    target.write_bytes(b"history\n")

    async def scenario() -> tuple[list[bytes], list[bytes]]:
        _, first, tail = _tail(target, start_at_end=True)
        assert first.received == []
        position = tail.position()
        tail.close()
        with target.open("ab") as handle:
            handle.write(b"meanwhile\n")
        # The adopting host names the file as a resumed launch would: from its end.
        replayed, lines, again = _tail(target, position, start_at_end=True)
        again.close()
        return replayed.received, lines.received

    assert asyncio.run(scenario()) == ([], [b"meanwhile"])


def test_a_resumed_tail_of_a_replaced_file_reads_the_new_one_from_its_start(tmp_path: Path) -> None:
    target = tmp_path / "hooks.jsonl"
    target.write_bytes(b"old one\nold two\n")

    async def scenario() -> tuple[list[bytes], list[bytes]]:
        _, _, tail = _tail(target)
        position = tail.position()
        tail.close()
        replacement = tmp_path / "new.jsonl"
        replacement.write_bytes(b"new one\nnew two\nnew three\n")
        os.replace(replacement, target)
        replayed, lines, again = _tail(target, position)
        again.close()
        return replayed.received, lines.received

    assert asyncio.run(scenario()) == ([], [b"new one", b"new two", b"new three"])


def test_a_resumed_folder_watch_replays_its_reports_and_reports_files_made_meanwhile(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    (root / "2025").mkdir(parents=True)
    (root / "2025" / "rollout-before.jsonl").write_text("{}\n")

    async def scenario() -> tuple[FolderPosition, list[bytes], list[bytes]]:
        first = Lines()
        watch = DirectoryWatch(asyncio.get_running_loop(), root, "rollout-*.jsonl", first)
        watch.start()
        (root / "2025" / "rollout-seen.jsonl").write_text("{}\n")
        await first.wait_for(1)
        position = watch.position()
        watch.close()
        (root / "2026").mkdir()
        (root / "2026" / "rollout-meanwhile.jsonl").write_text("{}\n")
        replayed, lines = Lines(), Lines()
        again = DirectoryWatch(asyncio.get_running_loop(), root, "rollout-*.jsonl", lines, position, replayed)
        again.start()
        again.close()
        return position, replayed.received, lines.received

    position, replayed, lines = asyncio.run(scenario())
    assert position.reported == ["2025/rollout-seen.jsonl"]
    assert position.known == ["2025/rollout-before.jsonl", "2025/rollout-seen.jsonl"]
    assert replayed == [b"2025/rollout-seen.jsonl"]
    assert lines == [b"2026/rollout-meanwhile.jsonl"]  # neither the file there before nor one reported


def test_positions_are_kept_per_launch_and_a_new_launch_forgets_them(
    wardian_home: Path, seed_agent: Callable[..., dict[str, Any]]
) -> None:
    agent = seed_agent("Coder", name="ada")["uuid"]
    conn = open_writer(wardian_home)
    hooks = FilePosition(start=0, read=120, device=1, inode=2)
    folder = FolderPosition(known=["a.jsonl"], reported=["a.jsonl"])

    async def record() -> None:
        book = LaunchPositions.fresh(conn, agent, 4242)
        book.record("hooks", FilePosition(start=0, read=60, device=1, inode=2))
        book.record("hooks", hooks)  # the latest of a loop turn is the one written
        book.record("sessions", folder)
        assert book.saved("hooks") == hooks  # a source named again in this launch goes on from there
        await asyncio.sleep(0)  # the turn of the loop that writes them

    asyncio.run(record())
    adopted = LaunchPositions.adopted(conn, agent, 4242)
    assert (adopted.saved("hooks"), adopted.saved("sessions"), adopted.saved("other")) == (hooks, folder, None)
    assert LaunchPositions.adopted(conn, agent, 999).saved("hooks") is None  # another launch's pid
    LaunchPositions.fresh(conn, agent, 5000)
    assert LaunchPositions.adopted(conn, agent, 4242).saved("hooks") is None


class CountingProvider(StandIn):
    """Its hook log's parser numbers the turns it has read: its state is the log read so far."""

    def __init__(self, log: OutputSource) -> None:
        self.log = log

    @hookimpl
    def approval_source(self) -> list[OutputSource]:
        return [self.log]

    @hookimpl
    def parse_output(self, source: OutputSource) -> "TurnCounter":
        return TurnCounter(source)


class TurnCounter:
    def __init__(self, source: OutputSource) -> None:
        self.source, self.turns = source, 0

    def feed(self, data: bytes) -> ParseResult:
        self.turns += 1
        return ParseResult(events=[event("turn_completed", self.source, f"turn {self.turns}", data.decode())])


class Book:
    """The positions a previous host recorded, and those this one records."""

    def __init__(self, saved: dict[str, FilePosition | FolderPosition]) -> None:
        self.positions = saved

    def saved(self, key: str) -> FilePosition | FolderPosition | None:
        return self.positions.get(key)

    def record(self, key: str, position: FilePosition | FolderPosition) -> None:
        self.positions[key] = position


def test_an_adopted_launch_replays_what_was_read_without_reporting_it_and_reports_the_rest(tmp_path: Path) -> None:
    log = tmp_path / "hooks.jsonl"
    log.write_bytes(b"first\nsecond\nmeanwhile\n")
    source = OutputSource(name="hooks", kind="file", path=log)
    key = position_key(source)
    assert key is not None
    status = log.stat()
    read_before = FilePosition(start=0, read=len(b"first\nsecond\n"), device=status.st_dev, inode=status.st_ino)
    book = Book({key: read_before})

    async def scenario() -> list[ProviderEvent]:
        seen: list[ProviderEvent] = []
        output_feed = OutputFeed(asyncio.get_running_loop(), registered(CountingProvider(source)))
        session = output_feed.new_session(spawn_context(tmp_path, "standin"), seen.append)
        session.positions = book
        output_feed.start(session)  # the file is read as its follower starts
        output_feed.close(session)
        return seen

    seen = asyncio.run(scenario())
    assert [(e.evidence.rule, e.evidence.line) for e in seen] == [("turn 3", "meanwhile")]
    assert book.positions[key] == FilePosition(
        start=0, read=len(b"first\nsecond\nmeanwhile\n"), device=status.st_dev, inode=status.st_ino
    )


class TurnTracker:
    """A turn opens at `begin` and closes at `end`; between turns it holds nothing (at rest)."""

    def __init__(self, source: OutputSource) -> None:
        self.source, self.fed, self.open = source, 0, False

    def feed(self, data: bytes) -> ParseResult:
        self.fed += 1
        self.open = data == b"begin"
        events = [] if self.open else [event("turn_completed", self.source, "end", f"lines fed: {self.fed}")]
        return ParseResult(events=events, at_rest=not self.open)


class TrackingProvider(CountingProvider):
    @hookimpl
    def parse_output(self, source: OutputSource) -> "TurnTracker":  # type: ignore[override]
        return TurnTracker(source)


def test_a_log_resumed_is_replayed_from_its_parsers_last_rest_not_its_first_line(tmp_path: Path) -> None:
    log = tmp_path / "hooks.jsonl"
    log.write_bytes(b"begin\nend\n")  # a turn done before the host looked
    source = OutputSource(name="hooks", kind="file", path=log)
    key = position_key(source)
    assert key is not None
    book = Book({})
    seen: list[ProviderEvent] = []
    heard = asyncio.Event()

    def on_event(event: ProviderEvent) -> None:
        seen.append(event)
        heard.set()

    def position() -> tuple[int, int]:
        saved = book.positions[key]
        assert isinstance(saved, FilePosition)
        return saved.start, saved.read

    async def write_and_hear(data: bytes) -> None:
        heard.clear()
        with log.open("ab") as handle:
            handle.write(data)
        await asyncio.wait_for(heard.wait(), 10)

    async def first_host() -> list[tuple[int, int]]:
        output_feed = OutputFeed(asyncio.get_running_loop(), registered(TrackingProvider(source)))
        session = output_feed.new_session(spawn_context(tmp_path, "standin"), on_event)
        session.positions = book
        output_feed.start(session)
        positions = [position()]
        await write_and_hear(b"begin\nend\n")  # read live, its last line a rest
        positions.append(position())
        await write_and_hear(b"begin\nend\nbegin\n")  # a third turn open as the host goes
        positions.append(position())
        output_feed.close(session)
        return positions

    assert asyncio.run(first_host()) == [(10, 10), (20, 20), (30, 36)]

    with log.open("ab") as handle:  # the open turn ends while no host reads
        handle.write(b"end\n")
    seen.clear()

    async def next_host() -> None:
        output_feed = OutputFeed(asyncio.get_running_loop(), registered(TrackingProvider(source)))
        session = output_feed.new_session(spawn_context(tmp_path, "standin"), on_event)
        session.positions = book
        output_feed.start(session)
        output_feed.close(session)

    asyncio.run(next_host())
    # It rebuilt the open turn from the one line since the rest, and reported its end.
    assert [(e.evidence.rule, e.evidence.line) for e in seen] == [("end", "lines fed: 2")]
    assert position() == (40, 40)
