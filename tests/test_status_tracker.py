"""The status tracker's handling of dialogs: the open dialog decides which keys answer it."""

import json
from pathlib import Path

from wardian_core import identity
from wardian_core.db import open_writer
from wardian_core.parsing.events import event
from wardian_core.provider_models import PTY_SOURCE
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.agents.status_tracker import StatusTracker
from wardian_host.output.buffer import OutputBuffer


def test_a_dialog_replacing_the_open_one_updates_the_evidence_and_wakes_listeners(tmp_path: Path) -> None:
    conn = open_writer(tmp_path)
    row = identity.create_agent(conn, class_name="Coder", provider="claude", workspace=tmp_path, name="cc")
    agent = LiveAgent(row=dict(row), buffer=OutputBuffer(1024))
    seen: list[tuple[str, str | None]] = []
    agent.listeners.add(lambda live, status: seen.append((status, (live.status_evidence or {}).get("dialog"))))
    tracker = StatusTracker(conn, lambda *_: None)
    tracker.set_status(agent, "starting", {"source": "host"})

    tracker.apply_event(agent, event("approval_requested", PTY_SOURCE, "first-run", reason="trust", dialog="trust"))
    opened_at = agent.dialog_opened_at
    tracker.apply_event(
        agent, event("approval_requested", PTY_SOURCE, "first-run", reason="trust", dialog="trust_menu")
    )
    # The same dialog reported again changes nothing.
    tracker.apply_event(
        agent, event("approval_requested", PTY_SOURCE, "first-run", reason="trust", dialog="trust_menu")
    )

    assert seen == [("starting", None), ("action_required", "trust"), ("action_required", "trust_menu")]
    assert opened_at is not None and agent.dialog_opened_at is not None and agent.dialog_opened_at >= opened_at
    stored = conn.execute("SELECT status, status_evidence FROM agents WHERE uuid = ?", (agent.uuid,)).fetchone()
    assert (stored[0], json.loads(stored[1])["dialog"]) == ("action_required", "trust_menu")
    # Leaving the dialog returns to the status before the first one and clears its time.
    tracker.apply_event(agent, event("approval_resolved", PTY_SOURCE, "prompt", answer="accepted"))
    assert (agent.status, agent.dialog_opened_at) == ("starting", None)
    conn.close()
