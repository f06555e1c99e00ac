"""Claude Code's first run in a folder it has never seen, through `wardian`, against the model server.

The user's Claude configuration (`CLAUDE_CONFIG_DIR/.claude.json`) has finished onboarding and
approved the API key, but has never seen the new git repository the agents are spawned in:
Claude asks whether to trust it as it starts. The answer is kept where Claude keeps it for the
user, so the next agent in that folder starts without asking.
"""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from wardian_cli import WardianCli, never_asked, new_repository

from wardian_core.provider.testing import reap_home

pytestmark = pytest.mark.real_cli

# The question both tested versions draw above their options ("Quick safety check: Is this a
# project you created or one you trust?", "is" in 2.1.330).
QUESTION = "a project you created or one you trust?"


@pytest.fixture
def wardian(
    wardian_home: Path, claude_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[WardianCli]:
    """`wardian` whose agents are spawned in a new repository, with the user's own Claude config.

    The home is taken before the real-CLI fixture drops every WARDIAN_ variable, then set again."""
    home = wardian_home
    for key, value in claude_cli.env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("WARDIAN_HOME", str(home))
    monkeypatch.setenv("WARDIAN_CLAUDE_EXECUTABLE", str(claude_cli.executable))
    monkeypatch.setenv("WARDIAN_PLUGINS", "claude")
    try:
        yield WardianCli(home, new_repository(tmp_path), claude_cli, "claude")
    finally:
        reap_home(home)


def user_trust(claude_cli: Any, folder: Path) -> object:
    config = json.loads((Path(claude_cli.env["CLAUDE_CONFIG_DIR"]) / ".claude.json").read_text())
    return config.get("projects", {}).get(str(folder), {}).get("hasTrustDialogAccepted")


def asks_to_trust(wardian: WardianCli, name: str) -> dict[str, Any]:
    """Claude asks as it starts, before its prompt: the question on screen, in the evidence."""
    evidence = wardian.wait(name, "action_required", "approval_requested")["status_evidence"]
    assert (evidence["source"], evidence["reason"]) == ("pty", "trust"), evidence
    assert evidence["dialog"] in {"trust", "trust_menu"}, evidence
    assert QUESTION in evidence["message"] and "as Claude starts" in evidence["message"], evidence
    rows = wardian("agent", "screen", name)["screen"]["rows"]
    assert any(QUESTION in row for row in rows), rows
    assert [event["to"] for event in wardian.watch(name)["events"]] == ["starting", "action_required"]
    return evidence


def takes_a_turn(wardian: WardianCli, name: str, token: str) -> None:
    sent = wardian("send", f"hello ECHO:{token}", "--to", name, "--wait-until", "idle", "--timeout", "60s")
    assert (sent["agent"]["status_evidence"]["event"], sent["agent"]["status_evidence"]["rule"]) == (
        "turn_completed",
        "hook Stop",
    )
    assert any(f"ECHO:{token}" in request.body_text() for request in wardian.cli.server.model_requests())
    wardian.output_shows(name, f"MOCK-REPLY {token}")


def test_a_refused_trust_ends_claude_and_is_asked_again_and_a_trust_accepted_once_is_not(
    wardian: WardianCli,
) -> None:
    """Three agents in the new repository, in turn: the first refuses the trust, the second is
    asked again and accepts, the third is not asked. Each is the fresh start it proves (a refused
    trust is never kept, so the accepted one can follow it: a start saved)."""
    a_refused_trust_ends_claude_and_is_not_kept(wardian)
    a_trust_accepted_once_is_not_asked_again_by_the_next_agent(wardian, "second", "third")
    wardian.cli.assert_only_model_server_was_called()


def a_refused_trust_ends_claude_and_is_not_kept(wardian: WardianCli) -> None:
    wardian.spawn("first")
    asks_to_trust(wardian, "first")
    assert user_trust(wardian.cli, wardian.workspace) is None

    answer = wardian("send", "--approval", "reject", "--to", "first", "--timeout", "30s")

    assert answer["left_action_required"] is True
    # "No, exit": Claude leaves without a prompt. 2.1.330 says why and exits 0 (`off`, the
    # refusal read from its words); 2.1.197 exits 1 without a word (`error`).
    if "claude-2.1.197" in str(wardian.cli.executable):
        gone = wardian.wait("first", "error", "exit")["status_evidence"]
        assert (gone["exit_code"], gone["rule"]) == (1, "unexpected exit"), gone
    else:
        gone = wardian.wait("first", "off", "exit")["status_evidence"]
        assert (gone["exit_code"], gone["rule"]) == (0, "clean exit"), gone
        left = [event["evidence"] for event in wardian.watch("first")["events"] if event["from"] == "action_required"]
        assert [(evidence["event"], evidence.get("answer")) for evidence in left] == [("approval_resolved", "rejected")]
        wardian.output_shows("first", "didn't start because this folder isn't trusted")
    assert not wardian.cli.server.model_requests()
    assert user_trust(wardian.cli, wardian.workspace) is not True


def a_trust_accepted_once_is_not_asked_again_by_the_next_agent(wardian: WardianCli, asked: str, next_one: str) -> None:
    """A refusal is not a trust: `asked` is asked again; its acceptance spares `next_one`."""
    wardian.spawn(asked)
    asks_to_trust(wardian, asked)

    answer = wardian("send", "--approval", "accept", "--to", asked, "--timeout", "30s")

    assert answer["left_action_required"] is True
    wardian.wait(asked, "idle", "ready")
    left = [event["evidence"] for event in wardian.watch(asked)["events"] if event["from"] == "action_required"]
    assert [(evidence["event"], evidence.get("answer")) for evidence in left] == [("approval_resolved", "accepted")]
    takes_a_turn(wardian, asked, "trusted1")
    # Claude keeps the answer in the user's own config, which every agent's Claude reads.
    assert user_trust(wardian.cli, wardian.workspace) is True

    wardian.spawn(next_one)
    wardian.wait(next_one, "idle", "ready")

    assert never_asked(wardian, next_one)
    takes_a_turn(wardian, next_one, "trusted2")


@pytest.mark.parametrize("trusted", ["repository", "above the repository"])
def test_a_trust_given_outside_wardian_covers_the_folders_below_it(wardian: WardianCli, trusted: str) -> None:
    """A trust the user gave by hand covers a workspace below the folder, within its git
    repository; 2.1.330 draws the line there (a folder above a repository does not cover it,
    Claude's own rule), 2.1.197 does not."""
    folder = wardian.workspace if trusted == "repository" else wardian.workspace.parent
    config_file = Path(wardian.cli.env["CLAUDE_CONFIG_DIR"]) / ".claude.json"
    config = json.loads(config_file.read_text())
    config["projects"][str(folder)] = {"hasTrustDialogAccepted": True}
    config_file.write_text(json.dumps(config))
    below = WardianCli(wardian.home, wardian.workspace / "service", wardian.cli, "claude")
    below.workspace.mkdir()

    below.spawn("below")

    if trusted != "repository" and "claude-2.1.197" not in str(wardian.cli.executable):
        asks_to_trust(below, "below")
        return
    below.wait("below", "idle", "ready")
    assert never_asked(below, "below")
    takes_a_turn(below, "below", "above1")
