"""A bounded ring of one agent's output, addressed by absolute byte offset.

Offset 0 is the agent's first byte since its launch (or the offset its launch named); the
ring keeps the last `capacity` bytes at least, twice that at most, so a reader asking from
an offset it still holds gets exactly what followed, and one asking from an older offset
learns where the kept part starts (what it missed is gone).
"""

from collections import deque
from dataclasses import dataclass, field

DEFAULT_RING_BYTES = 4 * 1024 * 1024


@dataclass
class OutputRing:
    capacity: int = DEFAULT_RING_BYTES
    start_offset: int = 0  # the offset of the oldest byte kept
    _data: bytearray = field(default_factory=bytearray)
    # Where each append began: a replay hands the output on in the pieces it came in.
    _starts: deque[int] = field(default_factory=deque)

    @classmethod
    def restored(cls, capacity: int, start_offset: int, data: bytes, starts: list[int]) -> "OutputRing":
        """A ring another server kept (an upgrade hands it over): its bytes and where its appends began."""
        return cls(capacity, start_offset, bytearray(data), deque(starts or [start_offset]))

    @property
    def end_offset(self) -> int:
        return self.start_offset + len(self._data)

    def kept(self) -> tuple[memoryview, list[int]]:
        """Its bytes from `start_offset` and the offsets where its appends began, to hand over."""
        return memoryview(self._data), list(self._starts)

    def append(self, data: bytes) -> None:
        self._starts.append(self.end_offset)
        self._data += data
        if len(self._data) > 2 * self.capacity:
            # Trimmed back to `capacity` only past twice that: a flood costs one memmove of the
            # ring per `capacity` bytes, not one per read batch.
            surplus = len(self._data) - self.capacity
            del self._data[:surplus]
            self.start_offset += surplus
            while len(self._starts) > 1 and self._starts[1] <= self.start_offset:
                self._starts.popleft()

    def pieces_from(self, offset: int) -> list[tuple[int, bytes]]:
        """What `read_from(offset)` answers, cut where the appends began."""
        begin, data = self.read_from(offset)
        cuts = [start for start in self._starts if begin < start < self.end_offset]
        edges = [begin, *cuts, self.end_offset]
        return [
            (edges[i], data[edges[i] - begin : edges[i + 1] - begin])
            for i in range(len(edges) - 1)
            if edges[i] < edges[i + 1]
        ]

    def read_from(self, offset: int) -> tuple[int, bytes]:
        """(where the answer starts, the bytes from there to the end); the start is later than
        `offset` when the ring no longer holds it."""
        begin = min(max(offset, self.start_offset), self.end_offset)
        return begin, bytes(self._data[begin - self.start_offset :])
