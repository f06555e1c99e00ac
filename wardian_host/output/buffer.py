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

    def read_page(self, cursor: int, limit: int) -> bytes | None:
        """At most `limit` bytes from `cursor` (None when it is older than what is kept).

        A page that stops before the end stops at a clean place (`clean_page_end`), so
        the next page, read from where this one ended, starts a line or a character.
        """
        if cursor < self._start:
            return None
        offset = min(cursor, self.end_cursor) - self._start
        page = bytes(self._data[offset : offset + limit])
        if offset + len(page) >= len(self._data):
            return page
        return page[: clean_page_end(page)]

    def skip_to(self, cursor: int) -> None:
        """Forget everything and go on counting from `cursor`: a host adopting a terminal whose
        earlier output it never saw keeps the cursors the previous host handed out."""
        self._data.clear()
        self._start = max(cursor, self._start)

    def clear(self) -> None:
        """Forget everything (agent clear); cursors keep counting up."""
        self._start = self.end_cursor
        self._data.clear()
