"""The roster as the dashboard shows it: `agent list`'s records, this machine's and the
remotes', as rows that sort and filter."""

from dataclasses import dataclass
from datetime import datetime
from typing import Any, NamedTuple

# `wardian_host.remote.settings.LOCAL_MACHINE`, not imported: it loads the settings' models,
# 170 ms of a start that must stay under half a second.
LOCAL_MACHINE = "local"
# The columns shown, in order; each is a RosterRow attribute. `allowance` (the usage limit and
# the budget) comes next to the status, where 80 columns still show it, and only while some
# row has one.
COLUMNS = ("name", "status", "allowance", "class_name", "provider", "place", "machine", "usage")
WHEN_SET = ("allowance",)
HEADERS = {"class_name": "class", "place": "workspace", "allowance": "limit / budget"}
PLACE_WIDTH = 16
# A sort that puts what needs a person first: the order of the queue.
STATUS_ORDER = ("action_required", "error", "processing", "starting", "idle", "paused", "headless", "off")
# The fields a row is built from: `agent list --fields` of these.
LISTED_FIELDS = (
    *("name", "uuid", "class", "provider", "workspace", "worktree", "status", "status_evidence", "usage"),
    *("limit", "created_at"),
)


class BudgetCell(NamedTuple):
    """A local agent's budget column (`tui.budgets`), kept apart from its row: it is read after
    the roster, and a row read again keeps it until it is read again."""

    text: str  # `tokens [#####-----]  52%`; `held tokens [##########] 104%`
    held: bool


# A dataclass, not a pydantic model: a view of `agent list`'s records that never crosses a wire,
# and pydantic's import would cost the dashboard's start about 0.2 s.
@dataclass(frozen=True)
class RosterRow:
    name: str
    uuid: str
    status: str
    class_name: str
    provider: str
    place: str  # the worktree's folder when the agent works in one, else its workspace
    machine: str = LOCAL_MACHINE
    usage: str = ""
    limit: str = ""  # the usage limit it waits out, and when it resets
    budget: str = ""  # its use against its budget, as a bar (`budgets.budget_cell`)
    held: bool = False  # its budget holds it: it takes no prompts
    created_at: str = ""  # when it was spawned: a `minutes` budget counts from there
    status_evidence: dict[str, Any] | None = None

    @property
    def key(self) -> str:
        """What names the agent across machines, and what `wardian` takes: NAME or NAME@MACHINE."""
        return self.name if self.machine == LOCAL_MACHINE else f"{self.name}@{self.machine}"

    @property
    def allowance(self) -> str:
        return "; ".join(part for part in (self.limit, self.budget) if part)

    def cell(self, column: str) -> str:
        return str(getattr(self, column))

    def matches(self, text: str) -> bool:
        """The `/` filter: every word appears in some column (case ignored)."""
        cells = " ".join(self.cell(column) for column in COLUMNS).lower()
        return all(word in cells for word in text.lower().split())


def row_of(record: dict[str, Any], machine: str = LOCAL_MACHINE) -> RosterRow:
    worktree = record.get("worktree")
    place = worktree.get("folder") if isinstance(worktree, dict) else None
    return RosterRow(
        name=record["name"],
        uuid=record.get("uuid") or "",
        status=record.get("status") or "unknown",
        class_name=record.get("class") or "",
        provider=record.get("provider") or "",
        place=_short_path(place or record.get("workspace") or ""),
        machine=machine,
        usage=usage_text(record.get("usage")),
        limit=limit_text(record.get("limit")),
        created_at=record.get("created_at") or "",
        status_evidence=record.get("status_evidence"),
    )


def _short_path(path: str) -> str:
    """Home-relative, and its end alone when long: every column fits in 80."""
    import os.path

    home = os.path.expanduser("~")
    shown = "~" + path[len(home) :] if home != "/" and path.startswith(home + "/") else path
    return shown if len(shown) <= PLACE_WIDTH else "…" + shown[-(PLACE_WIDTH - 1) :]


