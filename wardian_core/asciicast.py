"""A recording (`wardian_core.recording_format`) as asciicast v2, the format `asciinema play`,
`asciinema cat` and asciinema-player read: a header line, then one `[time, code, data]` line
per event, `o` for output and `r` for a resize (`COLSxROWS`), times in seconds from the first.

Output is decoded as UTF-8 across records (a character a PTY read cut in two is whole in the
event after), bad bytes replaced: asciicast carries text, not bytes.
"""

import codecs
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

from wardian_core import recording_format as fmt
from wardian_core.errors import WardianError

FORMATS = ("asciicast",)
_SPAN = re.compile(r"^\s*(\d+)\s*(s|m|h|d)\s*$")
_SPAN_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400}


def moment(flag: str, text: str, now: float) -> float:
    """`--since`/`--until` TEXT as Unix seconds: a moment (ISO 8601, UTC when no zone is given)
    or a span back from now (`90s`, `30m`, `2h`, `1d`)."""
    span = _SPAN.match(text)
    if span:
        return now - int(span.group(1)) * _SPAN_SECONDS[span.group(2)]
    try:
        parsed = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise WardianError(
            "usage",
            f"invalid {flag} {text!r}",
            "Give a moment (2026-11-25T08:00:00Z, UTC when no zone) or a span back from now (90s, 30m, 2h, 1d).",
            {flag.lstrip("-"): text},
        ) from None
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).timestamp()


@dataclass
class _Cut:
    since: float | None
    until: float | None

    def holds(self, time: float) -> bool:
        return (self.since is None or time >= self.since) and (self.until is None or time <= self.until)


def lines(records: Iterable[fmt.Record], since: float | None = None, until: float | None = None) -> Iterator[str]:
    """The asciicast v2 lines (each without its newline) of the records between `since` and
    `until`; a header alone when none is."""
    cut = _Cut(since, until)
    size, start, decoder, next_offset = (24, 80), None, codecs.getincrementaldecoder("utf-8")("replace"), None
    for record in records:
        if record.kind in (fmt.HEAD, fmt.RESIZE):
            size = record.size()
        if record.kind == fmt.HEAD and record.offset != next_offset:
            decoder.reset()  # a new launch: a character cut at the old one's end stays cut
        if not cut.holds(record.time) or record.kind == fmt.HEAD:
            if record.kind == fmt.OUTPUT:
                decoder.decode(record.payload)  # keeps a character cut at the range's start whole
                next_offset = record.offset + len(record.payload)
            continue
        if start is None:
            start = record.time
            yield _header(size, start)
        yield from _events(record, record.time - start, decoder)
        if record.kind == fmt.OUTPUT:
            next_offset = record.offset + len(record.payload)
    if start is None:
        yield _header(size, since if since is not None else 0.0)


def _header(size: tuple[int, int], start: float) -> str:
    rows, cols = size
    return json.dumps({"version": 2, "width": cols, "height": rows, "timestamp": int(start)})


def _events(record: fmt.Record, at: float, decoder: codecs.IncrementalDecoder) -> Iterator[str]:
    if record.kind == fmt.RESIZE:
        rows, cols = record.size()
        yield json.dumps([round(at, 6), "r", f"{cols}x{rows}"])
    elif record.kind == fmt.OUTPUT:
        text = decoder.decode(record.payload)
        if text:
            yield json.dumps([round(at, 6), "o", text], ensure_ascii=False)
