"""A provider's line parser checked against its own rests (`ParseResult.rests`).

A new host replays a followed file from the last line after which its parser said it was at
rest (and asked the host for nothing): from there a new parser must say what the parser that
read everything says. This feeds recorded lines to one parser, then, from every rest, the
lines after it to a new one.
"""

from collections.abc import Callable
from typing import Any

from wardian_core.provider_models import ParseResult


def rests_of(new_parser: Callable[[], Any], lines: list[bytes]) -> list[bool]:
    """Whether each line is a rest, once every resume from a rest was checked to read the same."""
    reader = new_parser()
    results: list[ParseResult] = [reader.feed(line) for line in lines]
    for index, result in enumerate(results):
        if not result.rests():
            continue
        resumed = new_parser()
        for later, expected in zip(lines[index + 1 :], results[index + 1 :], strict=True):
            again = resumed.feed(later)
            assert again.events == expected.events, f"resumed after line {index}: {later[:120]!r}"
            assert again.rests() == expected.rests(), f"resumed after line {index}: {later[:120]!r}"
    return [result.rests() for result in results]
