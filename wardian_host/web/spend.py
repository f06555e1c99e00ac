"""The fleet's spend over the last day, per hour (`GET /api/spend`), for the page's chart.

Read from this machine's state.db in a thread of its own (a read connection, as the CLI reads),
so a day of turns never holds the host's loop. The page asks again after the states the host
pushes (at most every few seconds) and once a minute, so the current hour fills in and the
window moves on. Tokens count as budgets count them (`wardian_core.db.spend`).
"""

import asyncio
import functools
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from aiohttp import web
from pydantic import BaseModel

from wardian_core.clock import format_timestamp
from wardian_core.db.connection import reading
from wardian_core.db.spend import spend_by_hour
from wardian_core.errors import WardianError

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]
HOURS = 24


class AgentSpend(BaseModel):
    agent: str
    turns: int
    tokens: int
    usd: float | None


class HourSpend(BaseModel):
    """One hour: `hour` its start (UTC); its sums over every agent, and each agent's share."""

    hour: str
    turns: int = 0
    tokens: int = 0
    usd: float | None = None
    agents: list[AgentSpend] = []


class Spend(BaseModel):
    """The answer: HOURS hours, oldest first, the last one the current hour (so far)."""

    since: str
    until: str
    hours: list[HourSpend]
    turns: int
    tokens: int
    usd: float | None


def first_hour(now: datetime) -> datetime:
    """The start of the chart's oldest hour: HOURS hours back, counting the current one."""
    return now.astimezone(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(hours=HOURS - 1)


def spend_since(rows: list[dict[str, Any]], now: datetime) -> Spend:
    """`rows`: `spend_by_hour`'s since `first_hour(now)`. Every hour is listed; one with no turn
    has zero tokens and an unknown cost."""
    first = first_hour(now)
    hours: dict[str, HourSpend] = {}
    for index in range(HOURS):
        start = first + timedelta(hours=index)
        hours[start.strftime("%Y-%m-%dT%H")] = HourSpend(hour=format_timestamp(start))
    for row in rows:
        hour = hours.get(str(row["hour"]))
        if hour is None:  # a turn stamped after now (a CLI's clock ahead of the host's)
            continue
        share = AgentSpend.model_validate(row)
        hour.agents.append(share)
        hour.turns += share.turns
        hour.tokens += share.tokens
        hour.usd = _added(hour.usd, share.usd)
    shown = list(hours.values())
    return Spend(
        since=format_timestamp(first),
        until=format_timestamp(now),
        hours=shown,
        turns=sum(hour.turns for hour in shown),
        tokens=sum(hour.tokens for hour in shown),
        usd=functools.reduce(_added, (hour.usd for hour in shown), None),
    )


def _added(total: float | None, part: float | None) -> float | None:
    """A sum that stays None until some part is known (as SQL's SUM does)."""
    if part is None:
        return total
    return round((total or 0) + part, 6)


def read_spend(home: Path, now: datetime | None = None) -> Spend:
    moment = now or datetime.now(UTC)
    with reading(home) as conn:
        rows = spend_by_hour(conn, format_timestamp(first_hour(moment)))
    return spend_since(rows, moment)


def spend_route(home: Path) -> Handler:
    async def spend(_: web.Request) -> web.StreamResponse:
        try:
            shown = await asyncio.to_thread(read_spend, home)
        except WardianError as error:  # state.db damaged or locked: the envelope says which
            return web.json_response(error.envelope(), status=500)
        return web.json_response(shown.model_dump(), headers={"Cache-Control": "no-store"})

    return spend
