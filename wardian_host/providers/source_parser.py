"""One source's parser for one launch, as every caller of a provider's parser sees it.

Every caller that parses provider output — the live feed, headless runs, replays of
recordings, the conformance suite — goes through this class: it asks the provider's
`parse_output` for the source's parser once, keeps that parser's context current and
makes the open, data, quiet, screen and caught-up calls the same way, each guarded and checked by
`Plugins.parser_call` (a raising parser is counted against its provider).
"""

from collections.abc import Callable
from typing import Any

from wardian_core.parsing.screen import ScreenSnapshot
from wardian_core.provider_models import OutputSource, ParseResult, SpawnContext
from wardian_host.providers.manager import Plugins


class SourceParser:
    """`source`'s parser from `provider`, asked for at the first call (with that call's context)."""

    def __init__(self, plugins: Plugins, provider: str, source: OutputSource) -> None:
        self._plugins = plugins
        self.provider = provider
        self.source = source
        self._ctx: SpawnContext | None = None
        self.parser: Any = None

    def start(self, ctx: SpawnContext) -> None:
        """Ask the provider for the parser now; its `WardianError` (a bad answer) leaves the source unparsed."""
        if self._ctx is not None:
            return
        # The provider's parser may keep this context: it is this parser's own copy, kept current in place.
        self._ctx = ctx.model_copy()
        self.parser = self._plugins.parse_output(self.provider, ctx=self._ctx, source=self.source)

    def opened(self, ctx: SpawnContext) -> ParseResult:
        return self._call(ctx, "opened", lambda method: method())

    def parse(self, ctx: SpawnContext, data: bytes) -> ParseResult:
        if not data:
            return ParseResult()  # data is never empty: that was v1's ambiguous "opened or quiet"
        return self._call(ctx, "feed", lambda method: method(data))

    def quiet(self, ctx: SpawnContext) -> ParseResult:
        return self._call(ctx, "quiet", lambda method: method())

    def screen(self, ctx: SpawnContext, snapshot: ScreenSnapshot) -> ParseResult:
        return self._call(ctx, "screen", lambda method: method(snapshot))

    def caught_up(self, ctx: SpawnContext) -> ParseResult:
        return self._call(ctx, "caught_up", lambda method: method())

    def _call(self, ctx: SpawnContext, name: str, call: Callable[[Callable[..., Any]], Any]) -> ParseResult:
        self.start(ctx)
        method = getattr(self.parser, name, None)
        if method is None:
            return ParseResult()  # no parser for this source, or one without this optional method
        assert self._ctx is not None  # set by start
        if self._ctx.provider_session_id != ctx.provider_session_id:  # a model's assignment costs a check
            self._ctx.provider_session_id = ctx.provider_session_id
        return self._plugins.parser_call(self.provider, name, lambda: call(method))