def usage_text(usage: dict[str, Any] | None) -> str:
    """Turns, cost and context fill in a few characters; the tightest rate-limit window when reported."""
    if not usage or not usage.get("turns"):
        return ""
    parts = [f"{usage['turns']}t"]
    if usage.get("cost_usd") is not None:
        parts.append(f"${usage['cost_usd']:.2f}")
    fill = (usage.get("context") or {}).get("fill")
    if fill is not None:
        parts.append(f"ctx {fill:.0%}")
    limits = [window.get("used_percent") for window in usage.get("rate_limits") or []]
    known = [percent for percent in limits if percent is not None]
    if known:
        parts.append(f"limit {max(known):.0f}%")
    return " ".join(parts)


def limit_text(limit: dict[str, Any] | None, now: datetime | None = None) -> str:
    """`session limit, resets 21:57`: the limit's kind and its reset (or a retrying CLI's next
    try) in this machine's time, with the day when it is not today."""
    if not limit:
        return ""
    retrying = limit.get("state") == "retrying" and limit.get("retry_at")
    moment = limit.get("retry_at") if retrying else limit.get("resets_at")
    said = f"{limit.get('kind') or 'usage'} limit"
    if not moment:
        return f"{said}, reset unknown"
    try:
        when = datetime.fromisoformat(str(moment).replace("Z", "+00:00")).astimezone()
    except ValueError:
        return f"{said}, resets {moment}"
    today = (now or datetime.now().astimezone()).date()
    shown = when.strftime("%H:%M") if when.date() == today else when.strftime("%m-%d %H:%M")
    return f"{said}, {'retrying' if retrying else 'resets'} {shown}"


def local_rows() -> list[RosterRow]:
    """This machine's agents, as `agent list --fields …` answers them (with their usage)."""
    from wardian_host.answers.agents import AgentFilters, OutputFlags, fill_usage, listed_agents

    records, _ = listed_agents(AgentFilters())
    fill_usage(records, OutputFlags(fields_text=",".join(LISTED_FIELDS)).options())
    return [row_of(record) for record in records]


def remote_rows() -> tuple[list[RosterRow], list[str]]:
    """Every configured remote's agents, as `agent list --remote all` reads them; and the remotes
    that did not answer. Slow (ssh): never on the start-up path."""
    from wardian_core import paths
    from wardian_host.remote.roster import chosen_remotes, remote_rosters

    remotes = chosen_remotes(paths.wardian_home(), "all")
    rows: list[RosterRow] = []
    unreachable: list[str] = []
    for roster in remote_rosters(remotes, ["--fields", ",".join(LISTED_FIELDS)]):
        if roster.error is not None:
            unreachable.append(roster.machine)
        rows += [row_of(record, roster.machine) for record in roster.agents]
    return rows, unreachable


def has_remotes() -> bool:
    from wardian_core import paths
    from wardian_host.remote.settings import configured_remotes

    return bool(configured_remotes(paths.wardian_home()))


def sorted_rows(rows: list[RosterRow], by: str) -> list[RosterRow]:
    """By `status` (what needs a person first) or by any column, then by name."""
    if by == "status":

        def rank(row: RosterRow) -> tuple[int, str]:
            order = STATUS_ORDER.index(row.status) if row.status in STATUS_ORDER else len(STATUS_ORDER)
            return order, row.key

        return sorted(rows, key=rank)
    return sorted(rows, key=lambda row: (row.cell(by).lower(), row.key))


def evidence_text(row: RosterRow) -> str:
    """Why the agent has its status, as the host recorded it (source, rule, line)."""
    evidence = row.status_evidence or {}
    if not evidence:
        return f"{row.key}: {row.status} (no evidence recorded)"
    lines = [f"{row.key}: {row.status}"]
    lines += [f"  {key}: {value}" for key, value in evidence.items() if value not in (None, "", [], {})]
    return "\n".join(lines)
