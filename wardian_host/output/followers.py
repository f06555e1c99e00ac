"""Opening the follower that reads an `OutputSource` a provider named (see its docstring).

A file or folder follower may be resumed from the position a previous host recorded
(`wardian_core.telemetry_positions`): what that host read goes to `on_replay`, the rest to
`on_line`. Streams have no position and start afresh.
"""

import asyncio
from typing import Protocol

from wardian_core.provider_models import OutputSource
from wardian_core.telemetry_positions import FilePosition, FolderPosition
from wardian_host.output.command_stream import CommandStream
from wardian_host.output.directory_watch import DirectoryWatch
from wardian_host.output.file_tail import FileTail, LineHandler
from wardian_host.output.sse_stream import SseStream


class Follower(Protocol):
    def start(self) -> None: ...

    def close(self) -> None: ...


def open_follower(
    loop: asyncio.AbstractEventLoop,
    source: OutputSource,
    on_line: LineHandler,
    resume: FilePosition | FolderPosition | None = None,
    on_replay: LineHandler | None = None,
) -> Follower:
    """A started follower of `source`; `pty` and `headless` are the host's own and have none."""
    follower: Follower
    if source.kind == "file" and source.path is not None:
        at = resume if isinstance(resume, FilePosition) else None
        follower = FileTail(loop, source.path, on_line, source.start_at_end, at, on_replay)
    elif source.kind == "directory" and source.path is not None:
        known = resume if isinstance(resume, FolderPosition) else None
        follower = DirectoryWatch(loop, source.path, source.pattern, on_line, known, on_replay)
    elif source.kind == "sse" and source.url is not None:
        follower = SseStream(loop, source.url, source.headers, on_line)
    elif source.kind == "command":
        follower = CommandStream(loop, source.argv, source.env, on_line)
    else:
        raise ValueError(f"the host reads a {source.kind} source itself: it has no follower")
    follower.start()
    return follower


def position_of(follower: Follower, at_rest: bool = False) -> FilePosition | FolderPosition | None:
    """How far `follower` read, for the next host; None for a stream. `at_rest`: see `FileTail.position`."""
    if isinstance(follower, FileTail):
        return follower.position(at_rest)
    return follower.position() if isinstance(follower, DirectoryWatch) else None
