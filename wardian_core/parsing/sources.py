"""The parser bases: one per kind of source, each holding what every parser of that kind needs.

A provider's parser is a small subclass with its own rules and its own memory on `self`:

- `ScreenParser`: the PTY. The stream only says when to look (markers, see `MarkerWatch`); the
  rules read the screen a person sees (`read`), and settle delays come back through `quiet`.
- `HookLogParser`: the JSON lines a hook recorder appends, one hook payload a line, another
  session's payloads told apart.
- `JsonLinesParser`: one JSON object a line (session files, rollouts, headless stdout).
- `EventStreamParser`: one server-sent event's data a call, a JSON object.

Each answers `parse_output` as a `SourceParser` (see `wardian_core.hookspecs`).
"""

from pathlib import Path
from typing import Any

from wardian_core.parsing.events import event, screen_text
from wardian_core.parsing.hook_payloads import hook_payload
from wardian_core.parsing.jsonl import json_object, text_field
from wardian_core.parsing.markers import MarkerWatch
from wardian_core.parsing.screen import ScreenSnapshot
from wardian_core.provider_models import EventKind, OutputSource, ParseResult, ProviderEvent, SpawnContext


class SourceReader:
    """One source of one launch. `ctx` is the launch's context, kept current by the host (its
    `provider_session_id` is set once an event made it known); a replay or a test may give none."""

    def __init__(self, source: OutputSource, ctx: SpawnContext | None = None) -> None:
        self.source = source
        self.ctx = ctx

    def event(self, kind: EventKind, rule: str, line: str | None = None, **fields: Any) -> ProviderEvent:
        """`kind` from this parser's source, decided by `rule` on `line` (see `events.event`)."""
        return event(kind, self.source, rule, line, **fields)

    @property
    def known_session(self) -> str | None:
        """The provider's session id as the host knows it now."""
        return self.ctx.provider_session_id if self.ctx is not None else None

    @property
    def interactive(self) -> bool:
        return self.ctx is not None and self.ctx.mode == "interactive"


class ScreenParser(SourceReader):
    """The PTY: raw chunks to `feed`, the screen a person sees to `screen`.

    A subclass names the markers worth a look now (`markers`), reads the screen (`read`) and,
    where it asked for a delay (`ParseResult.call_again_after`), says in `quiet` what is due.
    `ready` is set once by `became_ready`; `settled_look` tells `read` that the look was asked for
    by a settle delay coming due (`look_when_settled`)."""

    def __init__(self, source: OutputSource, ctx: SpawnContext | None = None) -> None:
        super().__init__(source, ctx)
        self.stream = MarkerWatch()
        self.ready = False
        self.settled_look = False

    def markers(self) -> tuple[str, ...]:
        """The squeezed markers whose sight in the stream asks for a look now."""
        raise NotImplementedError

    def signalled(self, data: bytes) -> bool:
        """A signal in the raw bytes, read before the markers, that asks for a look by itself."""
        return False

    def stream_events(self, data: bytes) -> list[ProviderEvent]:
        """Events told by the stream itself (text printed after the TUI is gone)."""
        return []

    def feed(self, data: bytes) -> ParseResult:
        signalled = self.signalled(data)
        want_screen = self.stream.saw_any(data, self.markers())
        return ParseResult(events=self.stream_events(data), want_screen=want_screen or signalled)

    def screen(self, snapshot: ScreenSnapshot) -> ParseResult:
        settled, self.settled_look = self.settled_look, False
        return self.read(snapshot.rows, screen_text(snapshot.rows), settled)

    def read(self, rows: list[str], text: str, settled: bool) -> ParseResult:
        """The screen's rows, and their text as one; `settled`: a settle delay asked for this look."""
        raise NotImplementedError

    def quiet(self) -> ParseResult:
        return ParseResult()

    def look_when_settled(self) -> ParseResult:
        """In `quiet`: look again, as a settled look."""
        self.settled_look = True
        return ParseResult(want_screen=True)

    def became_ready(self, rule: str, marker: str) -> ProviderEvent:
        self.ready = True
        return self.event("ready", rule, marker)

    def hook_log(self) -> Path | None:
        """Where this launch's hooks write, for a provider with a hook recorder; None in a
        headless run or a replay (no context), where the screen alone decides."""
        if self.ctx is None or not self.interactive:
            return None
        return self.hook_log_of(self.ctx)

    def hook_log_of(self, ctx: SpawnContext) -> Path | None:
        return None


class JsonLinesParser(SourceReader):
    """One JSON object a line; a line that is none says nothing. `read` gets the object and the
    line as text (for evidence). `at_rest`: every line leaves the parser as a new one would be
    (a stateless reader: a file of weeks is then not replayed from its start)."""

    at_rest = False

    def feed(self, data: bytes) -> ParseResult:
        record = json_object(data)
        result = ParseResult() if record is None else self.read(record, data.decode("utf-8", "replace"))
        if self.at_rest:
            result.at_rest = True
        return result

    def read(self, record: dict[str, Any], line: str) -> ParseResult:
        raise NotImplementedError


class EventStreamParser(JsonLinesParser):
    """A server-sent events stream (`kind="sse"`): each call is one event's data, a JSON object
    (the host splits the stream with `EventParser`)."""


class HookLogParser(SourceReader):
    """The JSON lines a hook recorder appends: one payload a line, named by its hook
    (`hook_event_name`). `session_id` is the session a start hook named; payloads of another
    session are the subclass's to ignore (`another_session`). After each line the parser tells
    whether it is at rest (`rests`): by default, when it holds no session but the host's."""

    def __init__(self, source: OutputSource, ctx: SpawnContext | None = None) -> None:
        super().__init__(source, ctx)
        self.session_id: str | None = None

    def feed(self, data: bytes) -> ParseResult:
        payload = hook_payload(data)
        result = ParseResult() if payload is None else self.read(*payload)
        result.at_rest = self.rests()
        return result

    def read(self, record: dict[str, Any], name: str) -> ParseResult:
        raise NotImplementedError

    def expected_session(self) -> str | None:
        return self.session_id or self.known_session

    def another_session(self, record: dict[str, Any]) -> bool:
        """The payload names a session other than the one this parser follows."""
        expected, named = self.expected_session(), text_field(record, "session_id")
        return bool(expected and named and named != expected)

    def rests(self) -> bool:
        """Whether the parser holds what a new one would take from the launch's context: no
        session, or the one the host knows (`ParseResult.at_rest`)."""
        return self.session_id is None or self.session_id == self.known_session
