"""Debian's chromium driven by Playwright, for the web view's tests: never a downloaded browser.

Every page gets a stand-in `Notification` that records what the view raises (`window.__notices`),
so a test can count notifications without a desktop to show them on.
"""

import json
from collections.abc import Iterator
from contextlib import contextmanager

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


def open_view(page: Page, url: str) -> None:
    """Log in with the one-time address and wait until the page's WebSocket is live."""
    page.goto(url)
    page.wait_for_function("document.getElementById('connection').textContent === 'live'")


def drawn_text(page: Page, selector: str) -> str:
    """What xterm drew in `selector`'s terminal, without spaces (TUIs move the cursor instead)."""
    text: str = page.eval_on_selector(selector, "node => node.querySelector('.xterm-rows').textContent")
    return "".join(text.split())


def typed_and_focused(page: Page, selector: str) -> list[object]:
    """[the text in `selector`'s input, whether it has the focus]: what a redraw must not take."""
    typed = f"document.querySelector({json.dumps(selector)})"
    result: list[object] = page.evaluate(f"[{typed}.value, document.activeElement === {typed}]")
    return result
