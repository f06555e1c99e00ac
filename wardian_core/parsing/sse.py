"""The server-sent events wire format (WHATWG HTML, "event stream interpretation"): bytes in,
each event's data out. Shared by the host's live stream follower and `providers replay` of a
recorded stream body."""

import logging

log = logging.getLogger(__name__)

MAX_EVENT_BYTES = 1 << 20


class EventParser:
    """The SSE wire format (WHATWG HTML, "event stream interpretation"): bytes in, event data out.

    An event, or a line, over MAX_EVENT_BYTES is dropped rather than buffered: the stream
    is someone else's, and a runaway one must not eat the host's memory.
    """

    def __init__(self, last_event_id: bytes | None = None) -> None:
        self.last_event_id = last_event_id
        self._id = last_event_id
        self._partial = b""
        self._data: list[bytes] = []
        self._size = 0
        self._too_large = False
        self._skipping_line = False  # the rest of a line already over the limit

    def feed(self, chunk: bytes) -> list[bytes]:
        lines = (self._partial + chunk).split(b"\n")
        self._partial = lines.pop()
        events: list[bytes] = []
        for line in lines:
            if self._skipping_line:
                self._skipping_line = False
                continue
            event = self._take(line.removesuffix(b"\r"))
            if event is not None:
                events.append(event)
        if len(self._partial) > MAX_EVENT_BYTES:
            self._partial, self._skipping_line, self._too_large = b"", True, True
        return events

    def _take(self, line: bytes) -> bytes | None:
        if not line:
            return self._dispatch()
        if line.startswith(b":"):  # a comment, often a keep-alive
            return None
        field, _, value = line.partition(b":")
        value = value.removeprefix(b" ")
        if field == b"data":
            self._size += len(value) + 1
            if self._size > MAX_EVENT_BYTES:
                self._too_large = True
                self._data.clear()
            elif not self._too_large:
                self._data.append(value)
        elif field == b"id" and not any(character in value for character in b"\0\r"):
            self._id = value  # sent back as a header on reconnection: no NUL, no line break
        return None

    def _dispatch(self) -> bytes | None:
        self.last_event_id = self._id
        data, too_large = self._data, self._too_large
        self._data, self._size, self._too_large = [], 0, False
        if too_large:
            log.warning("dropped an sse event over %d bytes", MAX_EVENT_BYTES)
            return None
        return b"\n".join(data) if data else None
