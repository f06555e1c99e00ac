"""The web view's Approve and Reject against the real Codex CLI (0.169.0) and the loopback model server.

The whole session runs in the loopback-only network namespace (docs/real-cli-tests.md), and
chromium with it. One run proves what the example provider's browser test cannot: a real
CLI's tool dialog shows on the page first, Approve runs the tool, Reject does not.
"""

from collections.abc import Iterator
from pathlib import Path

import pytest
from browser import chromium_page, open_view
from playwright.sync_api import Page
from wardian_cli import WardianCli

from wardian_host.testing.reaping import reap_home

pytestmark = pytest.mark.real_cli

MOCK_API_KEY = "sk-mock-0123456789abcdefghijklmnopqrstuvwxyz"
CODEX_TURN_MS = 90_000  # a Codex turn on this shared machine: its start, the model call, the dialog


@pytest.fixture
def wardian(codex_cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[WardianCli]:
    """`wardian` with the real Codex beside generic agents; the user's Codex home points at the model server."""
    wardian_home = tmp_path / "wardian-home"
    wardian_home.mkdir(exist_ok=True)
    monkeypatch.setenv("WARDIAN_HOME", str(wardian_home))  # codex_cli's isolated home dropped it
    monkeypatch.setenv("WARDIAN_CODEX_EXECUTABLE", str(codex_cli.executable))
    monkeypatch.setenv("MOCK_MODEL_API_KEY", MOCK_API_KEY)
    monkeypatch.setenv("WARDIAN_PLUGINS", "codex,generic")
    monkeypatch.delenv("CODEX_HOME", raising=False)
    try:
        yield WardianCli(wardian_home, codex_cli.workspace.resolve(), codex_cli, "codex")
    finally:
        reap_home(wardian_home)


def _answer_from_the_page(page: Page, uuid: str, button: str) -> None:
    tile = f"#agent-{uuid}"
    page.wait_for_selector(f"{tile}[data-status=action_required] button.{button}", timeout=CODEX_TURN_MS)
    assert page.evaluate("document.querySelector('#grid').firstElementChild.id") == f"agent-{uuid}"
    with page.expect_response(lambda response: response.url.endswith("/api/action"), timeout=CODEX_TURN_MS) as sent:
        page.click(f"{tile} button.{button}")
    assert sent.value.status == 200, sent.value.text()
    assert sent.value.json()["result"]["left_action_required"] is True


def test_a_codex_tool_dialog_is_approved_then_refused_from_the_page(wardian: WardianCli, tmp_path: Path) -> None:
    shell = ["--provider", "generic", "--class", "Shell", "--name", "aa-shell", "--workspace", str(wardian.workspace)]
    wardian("agent", "spawn", *shell, "--", "bash", "--norc")
    codex = wardian.spawn("cx")
    wardian.wait("cx", "idle", "ready")
    with chromium_page() as page:
        open_view(page, lambda: wardian("web")["web"]["url"])
        wardian("send", "run MOCK_ESCALATE MOCK_TOOL:touch approved.txt ECHO:w1", "--to", "cx")
        page.wait_for_selector(f"#agent-{codex['uuid']}[data-status=action_required]", timeout=CODEX_TURN_MS)
        page.screenshot(path=tmp_path / "codex-approval.png", full_page=True)
        assert "touchapproved.txt" in "".join(page.inner_text(f"#agent-{codex['uuid']} .dialog").split())
        assert not (wardian.workspace / "approved.txt").exists()
        _answer_from_the_page(page, codex["uuid"], "approve")
        wardian.wait("cx", "idle", "turn_completed")
        assert (wardian.workspace / "approved.txt").exists()

        wardian("send", "run MOCK_ESCALATE MOCK_TOOL:touch refused.txt ECHO:w2", "--to", "cx")
        _answer_from_the_page(page, codex["uuid"], "reject")
        wardian.wait("cx", "idle", "turn_completed")
        page.wait_for_selector(f"#agent-{codex['uuid']}[data-status=idle]")
    assert not (wardian.workspace / "refused.txt").exists()
    assert (tmp_path / "codex-approval.png").stat().st_size > 0
