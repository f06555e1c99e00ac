"""`agents.list`: every agent's live row, streamed in pages that each fit one control frame.

Descriptions are free text, so many agents' rows may add up past the frame limit: the
rows go out as `{"agents": [...]}` stream items, the answer counts them.
"""

import json
from collections.abc import Iterable, Iterator
from typing import Any

from wardian_core.control.answers import AgentsListAnswer
from wardian_core.control.protocol import MAX_FRAME_BYTES
from wardian_host.agents.client_stream import ClientStream
from wardian_host.agents.live_agent import LiveAgent

# A page's rows, leaving room for the frame around them.
LIST_PAGE_BYTES = MAX_FRAME_BYTES - 64 * 1024
CUT_MARK = " … [cut: this description is too long for one answer]"


def _size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":")))  # as the control frame encodes it


def _fitted(row: dict[str, Any]) -> tuple[dict[str, Any], int]:
    """The row and its encoded size; one too large for a page alone loses its description's end.

    Only an oversized description can do that: every other field is short.
    """
    size = _size(row)
    description = row.get("description")
    if size <= LIST_PAGE_BYTES or not isinstance(description, str):
        return row, size
    # Each character encodes to at least one byte, so dropping `overflow` of them fits.
    keep = max(0, len(description) - (size - LIST_PAGE_BYTES) - _size(CUT_MARK))
    cut = row | {"description": description[:keep] + CUT_MARK}
    return cut, _size(cut)


def pages(rows: Iterable[dict[str, Any]]) -> Iterator[list[dict[str, Any]]]:
    """The rows, in order, grouped so each group's encoding stays within LIST_PAGE_BYTES."""
    page: list[dict[str, Any]] = []
    used = 0
    for row in rows:
        fitted, size = _fitted(row)
        if page and used + size + 1 > LIST_PAGE_BYTES:
            yield page
            page, used = [], 0
        page.append(fitted)
        used += size + 1  # the comma between rows
    if page:
        yield page


async def list_agents(agents: Iterable[LiveAgent], request: ClientStream) -> AgentsListAnswer:
    """Stream every agent's row (one snapshot of the registry, taken before any is sent)."""
    rows = [agent.snapshot() for agent in agents]
    for page in pages(rows):
        await request.emit({"agents": page})
    return AgentsListAnswer(count=len(rows))
