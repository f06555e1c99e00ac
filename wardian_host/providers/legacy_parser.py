"""TRANSITION: contract 2's parser functions, wrapped as one parser object.

A provider whose `parse_output` still takes `data` and `state` keeps its memory in a
`parser_state` instance the host makes and hands to `source_opened`, `parse_output`,
`source_quiet` and `parse_screen`. Removed once every provider answers a parser object.
"""

import dataclasses
from typing import Any

from pydantic import BaseModel

from wardian_core.errors import WardianError
from wardian_core.parsing.screen import ScreenSnapshot
from wardian_core.provider_models import OutputSource, ParseResult, SpawnContext
from wardian_host.providers.manager import Plugins

LEGACY_HOOKS = {"parser_state", "source_opened", "source_quiet", "parse_screen"}


def is_legacy(plugins: Plugins, provider: str) -> bool:
    """Whether `provider` parses with contract 2's functions of the data and a host-made state."""
    hooks = set(plugins.record(provider).hooks)
    return bool(hooks & LEGACY_HOOKS) or "data" in plugins.hook_arguments(provider, "parse_output")


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


class LegacyParser:
    def __init__(self, plugins: Plugins, provider: str, ctx: SpawnContext, source: OutputSource) -> None:
        self._plugins, self._provider, self._ctx, self._source = plugins, provider, ctx, source
        self.state = new_parser_state(plugins, provider, source)

    def opened(self) -> ParseResult:
        return self._call("source_opened")

    def feed(self, data: bytes) -> ParseResult:
        return self._call("parse_output", data=data)

    def quiet(self) -> ParseResult:
        return self._call("source_quiet")

    def screen(self, snapshot: ScreenSnapshot) -> ParseResult:
        return self._call("parse_screen", screen=snapshot)

    def _call(self, hook: str, **extra: Any) -> ParseResult:
        if hook == "parse_output":  # contract 2 answers the result itself, not a parser
            result: ParseResult = self._plugins.call_as(
                self._provider, hook, ParseResult, ctx=self._ctx, source=self._source, state=self.state, **extra
            )
            return result
        answer: ParseResult = self._plugins.call(
            self._provider, hook, ctx=self._ctx, source=self._source, state=self.state, **extra
        )
        return answer
