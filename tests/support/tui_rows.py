"""Fixed rows for `wardian tui`'s screens (tests/tui): every status, a budgeted agent, a held
one and a limited one, with what `wardian inbox` adds to what the rows tell."""

from wardian_host.tui.budgets import budget_cell
from wardian_host.tui.queue import QueueEntry
from wardian_host.tui.roster import RosterRow

BUILDER_BUDGET = budget_cell(
    {"budget": {"tokens": 20000, "usd": 2.0}, "used": {"tokens": 11600, "usd": 0.4}, "held": None}
)
NIGHT_BUDGET = budget_cell({"budget": {"usd": 1.0}, "used": {"usd": 1.04}, "held": {"at": "2026-12-02T03:00:00Z"}})
assert BUILDER_BUDGET is not None and NIGHT_BUDGET is not None
ROWS = [
    RosterRow(name="reviewer", uuid="1", status="action_required", class_name="Reviewer", provider="claude",
              place="~/src/shop", usage="4t $0.31 ctx 22%", status_evidence={"message": "asks to run Bash"}),
    RosterRow(name="builder", uuid="2", status="processing", class_name="Coder", provider="codex",
              place="~/src/shop-wt/api", usage="12t ctx 61% limit 40%", budget=BUILDER_BUDGET.text),
    RosterRow(name="tester", uuid="3", status="error", class_name="Tester", provider="gemini",
              place="~/src/shop", status_evidence={"message": "exit 2"}),
    RosterRow(name="docs", uuid="4", status="idle", class_name="Writer", provider="opencode", place="~/src/site",
              limit="session limit, resets 21:57"),
    RosterRow(name="night", uuid="6", status="idle", class_name="Coder", provider="claude", place="~/src/shop",
              usage="30t $1.04", budget=NIGHT_BUDGET.text, held=NIGHT_BUDGET.held),
    RosterRow(name="shell", uuid="5", status="off", class_name="Coder", provider="generic", place="~/src/shop"),
]  # fmt: skip
# What `wardian inbox` adds to what the rows tell: the held agent (its kind sorts before an error).
ENTRIES = [QueueEntry(kind="budget", agent="night", summary="night reached its budget (1.04 of 1.0 usd)")]
SCREENS = {"reviewer": ["Bash command", "", "  rm -rf build/", "", "Do you want to proceed?", "❯ 1. Yes", "  2. No"]}
