"""A provider's PTY parser fed recorded bytes the way the host feeds it, for its TUI unit tests.

`Terminal` keeps a screen model beside the parser, looks at the screen when the parser
asks, and holds the delay of a `call_again_after` for the test to run the quiet call itself.
"""

from collections.abc import Callable
from typing import Any

from wardian_core.parsing.escapes import squeeze, strip_escapes
from wardian_core.parsing.screen import ScreenModel
from wardian_core.provider_models import PTY_SOURCE, ParseResult, ProviderEvent, SpawnContext


def offset_after(data: bytes, text: str, start: int = 0) -> int:
    """The end of the shortest prefix of `data` past `start` whose visible text shows `text` there."""
    wanted = squeeze(text)

    def shows(end: int) -> bool:
        return wanted in squeeze(strip_escapes(data[start:end].decode("utf-8", "replace")))

    low, high = start, len(data)
    assert shows(high), f"{text!r} never shows"
    while low < high:
        middle = (low + high) // 2
        low, high = (low, middle) if shows(middle) else (middle + 1, high)
    return low


class Terminal:
    """The PTY parser `plugin` (a provider's hook implementations) answers, with a screen model."""

    def __init__(self, plugin: Any, make_ctx: Callable[[], SpawnContext]) -> None:
        self.plugin = plugin
        self.ctx = make_ctx()
        self.screen = ScreenModel()
        self.parser = plugin.parse_output(ctx=self.ctx, source=PTY_SOURCE)
        self.fed = 0
        self.delay: float | None = None

    def feed(self, data: bytes) -> list[ProviderEvent]:
        self.screen.feed(data)
        self.fed += len(data)
        return self._take(self.parser.feed(data))

    def feed_to(self, data: bytes, end: int) -> list[ProviderEvent]:
        """Feed `data` up to `end`, in reads of at most 512 bytes."""
        events = []
        while self.fed < end:
            events += self.feed(data[self.fed : min(end, self.fed + 512)])
        return events

    def quiet(self) -> list[ProviderEvent]:
        assert self.delay is not None, "no quiet call was asked for"
        self.delay = None
        return self._take(self.parser.quiet())

    def approval_once_quiet(self) -> tuple[object, object, str]:
        """What the quiet call answers, one approval request: its reason, dialog and rule."""
        [asked] = self.quiet()
        assert asked.kind == "approval_requested", asked
        return asked.reason, asked.dialog, asked.evidence.rule

    def _take(self, result: ParseResult) -> list[ProviderEvent]:
        events = list(result.events)
        if result.call_again_after is not None:
            self.delay = result.call_again_after
        if result.want_screen:
            snapshot = self.screen.snapshot()
            events += self._take(self.parser.screen(snapshot))
        return events


def kinds(events: list[ProviderEvent]) -> list[str]:
    return [event.kind for event in events]
