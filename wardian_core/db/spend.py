"""The fleet's spend per hour (UTC), from the `usage` table: what the web view's chart draws.

Tokens count as budgets count them (input with cache writes, and output; cache reads, which most
turns repeat at a tenth of the price, are left out), so the chart and an agent's budget bar agree.
A cost no turn of the hour stated stays None ("unknown"), never 0.
"""

import sqlite3
from typing import Any

# The hour a turn belongs to: its `at` (ISO 8601, UTC) cut after the hour, "2026-12-02T14".
HOUR_OF_TURN = "substr(u.at, 1, 13)"
TOKENS_OF_TURN = "COALESCE(u.input_tokens, 0) + COALESCE(u.cache_write_tokens, 0) + COALESCE(u.output_tokens, 0)"


def spend_by_hour(conn: sqlite3.Connection, since: str) -> list[dict[str, Any]]:
    """Each (hour, agent) with turns at or after `since`: `hour` ("2026-12-02T14"), `agent` (its
    name), `turns`, `tokens`, `usd`; oldest hour first, then by agent."""
    rows = conn.execute(
        f"SELECT {HOUR_OF_TURN} AS hour, a.name AS agent, COUNT(*) AS turns, SUM({TOKENS_OF_TURN}) AS tokens,"
        f" SUM(u.cost_usd) AS usd FROM usage u JOIN agents a ON a.uuid = u.agent WHERE u.at >= ?"
        f" GROUP BY hour, a.name ORDER BY hour, a.name",
        (since,),
    ).fetchall()
    return [dict(row) for row in rows]
