"""Minimal edits of TOML text: set or remove one key, leaving every other byte alone.

tomli-w cannot keep comments, so `settings set` edits the user's text instead of
rewriting it. The scanner assumes text tomllib already accepted; the caller re-parses
the result and compares it with the intended document, so a form this module
misreads is refused rather than written.
"""

import re
import tomllib
from dataclasses import dataclass
from typing import Any

import tomli_w


class UneditableError(Exception):
    """The file defines the key in a form that cannot be edited line by line."""


@dataclass(frozen=True)
class Header:
    path: tuple[str, ...]
    in_array: bool  # an array of tables, or a table inside one
    line_end: int


@dataclass(frozen=True)
class Statement:
    """One `key = value` line (or lines, for a multi-line value) under a table header."""

    table: tuple[str, ...]
    in_array: bool
    key: tuple[str, ...]
    line_start: int
    value_start: int
    value_end: int
    line_end: int

    @property
    def full_key(self) -> tuple[str, ...]:
        return self.table + self.key


# A date-time may hold one space ("1979-05-27 07:32:00Z"); any other bare value ends at
# whitespace, a comment or a closing bracket.
_BARE_VALUE = re.compile(r"\d{4}-\d{2}-\d{2}[ Tt]\d[^\s#,\]}]*|[^\s#,\]}]+")
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def render_value(value: Any) -> str:
    """A value as TOML source, quoted and escaped the way tomli-w does it."""
    return tomli_w.dumps({"v": value}).removeprefix("v = ").rstrip("\n")


def render_key(path: tuple[str, ...]) -> str:
    return ".".join(part if _BARE_KEY.fullmatch(part) else render_value(part) for part in path)


def set_value(text: str, path: tuple[str, ...], value: Any) -> str:
    """`text` with `path` set to `value`: replaced in place, added to its table, or a new table."""
    headers, statements = scan(text)
    existing = _find(statements, path)
    rendered = render_value(value)
    if existing is not None:
        return text[: existing.value_start] + rendered + text[existing.value_end :]
    newline = _newline(text)
    table = path[:-1]
    siblings = [s for s in statements if not s.in_array and s.full_key[:-1] == table]
    if siblings:
        # Written next to a sibling, in the same form (`[table]` key or dotted key).
        anchor = siblings[-1]
        line = f"{render_key(path[len(anchor.table) :])} = {rendered}{newline}"
        return _insert_line(text, anchor.line_end, line, newline)
    header = next((h for h in headers if h.path == table and not h.in_array), None)
    if header is not None:
        return _insert_line(text, header.line_end, f"{render_key(path[-1:])} = {rendered}{newline}", newline)
    body = text if text == "" or text.endswith(("\n", "\r")) else text + newline
    separator = newline if body.strip() else ""
    return f"{body}{separator}[{render_key(table)}]{newline}{render_key(path[-1:])} = {rendered}{newline}"


def remove_value(text: str, path: tuple[str, ...]) -> str:
    """`text` without the line(s) that set `path`; unchanged when the file does not set it."""
    _, statements = scan(text)
    existing = _find(statements, path)
    if existing is None:
        return text
    return text[: existing.line_start] + text[existing.line_end :]


def _find(statements: list[Statement], path: tuple[str, ...]) -> Statement | None:
    for statement in statements:
        if statement.in_array:
            continue
        full = statement.full_key
        if full == path:
            return statement
        if len(full) < len(path) and path[: len(full)] == full:
            raise UneditableError(f"{'.'.join(full)} is written as an inline table")
    return None


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _insert_line(text: str, offset: int, line: str, newline: str) -> str:
    before = text[:offset]
    if before and not before.endswith("\n"):
        before += newline
    return before + line + text[offset:]


def scan(text: str) -> tuple[list[Header], list[Statement]]:
    """The headers and key/value statements of valid TOML text, in file order."""
    headers: list[Header] = []
    statements: list[Statement] = []
    table: tuple[str, ...] = ()
    in_array = False
    array_tables: set[tuple[str, ...]] = set()
    position = 0
    while position < len(text):
        char = text[position]
        if char in " \t\r\n":
            position += 1
        elif char == "#":
            position = _line_end(text, position)
        elif char == "[":
            is_array = text.startswith("[[", position)
            key_start = position + (2 if is_array else 1)
            key_end = _key_end(text, key_start, "]")
            table = decode_key(text[key_start:key_end])
            if is_array:
                array_tables.add(table)
            # `[a.b]` after `[[a]]` is a sub-table of the array's last element.
            in_array = any(table[:length] in array_tables for length in range(1, len(table) + 1))
            position = _line_end(text, key_end)
            headers.append(Header(table, in_array, position))
        else:
            key_end = _key_end(text, position, "=")
            value_start = _skip_blanks(text, key_end + 1)
            value_end = skip_value(text, value_start)
            line_end = _line_end(text, value_end)
            line_start = text.rfind("\n", 0, position) + 1
            key = decode_key(text[position:key_end])
            statements.append(Statement(table, in_array, key, line_start, value_start, value_end, line_end))
            position = line_end
    return headers, statements


def decode_key(raw: str) -> tuple[str, ...]:
    """A dotted key as written (bare, quoted, spaced) to its parts, decoded by tomllib itself."""
    document: Any = tomllib.loads(f"{raw.strip()} = 0")
    parts: list[str] = []
    while isinstance(document, dict):
        ((name, document),) = document.items()
        parts.append(name)
    return tuple(parts)


def _line_end(text: str, position: int) -> int:
    newline = text.find("\n", position)
    return len(text) if newline < 0 else newline + 1


def _skip_blanks(text: str, position: int) -> int:
    while position < len(text) and text[position] in " \t":
        position += 1
    return position


def _key_end(text: str, position: int, terminator: str) -> int:
    while text[position] != terminator:
        if text[position] in "\"'":
            position = skip_value(text, position)
        else:
            position += 1
    return position


def skip_value(text: str, position: int) -> int:
    """The offset just past the value that starts at `position`."""
    for quotes, escapes in (('"""', True), ("'''", False)):
        if text.startswith(quotes, position):
            return _skip_multiline_string(text, position + 3, quotes, escapes)
    char = text[position]
    if char == '"':
        position += 1
        while text[position] != '"':
            position += 2 if text[position] == "\\" else 1
        return position + 1
    if char == "'":
        return text.index("'", position + 1) + 1
    if char in "[{":
        return _skip_nested(text, position)
    match = _BARE_VALUE.match(text, position)
    assert match is not None, f"no value at offset {position}"
    return match.end()


def _skip_multiline_string(text: str, position: int, quotes: str, escapes: bool) -> int:
    while not text.startswith(quotes, position):
        position += 2 if escapes and text[position] == "\\" else 1
    # Up to two quote characters may sit just inside the closing delimiter.
    while text.startswith(quotes[0], position + 3):
        position += 1
    return position + 3


def _skip_nested(text: str, position: int) -> int:
    depth = 0
    while True:
        char = text[position]
        if char in "[{":
            depth += 1
            position += 1
        elif char in "]}":
            depth -= 1
            position += 1
            if depth == 0:
                return position
        elif char in "\"'":
            position = skip_value(text, position)
        elif char == "#":
            position = _line_end(text, position)
        else:
            position += 1
