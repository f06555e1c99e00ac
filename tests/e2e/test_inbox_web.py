"""The person's queue at the top of the web view, in a real browser (Debian's chromium) on a
phone-sized page: what `wardian inbox` lists, above the tiles, and one tap that answers an entry.

The dialog is the example provider's fake CLI: it proves the view's plumbing (the tap takes the
path `send --approval` takes); the real CLIs' dialogs are proven in tests/real_cli/test_web_approval.py.
"""

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from browser import chromium_page, open_view, typed_and_focused, web_address

sys.path.insert(0, str(Path(__file__).parents[1] / "example_provider"))
pytest_plugins = ["wardian_test_packages"]

FAKE_CLIS = Path(__file__).parent / "fake_clis"
EXAMPLE_ENV = {"PATH": f"{FAKE_CLIS}{os.pathsep}{os.environ['PATH']}", "WARDIAN_PLUGINS": "generic,example"}
RunWardian = Callable[..., Any]


def test_the_queue_tops_a_phone_page_and_one_tap_approves_and_one_replies(
    provider_packages: Path,
    spawn: Callable[..., dict[str, Any]],
    wait_status: Callable[..., dict[str, Any]],
    run_wardian: RunWardian,
    workspace: Path,
    tmp_path: Path,
) -> None:
    example = run_wardian(
        "agent", "spawn", "--provider", "example", "--class", "Coder", "--name", "asker",
        "--workspace", str(workspace), env=EXAMPLE_ENV,
    )  # fmt: skip
    assert example.returncode == 0, example.stderr
    asker = example.json()["agent"]
    spawn("listener", "cat")
    wait_status("listener", "idle")
    asked = run_wardian("ask", "listener", "Ship it?", "--no-wait").json()["request_id"]
    assert run_wardian("agent", "kill", "listener").returncode == 0  # now only a person can reply
    wait_status("asker", "idle")
    run_wardian("send", "tool touch accepted.txt", "--to", "asker")
    wait_status("asker", "action_required")

    with chromium_page(390, 844) as page:
        open_view(page, lambda: web_address(run_wardian))
        dialog = f"#inbox li[data-entry='local:dialog:{asker['uuid']}']"
        page.wait_for_selector(f"{dialog} button[data-choice=accept]")
        # The queue is the first thing under the header, above every tile, and nothing is wider than the phone.
        assert page.evaluate("document.querySelector('#inbox').getBoundingClientRect().bottom") <= page.evaluate(
            "document.querySelector('#grid').getBoundingClientRect().top"
        )
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        kinds = page.eval_on_selector_all("#inbox li", "items => items.map(item => item.dataset.kind)")
        assert kinds == ["dialog", "ask"]
        page.screenshot(path=tmp_path / "inbox-phone.png")

        with page.expect_response(lambda response: response.url.endswith("/api/action")) as answered:
            page.click(f"{dialog} button[data-choice=accept]")  # one tap
        assert answered.value.ok and answered.value.json()["result"]["left_action_required"] is True
        page.wait_for_selector(dialog, state="detached")

        ask = f"#inbox li[data-entry='local:ask:{asked}']"
        page.fill(f"{ask} input", "yes, ship it")
        # Each state the host pushes draws the queue again; a reply being typed outlives them.
        drawn_twice = "async () => { const { entries } = await (await fetch('/api/inbox')).json();"
        page.evaluate(f"{drawn_twice} wardianInbox.draw(entries); wardianInbox.draw(entries); }}")
        assert typed_and_focused(page, f"{ask} input") == ["yes, ship it", True]
        with page.expect_response(lambda response: response.url.endswith("/api/action")) as answered:
            page.click(f"{ask} button[data-choice=done]")
        assert answered.value.ok
        page.wait_for_selector("#inbox", state="hidden")  # nothing needs you: the queue goes away

    assert (workspace / "accepted.txt").exists()
    reply = run_wardian("ask", "show", asked).json()["request"]["reply"]
    assert (reply["status"], reply["body"], reply["source"]) == ("done", "yes, ship it", "human")
    assert (tmp_path / "inbox-phone.png").stat().st_size > 0
