"""The terminal server's recording of one agent's output, bounded and rotated (format:
`wardian_core.recording_format`).

Each PTY read becomes one record, written at once with one `write` (O_APPEND): a host that
exports the recording sees output as soon as it was read, and a server killed mid-write
leaves at most one record cut short, which readers skip. A segment that would pass its share
of the bound is closed and a new one begun; the oldest segments go until the rest fit.

Recording never holds an agent up: a write the disk refuses (full, gone) stops this
recording, logged once, and the agent runs on.
"""

import logging
import os
import time
from pathlib import Path

from wardian_core import recording_format as fmt

log = logging.getLogger(__name__)


class Recorder:
    def __init__(self, folder: Path, max_bytes: int, rows: int, cols: int) -> None:
        self.folder = folder
        self.max_bytes = max_bytes
        self._segment_bytes = max(max_bytes // fmt.SEGMENTS_PER_BOUND, fmt.RECORD.size + 1)
        self._size = (rows, cols)
        self._fd: int | None = None
        self._written = 0  # bytes in the open segment
        self._failed = False
        try:
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
            existing = fmt.segments(folder)
            self._sizes = {segment: segment.stat().st_size for segment in existing}
            self._next = fmt.sequence_of(existing[-1]) + 1 if existing else 1
        except OSError as exc:
            self._fail(exc)

    @property
    def recording(self) -> bool:
        return not self._failed

    def output(self, offset: int, data: bytes) -> None:
        self._write(fmt.OUTPUT, offset, data)

    def resize(self, offset: int, rows: int, cols: int) -> None:
        self._size = (rows, cols)
        self._write(fmt.RESIZE, offset, fmt.size_payload(rows, cols))

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _write(self, kind: bytes, offset: int, payload: bytes) -> None:
        if self._failed:
            return
        record = fmt.encode(kind, time.time(), offset, payload)
        try:
            if self._fd is None or self._written + len(record) > self._segment_bytes:
                self._begin_segment(offset)
            assert self._fd is not None  # opened just above
            os.write(self._fd, record)
        except OSError as exc:
            self._fail(exc)
            return
        self._written += len(record)
        self._sizes[self._segment] = self._written

    def _begin_segment(self, offset: int) -> None:
        """Close the open segment, drop the oldest while the rest and a new one would pass the
        bound, and open the new one with a head record (so it reads on its own)."""
        self.close()
        while self._sizes and sum(self._sizes.values()) + self._segment_bytes > self.max_bytes:
            oldest = min(self._sizes)
            del self._sizes[oldest]
            oldest.unlink(missing_ok=True)
        self._segment = self.folder / fmt.segment_name(self._next)
        self._next += 1
        self._fd = os.open(self._segment, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        head = fmt.encode(fmt.HEAD, time.time(), offset, fmt.size_payload(*self._size))
        os.write(self._fd, head)
        self._written = len(head)
        self._sizes[self._segment] = self._written

    def _fail(self, exc: OSError) -> None:
        log.warning("recording into %s stopped: %s", self.folder, exc)
        self._failed = True
        self.close()
