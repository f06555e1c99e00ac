"""A bounded per-agent output buffer addressed by absolute byte cursors.

Cursor N is the N-th byte the agent ever wrote in this buffer's life. When the
buffer is full the oldest bytes are dropped and counted, so a reader holding an
old cursor learns it expired instead of silently missing output.
"""

# Where a page may end early: a newline in its last quarter keeps lines whole.
_LINE_SEARCH_FRACTION = 4
_UTF8_MAX_BYTES = 4


def _utf8_length(lead: int) -> int:
    """How many bytes the UTF-8 sequence starting with `lead` has (1 for a stray byte)."""
    if lead >= 0xF0:
        return 4
    if lead >= 0xE0:
        return 3
    if lead >= 0xC0:
        return 2
    return 1


def clean_page_end(page: bytes) -> int:
    """Where to cut `page` so no line (when it can be helped) nor character is split in two."""
    newline = page.rfind(b"\n", len(page) - len(page) // _LINE_SEARCH_FRACTION)
    if newline >= 0:
        return newline + 1
    for start in range(len(page) - 1, max(len(page) - _UTF8_MAX_BYTES, 0) - 1, -1):
        if page[start] & 0xC0 != 0x80:  # the last character's first byte
            cut = start if start + _utf8_length(page[start]) > len(page) else len(page)
            return cut or len(page)  # a page always moves its reader on
    return len(page)


class OutputBuffer:
    """The newest `capacity` bytes, in a ring once full: an append copies only its own bytes.

    Kept as one bytearray trimmed from the front, each append past the capacity made the
    bytearray grow by reallocating and copying all it held (about 1 MiB every 26 appends of
    5 KB), on every busy agent's output path.
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = max(1, capacity)
        self._ring = bytearray()  # grows to the capacity (an idle agent holds little), then wraps
        self._head = 0  # where in `_ring` the oldest kept byte is (0 until it wraps)
        self._start = 0  # cursor of the first retained byte
        self._refilled_to = 0  # where the output being appended again after an adoption ends

    @property
    def start_cursor(self) -> int:
        return self._start

    @property
    def end_cursor(self) -> int:
        return self._start + len(self._ring)

    @property
    def known_end(self) -> int:
        """Where the output the agent is known to have written ends: `end_cursor`, or, while a host
        that adopted the terminal refills the buffer from the server's ring, that ring's end. A
        cursor up to it was handed out by some host: a reader holding one waits for the refill to
        reach it rather than reading the refilled bytes again."""
        return max(self.end_cursor, self._refilled_to)

    @property
    def dropped_bytes(self) -> int:
        return self._start

    def append(self, chunk: bytes) -> None:
        if len(chunk) >= self.capacity:
            self._start = self.end_cursor + len(chunk) - self.capacity
            self._ring, self._head = bytearray(chunk[-self.capacity :]), 0
            return
        room = self.capacity - len(self._ring)
        if room > 0:
            self._ring += chunk[:room]
            chunk = chunk[room:]
        if chunk:  # full: the oldest bytes make way, from `_head` on, wrapping at the end
            piece, size = memoryview(chunk), len(chunk)
            first = min(size, self.capacity - self._head)
            self._ring[self._head : self._head + first] = piece[:first]
            if first < size:
                self._ring[: size - first] = piece[first:]
            self._head = (self._head + size) % self.capacity
            self._start += size

    def _kept(self, offset: int, limit: int) -> bytes:
        """At most `limit` bytes from the `offset`-th kept byte on."""
        size = len(self._ring)
        length = max(0, min(limit, size - offset))
        at = (self._head + offset) % size if size else 0
        if at + length <= size:
            return bytes(self._ring[at : at + length])
        return bytes(self._ring[at:]) + bytes(self._ring[: at + length - size])

    def read_from(self, cursor: int) -> bytes | None:
        """Bytes from `cursor` to the end, or None when `cursor` is older than what is kept."""
        if cursor < self._start:
            return None
        offset = min(cursor, self.end_cursor) - self._start
        return self._kept(offset, len(self._ring))

    def read_page(self, cursor: int, limit: int) -> bytes | None:
        """At most `limit` bytes from `cursor` (None when it is older than what is kept).

        A page that stops before the end stops at a clean place (`clean_page_end`), so
        the next page, read from where this one ended, starts a line or a character.
        """
        if cursor < self._start:
            return None
        offset = min(cursor, self.end_cursor) - self._start
        page = self._kept(offset, limit)
        if offset + len(page) >= len(self._ring):
            return page
        return page[: clean_page_end(page)]

    def skip_to(self, cursor: int, refilled_to: int = 0) -> None:
        """Forget everything and go on counting from `cursor`: a host adopting a terminal whose
        earlier output it never saw keeps the cursors the previous host handed out. `refilled_to`:
        where the output about to be appended again (the terminal server's ring) ends."""
        self._start = max(cursor, self._start)
        self._refilled_to = refilled_to
        self._ring, self._head = bytearray(), 0

    def clear(self) -> None:
        """Forget everything (agent clear); cursors keep counting up."""
        self._start = self.end_cursor
        self._ring, self._head = bytearray(), 0
