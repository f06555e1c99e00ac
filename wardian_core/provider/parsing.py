"""The parser kit: a base class per kind of source, and the helpers behind them. Part of the
provider contract (see `wardian_core.provider`).

A provider's parser subclasses one base (`ScreenParser`, `HookLogParser`, `JsonLinesParser`,
`EventStreamParser`) and keeps its memory on `self`; the helpers make events with their
evidence (`event`, `usage_event`, `limit_event`), read JSON fields, strip escapes, watch the
stream for markers and time settle delays. `parsers_by_source` makes the `parse_output`
implementation that picks the parser of each source.
"""

from wardian_core.parsing.by_source import parsers_by_source
from wardian_core.parsing.escapes import TerminalText, squeeze, strip_escapes
from wardian_core.parsing.events import event, in_turn, screen_text
from wardian_core.parsing.hook_payloads import hook_payload, newest_hook, tool_data, tool_summary
from wardian_core.parsing.jsonl import api_error_message, json_object, lines_newest_first, object_field, text_field
from wardian_core.parsing.markers import MarkerWatch
from wardian_core.parsing.process_start import process_clock, started_after
from wardian_core.parsing.screen import ScreenSnapshot
from wardian_core.parsing.settle import Settle
from wardian_core.parsing.settled_box import BoxReport, SettledBox
from wardian_core.parsing.sources import (
    EventStreamParser,
    HookLogParser,
    JsonLinesParser,
    ScreenParser,
    SourceReader,
)
from wardian_core.parsing.sse import EventParser
from wardian_core.parsing.usage import (
    amount,
    count,
    epoch_milliseconds,
    epoch_time,
    iso_time,
    less,
    limit_event,
    plus,
    usage_event,
)

__all__ = [
    "BoxReport",
    "EventParser",
    "EventStreamParser",
    "HookLogParser",
    "JsonLinesParser",
    "MarkerWatch",
    "ScreenParser",
    "ScreenSnapshot",
    "Settle",
    "SettledBox",
    "SourceReader",
    "TerminalText",
    "amount",
    "api_error_message",
    "count",
    "epoch_milliseconds",
    "epoch_time",
    "event",
    "hook_payload",
    "in_turn",
    "iso_time",
    "json_object",
    "less",
    "limit_event",
    "lines_newest_first",
    "newest_hook",
    "object_field",
    "parsers_by_source",
    "plus",
    "process_clock",
    "screen_text",
    "squeeze",
    "started_after",
    "strip_escapes",
    "text_field",
    "tool_data",
    "tool_summary",
    "usage_event",
]
