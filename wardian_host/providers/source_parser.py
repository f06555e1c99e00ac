"""One source's parser: its provider's hooks for that source, and the memory they share.

Every caller that parses provider output — the live feed, headless runs, replays of
recordings, the conformance suite — goes through this class, so each creates the
parser's state and makes the open, data, quiet and screen calls the same way.
"""

import dataclasses
from typing import Any

from pydantic import BaseModel

from wardian_core.errors import WardianError
from wardian_core.parsing.screen import ScreenSnapshot
from wardian_core.provider_models import OutputSource, ParseResult, SpawnContext
from wardian_host.providers.manager import Plugins


def new_parser_state(plugins: Plugins, provider: str, source: OutputSource) -> Any:
    """The provider's declared state class for `source`, freshly made; a dict when it declares none."""
    state_class = plugins.call(provider, "parser_state", source=source)
    if state_class is None:
        return {}
    usable = isinstance(state_class, type) and (
        dataclasses.is_dataclass(state_class) or issubclass(state_class, BaseModel)
    )
    if not usable:
        raise WardianError(
            "validation_failed",
            f"provider {provider!r} answered parser_state with {state_class!r}, not a dataclass or pydantic model",
            "This is a bug in the provider plugin; report it to the authors of its package.",
            {"provider": provider, "hook": "parser_state"},
        )
    try:
        return state_class()
    except Exception as exc:
        raise WardianError(
            "validation_failed",
            f"provider {provider!r}: its parser state {state_class.__name__} cannot be made without arguments: {exc}",
            "This is a bug in the provider plugin; report it to the authors of its package.",
            {"provider": provider, "hook": "parser_state"},
        ) from exc


class SourceParser:
    def __init__(self, plugins: Plugins, provider: str, source: OutputSource) -> None:
        self._plugins = plugins
        self.provider = provider
        self.source = source
        self.state = new_parser_state(plugins, provider, source)

    def opened(self, ctx: SpawnContext) -> ParseResult:
        return self._call("source_opened", ctx)

    def parse(self, ctx: SpawnContext, data: bytes) -> ParseResult:
        if not data:
            return ParseResult()  # data is never empty: that was v1's ambiguous "opened or quiet"
        return self._call("parse_output", ctx, data=data)

    def quiet(self, ctx: SpawnContext) -> ParseResult:
        return self._call("source_quiet", ctx)

    def screen(self, ctx: SpawnContext, snapshot: ScreenSnapshot) -> ParseResult:
        return self._call("parse_screen", ctx, screen=snapshot)

    def _call(self, hook: str, ctx: SpawnContext, **extra: Any) -> ParseResult:
        result: ParseResult = self._plugins.call(
            self.provider, hook, ctx=ctx, source=self.source, state=self.state, **extra
        )
        return result
