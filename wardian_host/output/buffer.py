"""A bounded per-agent output buffer addressed by absolute byte cursors.

Cursor N is the N-th byte the agent ever wrote in this buffer's life. When the
buffer is full the oldest bytes are dropped and counted, so a reader holding an
old cursor learns it expired instead of silently missing output.
"""


class OutputBuffer:
    def __init__(self, capacity: int) -> None:
        self.capacity = max(1, capacity)
        self._data = bytearray()
        self._start = 0  # cursor of the first retained byte

    @property
    def start_cursor(self) -> int:
        return self._start

    @property
    def end_cursor(self) -> int:
        return self._start + len(self._data)

    @property
    def dropped_bytes(self) -> int:
        return self._start

    def append(self, chunk: bytes) -> None:
        self._data += chunk
        excess = len(self._data) - self.capacity
        if excess > 0:
            del self._data[:excess]
            self._start += excess

    def read_from(self, cursor: int) -> bytes | None:
        """Bytes from `cursor` to the end, or None when `cursor` is older than what is kept."""
        if cursor < self._start:
            return None
        offset = min(cursor, self.end_cursor) - self._start
        return bytes(self._data[offset:])

    def clear(self) -> None:
        """Forget everything (agent clear); cursors keep counting up."""
        self._start = self.end_cursor
        self._data.clear()
