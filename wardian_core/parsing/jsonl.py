"""JSON lines as parsers meet them: one record per line, sometimes after a prefix
(a log's `time<TAB>event<TAB>` columns), sometimes malformed or not an object."""

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# A line longer than this is no record a parser needs; split_lines drops it.
MAX_LINE_BYTES = 1024 * 1024


def lines_newest_first(path: Path, block_bytes: int = 64 * 1024) -> Iterator[bytes]:
    """The file's non-empty lines from its last back, read a block at a time from the end: what
    the newest lines say costs them, not weeks of older ones. Raises OSError when it cannot read."""
    with open(path, "rb") as handle:
        end = handle.seek(0, os.SEEK_END)
        older_part = b""  # the start of the line the last block began inside
        while end > 0:
            start = max(0, end - block_bytes)
            handle.seek(start)
            lines = (handle.read(end - start) + older_part).split(b"\n")
            older_part = lines.pop(0) if start > 0 else b""
            yield from filter(None, reversed(lines))
            end = start


def json_object(line: bytes | str) -> dict[str, Any] | None:
    """The JSON object on `line` (from its first `{`), or None for anything else."""
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    start = text.find("{")
    if start < 0:
        return None
    try:
        record = json.loads(text[start:])
    except (ValueError, RecursionError):
        return None
    return record if isinstance(record, dict) else None


def object_field(record: dict[str, Any], key: str) -> dict[str, Any]:
    """A nested object, or an empty one where the record has none (or another type)."""
    value = record.get(key)
    return value if isinstance(value, dict) else {}


def text_field(record: dict[str, Any], key: str) -> str | None:
    """A non-empty string field, or None."""
    value = record.get(key)
    return value if isinstance(value, str) and value else None


class LineSplitter:
    """Complete lines out of a byte stream fed in arbitrary chunks, newline removed."""

    def __init__(self) -> None:
        self._partial = b""

    def feed(self, data: bytes) -> list[bytes]:
        lines = (self._partial + data).split(b"\n")
        self._partial = lines.pop()
        if len(self._partial) > MAX_LINE_BYTES:
            self._partial = b""  # a line without end: dropped rather than kept growing
        return [line.removesuffix(b"\r") for line in lines if len(line) <= MAX_LINE_BYTES]


def api_error_message(value: Any) -> str | None:
    """The message of an error object (or a record with `message`), unwrapped where a CLI wrapped
    the API's JSON error in a string (Codex: the JSON alone; Gemini: `[API Error: {...}]`)."""
    message = value.get("message") if isinstance(value, dict) else value
    if not isinstance(message, str) or not message:
        return None
    start = message.find("{")
    try:
        # raw_decode, not json_object: text may follow the JSON (Gemini's closing `]`).
        inner = json.JSONDecoder().raw_decode(message, start)[0] if start >= 0 else None
    except (ValueError, RecursionError):
        return message
    if not isinstance(inner, dict):
        return message
    return text_field(object_field(inner, "error"), "message") or text_field(inner, "message") or message
