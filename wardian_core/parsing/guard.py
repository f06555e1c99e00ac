"""The provider contract's rule that a parser never raises, in one place: a parser hook wrapped
here answers an empty result for input it could not read (logged at debug level for whoever
looks into a provider that went quiet)."""

import functools
import logging
from collections.abc import Callable
from typing import ParamSpec

from wardian_core.provider_models import ParseResult

log = logging.getLogger(__name__)
P = ParamSpec("P")


def never_raises(parse: Callable[P, ParseResult]) -> Callable[P, ParseResult]:
    @functools.wraps(parse)
    def guarded(*args: P.args, **kwargs: P.kwargs) -> ParseResult:
        try:
            return parse(*args, **kwargs)
        except Exception:  # noqa: BLE001 - a parser must never take an agent down with it
            log.debug("%s.%s could not read its input", parse.__module__, parse.__qualname__, exc_info=True)
            return ParseResult()

    return guarded
