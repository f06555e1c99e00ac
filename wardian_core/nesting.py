"""How deep a value read from a user's file nests, found without recursion.

Python's parsers (json, tomllib), pydantic and the renderers each recurse once per level,
so a file nested ~1000 deep raised RecursionError wherever it was first read. A file is
checked once, after parsing, against a limit its format never comes near.
"""

from typing import Any


def deeper_than(value: object, limit: int) -> str | None:
    """Where (a dotted path of keys and indexes) `value` nests more than `limit` levels;
    None when it does not. The value itself is level 1."""
    if not isinstance(value, dict | list):
        return None
    pending: list[tuple[dict[Any, Any] | list[Any], int, str]] = [(value, 1, "")]
    while pending:
        item, depth, where = pending.pop()
        if depth > limit:
            return where or "the top"
        entries = item.items() if isinstance(item, dict) else enumerate(item)
        for key, child in entries:
            if isinstance(child, dict | list):  # only a container can nest; its path is built then
                pending.append((child, depth + 1, f"{where}.{key}" if where else str(key)))
    return None
