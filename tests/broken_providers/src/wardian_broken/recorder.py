"""An observer-only plugin: remembers every status change it is told about."""

from wardian_core import hookimpl

SEEN: list[tuple[str, str]] = []


@hookimpl
def status_changed(previous, current):
    SEEN.append((previous, current))
