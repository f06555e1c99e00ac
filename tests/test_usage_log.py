"""The host keeps what `usage_reported` says: once per turn, at the CLI's time, no status change."""

from pathlib import Path
from typing import Any

from wardian_core import identity
from wardian_core.clock import iso_days_ago
from wardian_core.db import open_writer
from wardian_core.db.agents import agent_row
from wardian_core.db.events import KEEP_DAYS
from wardian_core.db.usage import list_usage
from wardian_core.parsing.events import event
from wardian_core.provider_models import OutputSource, UsageReport
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.agents.status_tracker import StatusTracker
from wardian_host.output.buffer import OutputBuffer


def test_a_reported_turn_is_stored_once_without_changing_status(tmp_path: Path) -> None:
    conn = open_writer(tmp_path)
    row = identity.create_agent(conn, class_name="Coder", provider="codex", workspace=tmp_path, name="cx")
    agent = LiveAgent(row=agent_row(row), buffer=OutputBuffer(1024))
    shown: list[dict[str, Any]] = []
    agent.event_listeners.add(shown.append)
    tracker = StatusTracker(conn, lambda *_: None)
    tracker.set_status(agent, "processing", {"source": "host"})
    rollout = OutputSource(name="codex-rollout", kind="file", path=tmp_path / "rollout.jsonl")
    report = UsageReport(
        turn_key="offset:120",
        model="gpt",
        input_tokens=7,
        output_tokens=3,
        context_window=1000,
        recorded_at="2026-11-20T08:00:00.000Z",
    )
    reported = event("usage_reported", rollout, "token_count", "token_count", usage=report)

    tracker.apply_event(agent, reported)
    tracker.apply_event(agent, reported)  # a re-read of the same record

    stored = list_usage(conn, agent.uuid)
    assert [(turn["turn_key"], turn["input_tokens"], turn["cost_usd"]) for turn in stored] == [("offset:120", 7, None)]
    assert stored[0]["evidence"]["source"] == "codex-rollout"
    assert stored[0]["at"] == "2026-11-20T08:00:00.000Z"  # the CLI's time: its day, however late it is read
    assert [entry["kind"] for entry in shown] == ["status"]  # watched events stay status changes

    # A record older than the table keeps (read again after a restart) was pruned: not stored again.
    old = report.model_copy(update={"turn_key": "offset:0", "recorded_at": iso_days_ago(KEEP_DAYS + 1)})
    tracker.apply_event(agent, event("usage_reported", rollout, "token_count", "token_count", usage=old))
    assert [turn["turn_key"] for turn in list_usage(conn, agent.uuid)] == ["offset:120"]
    assert agent.status == "processing"
    conn.close()
