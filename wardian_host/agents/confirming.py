"""Whether a typed prompt was taken: the provider's turn-start signal, else its input box.

A CLI can drop keys (mid-redraw, a resume still loading, a modal opening); a send that only
typed them would succeed silently and a retrying script would type the prompt twice. So a
send waits for the `turn_started` event the provider declares it reports, and without it
reads the screen: text still in the input box is submitted once more; text gone from the
box and shown elsewhere (a queued prompt, the transcript) was taken; text nowhere was lost.
"""

import asyncio
import contextlib
import re
import time
from collections.abc import Callable, Iterator
from typing import Any

from wardian_core.provider_models import InputProfile, ProviderEvent
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.agents.typing_input import is_pasted

# Characters that frame an input box around its marker (Gemini's `│ > …│`).
FRAME_CHARS = "│┃║ "
# How much of the text's first line identifies it on screen: enough to be unique, short
# enough to sit on one row of a narrow terminal once spaces are dropped.
HEAD_CHARS = 24


class DeliveryFailed(Exception):
    """The prompt was not taken; `reason` says what the screen showed."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@contextlib.contextmanager
def turn_start_watch(agent: LiveAgent) -> Iterator[asyncio.Future[ProviderEvent]]:
    """The first `turn_started` the agent's parsers report while the block runs."""
    started: asyncio.Future[ProviderEvent] = asyncio.get_running_loop().create_future()

    def on_event(event: ProviderEvent) -> None:
        if event.kind == "turn_started" and not started.done():
            started.set_result(event)

    agent.provider_event_listeners.add(on_event)
    try:
        yield started
    finally:
        agent.provider_event_listeners.discard(on_event)


def _compact(text: str) -> str:
    """TUIs draw spaces by moving the cursor and wrap long lines: compare without whitespace."""
    return "".join(text.split())


def text_head(text: str) -> str:
    first_line = next((line for line in text.splitlines() if line.strip()), "")
    return _compact(first_line)[:HEAD_CHARS]


def _is_marker_row(row: str, marker: str) -> bool:
    stripped = row.strip(" ")
    return stripped.startswith(marker) or stripped.lstrip(FRAME_CHARS).startswith(marker)


def input_box(rows: list[str], marker: str) -> list[str]:
    """The rows of the input box: from the top of the last run of rows that begin with the
    marker (the box is drawn below the transcript, whose echoed prompts may begin with it too)
    to the bottom of the screen. Empty when no row shows the marker."""
    last = max((index for index, row in enumerate(rows) if _is_marker_row(row, marker)), default=None)
    if last is None:
        return []
    first = last
    while first > 0 and _is_marker_row(rows[first - 1], marker):
        first -= 1
    return rows[first:]


def waits_in_box(rows: list[str], marker: str, text: str, placeholder: str | None = None) -> bool:
    """Whether the text still waits in the input box: its first words there, or, for a paste the
    CLI draws as a placeholder (`placeholder`, a pattern), that placeholder."""
    box = input_box(rows, marker)
    head = text_head(text)
    if head and head in _compact("".join(box)):
        return True
    return placeholder is not None and any(re.search(placeholder, row) for row in box)


def shown_outside_box(rows: list[str], marker: str, text: str) -> bool:
    box = input_box(rows, marker)
    above = rows[: len(rows) - len(box)]
    head = text_head(text)
    return bool(head) and head in _compact("".join(above))


async def _signal_within(started: asyncio.Future[ProviderEvent], seconds: float) -> ProviderEvent | None:
    try:
        return await asyncio.wait_for(asyncio.shield(started), seconds)
    except TimeoutError:
        return None


def _confirmed(by: str, since: float, resubmitted: bool) -> dict[str, Any]:
    """`delivery`: what confirmed it, how long after the submit key, whether it took a second one."""
    return {"confirmed_by": by, "seconds": round(time.monotonic() - since, 3)} | (
        {"resubmitted": True} if resubmitted else {}
    )


async def confirm_taken(
    agent: LiveAgent,
    profile: InputProfile,
    text: str,
    started: asyncio.Future[ProviderEvent],
    submit: Callable[[], None],
) -> dict[str, Any]:
    """How the prompt just submitted was confirmed (`delivery`); DeliveryFailed when it was not."""
    bound = profile.turn_start_seconds
    if bound is None:
        return {"confirmed_by": "unconfirmed"}
    since = time.monotonic()
    event = await _signal_within(started, bound)
    if event is not None:
        # The rule names the signal as the provider's parser reports it (`hook UserPromptSubmit`).
        return _confirmed(event.evidence.rule, since, resubmitted=False)
    marker = profile.input_marker
    # Under load a CLI can read a paste and its submit key in one read and take the key as part of
    # the paste: the text then waits in the box, drawn as the CLI's placeholder.
    placeholder = profile.paste_placeholder if is_pasted(text, profile) else None
    rows = (await agent.screen.snapshot()).rows
    resubmitted = marker is not None and waits_in_box(rows, marker, text, placeholder)
    if resubmitted:
        submit()
        event = await _signal_within(started, bound)
        if event is not None:
            return _confirmed(event.evidence.rule, since, resubmitted=True)
        rows = (await agent.screen.snapshot()).rows
    return _by_screen(rows, marker, text, placeholder, bound, since, resubmitted)


def _by_screen(
    rows: list[str],
    marker: str | None,
    text: str,
    placeholder: str | None,
    bound: float,
    since: float,
    resubmitted: bool,
) -> dict[str, Any]:
    no_signal = f"no turn started within {bound:g} s"
    if marker is not None and waits_in_box(rows, marker, text, placeholder):
        raise DeliveryFailed(f"{no_signal} and the text still waits in its input box after a second submit")
    if marker is None or not shown_outside_box(rows, marker, text):
        raise DeliveryFailed(f"{no_signal} and its screen shows the text nowhere")
    # Out of the box and on screen: taken, e.g. queued behind the running turn.
    return _confirmed("screen", since, resubmitted)
