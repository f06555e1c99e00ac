"""Edits of the user's settings.toml that change one key and keep everything else as written.

tomlkit parses TOML into a document that remembers comments, spacing, quoting and the form
of every key (`[table]`, dotted, quoted), and writes it back unchanged apart from the edit;
tomli-w only writes plain data, so it cannot edit a user's file. The caller still re-parses
the result with tomllib and compares it with the intended document, so an edit tomlkit gets
wrong is refused rather than written.

Imported only by a settings write: reading settings never loads tomlkit.
"""

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import tomlkit
from tomlkit.container import Container, OutOfOrderTableProxy
from tomlkit.exceptions import InvalidStringError, TOMLKitError
from tomlkit.items import AoT, InlineTable, String, StringType, Table

# A table that holds keys: the document itself, a `[table]` or dotted-key table in it, or
# (a proxy) one table written in several places (`codex.a = 1` twice, or `[a]`..`[b]`..`[a.c]`).
Node = Container | Table | OutOfOrderTableProxy


class UneditableError(Exception):
    """The file defines the key in a form that cannot be edited one key at a time."""


def set_value(text: str, path: tuple[str, ...], value: Any) -> str:
    """`text` with `path` set to `value`: replaced in place, added to its table, or in a new table."""
    with _tomlkit_refusals():
        return _set(text, path, value)


def remove_value(text: str, path: tuple[str, ...]) -> str:
    """`text` without the line(s) that set `path`; unchanged when the file does not set it."""
    with _tomlkit_refusals():
        return _remove(text, path)


@contextmanager
def _tomlkit_refusals() -> Iterator[None]:
    # tomllib already accepted the text; a form tomlkit reads or edits differently is refused, not a crash.
    try:
        yield
    except TOMLKitError as error:
        raise UneditableError(f"the TOML editor cannot edit it ({error})") from None


def _in_the_style_of(previous: Any, value: Any) -> Any:
    """A text replacing a 'literal' string is written as one too, where a literal can hold it.

    tomlkit 0.15.3 began doing so itself and 0.15.2 did not: decided here, the file a person
    gets does not depend on the version installed."""
    if isinstance(value, str) and isinstance(previous, String) and previous.type is StringType.SLL:
        try:
            return tomlkit.string(value, literal=True)
        except InvalidStringError:  # a quote or a control character: a basic string escapes it
            pass
    return value


def _set(text: str, path: tuple[str, ...], value: Any) -> str:
    document = tomlkit.parse(text)
    table = _table(document, path[:-1])
    if table is not None and path[-1] in table:
        table[path[-1]] = _in_the_style_of(table[path[-1]], value)  # keeps its comment and spacing
        return _with_newlines_of(text, document.as_string())
    if text and not text.endswith("\n"):
        # The last line must end before a new one, or a new [table] would share its line.
        document = tomlkit.parse(text + _newline(text))
        table = _table(document, path[:-1])
    if table is None:
        # At the end of the file, as `[a.b]`: inside an implicit `[a]` it would land under
        # the comment that introduces the table after it.
        document.append(path[0], _new_table(path[1:-1], path[-1], value))
    else:
        _add(table, path[-1], value)
    return _with_newlines_of(text, document.as_string())


def _remove(text: str, path: tuple[str, ...]) -> str:
    document = tomlkit.parse(text)
    table = _table(document, path[:-1])
    if table is None or path[-1] not in table:
        return text
    del table[path[-1]]
    return _with_newlines_of(text, document.as_string())


def _table(document: Container, path: tuple[str, ...]) -> Node | None:
    """The table at `path`, None when the file has none there."""
    node: Node = document
    for depth, part in enumerate(path, start=1):
        if part not in node:
            return None
        node = _editable(node[part], path[:depth])
    return node


def _new_table(inner: tuple[str, ...], name: str, value: Any) -> Table:
    """A table holding `name = value`, nested under `inner`; only the innermost gets a header."""
    table = tomlkit.table()
    table.append(name, value)
    for part in reversed(inner):
        table = tomlkit.table(is_super_table=True).append(part, table)
    return table


def _editable(node: Any, path: tuple[str, ...]) -> Table | OutOfOrderTableProxy:
    key = ".".join(path)
    if isinstance(node, InlineTable):
        raise UneditableError(f"{key} is written as an inline table")
    if isinstance(node, AoT):
        raise UneditableError(f"{key} is an array of tables")
    if not isinstance(node, Table | OutOfOrderTableProxy):
        raise UneditableError(f"{key} is a value, not a table")
    return node


def _add(table: Node, name: str, value: Any) -> None:
    """Add `name` after the table's last key, above any comment that introduces what follows."""
    if isinstance(table, OutOfOrderTableProxy):
        table[name] = value  # tomlkit picks the part, after the first part's keys
        return
    body = table if isinstance(table, Container) else table.value
    keys = [index for index, (key, item) in enumerate(body.body) if key is not None and not _is_table(item)]
    position = keys[-1] + 1 if keys else 0
    if position < len(body.body):
        # tomlkit's public append goes after trailing comments and blank lines, which in a
        # hand-written file belong to the next table; its insert is the only way to place a key.
        body._insert_at(position, name, value)
    else:
        body.append(name, value)


def _is_table(item: Any) -> bool:
    return isinstance(item, AoT | Table)  # an InlineTable is a value, not a Table


def _newline(text: str) -> str:
    return "\r\n" if "\r\n" in text else "\n"


def _with_newlines_of(original: str, edited: str) -> str:
    """tomlkit ends the lines it writes with \\n: a CRLF file keeps CRLF on those lines too."""
    return re.sub(r"(?<!\r)\n", "\r\n", edited) if _newline(original) == "\r\n" else edited
