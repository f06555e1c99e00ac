"""Debian's chromium driven by Playwright, for the web view's tests: never a downloaded browser.

Every page gets a stand-in `Notification` that records what the view raises (`window.__notices`),
so a test can count notifications without a desktop to show them on.
"""

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from playwright.sync_api import Page, sync_playwright

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
NOTIFICATION_RECORDER = """
window.__notices = [];
window.Notification = class {
  static permission = "granted";
  static requestPermission() { return Promise.resolve("granted"); }
  constructor(title, options) { window.__notices.push(Object.assign({ title }, options)); }
};
"""


@contextmanager
def chromium_page(width: int = 1400, height: int = 900) -> Iterator[Page]:
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        try:
            context = browser.new_context(viewport={"width": width, "height": height})
            context.set_default_timeout(90_000)  # a failure's guard, not a target: CI shares two cores
            context.add_init_script(NOTIFICATION_RECORDER)
            yield context.new_page()
        finally:
            browser.close()


LIVE = "document.getElementById('connection').textContent === 'live'"


def web_address(run_wardian: Callable[..., Any]) -> str:
    """A new one-time login address, by `wardian web` (an end-to-end test's `run_wardian`)."""
    result = run_wardian("web")
    assert result.returncode == 0, result.stderr
    url: str = result.json()["web"]["url"]
    return url


def open_view(page: Page, new_address: Callable[[], str]) -> str:
    """Log in with a one-time address asked for now, and wait until the page's WebSocket is live.

    The address is made once the browser is up: a login lasts a minute, and a browser's start
    on a busy machine took longer (a CI run's page met "this page needs a login"). Returns it."""
    url = new_address()
    response = page.goto(url)
    assert response is not None and response.ok, f"the view refused the login: {response and response.status}"
    page.wait_for_function(LIVE)
    return url


def drawn_text(page: Page, selector: str) -> str:
    """What xterm drew in `selector`'s terminal, without spaces (TUIs move the cursor instead)."""
    text: str = page.eval_on_selector(selector, "node => node.querySelector('.xterm-rows').textContent")
    return "".join(text.split())


def typed_and_focused(page: Page, selector: str) -> list[object]:
    """[the text in `selector`'s input, whether it has the focus]: what a redraw must not take."""
    typed = f"document.querySelector({json.dumps(selector)})"
    result: list[object] = page.evaluate(f"[{typed}.value, document.activeElement === {typed}]")
    return result
