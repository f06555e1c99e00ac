"""Typing into an agent as a person would, following its provider's input profile."""

import asyncio
import contextlib
from collections.abc import Callable, Iterator

from wardian_core.provider_models import InputProfile
from wardian_host.agents.live_agent import LiveAgent

PASTE_START = b"\x1b[200~"
PASTE_END = b"\x1b[201~"
# The end of the last word a TUI draws as typed: enough to tell it from other output.
DRAWN_TAIL_BYTES = 8


def is_pasted(text: str, profile: InputProfile) -> bool:
    """Whether the text goes in as one bracketed paste rather than typed keys."""
    body = text.rstrip("\r\n").encode()
    return profile.bracketed_paste and ("\n" in text.strip("\n") or len(body) > profile.paste_threshold)


def prompt_bytes(text: str, profile: InputProfile) -> tuple[bytes, bytes]:
    """(body, submit): the body pasted or typed, then the submit key after the settle delay."""
    body = text.rstrip("\r\n").encode()
    if is_pasted(text, profile):
        body = PASTE_START + body.replace(b"\r\n", b"\n") + PASTE_END
    return body, profile.submit_key.encode()


def drawn_tail(text: str, profile: InputProfile) -> bytes | None:
    """What shows on screen once the TUI took the typed text: its last word's end. None when the
    profile waits its full settle, or the text is pasted (TUIs draw a paste as a placeholder)."""
    body, _ = prompt_bytes(text, profile)
    words = text.split()
    if not profile.submit_once_drawn or body.startswith(PASTE_START) or not words:
        return None
    return words[-1].encode()[-DRAWN_TAIL_BYTES:]


@contextlib.contextmanager
def drawn_watch(agent: LiveAgent, tail: bytes | None) -> Iterator[asyncio.Future[None]]:
    """A future resolved once the agent's output shows `tail` (never, for None). Listening starts
    before the text is typed, so an echo drawn at once is not missed."""
    drawn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    seen = bytearray()

    def on_output(_cursor: int, data: bytes) -> None:
        if tail is None or drawn.done():
            return
        seen.extend(data)
        if tail in seen:
            drawn.set_result(None)
        del seen[: -len(tail)]  # a tail split across two reads is still found

    agent.output_listeners.add(on_output)
    try:
        yield drawn
    finally:
        agent.output_listeners.discard(on_output)


async def type_body(
    write: Callable[[bytes], None], text: str, profile: InputProfile, drawn: asyncio.Future[None] | None = None
) -> bytes:
    """Type (or paste) the text and let it settle; the submit key, for the caller to press.

    TUIs debounce pastes: an Enter that arrives with the text is taken as a newline. So the
    submit waits `settle_seconds`, or less once `drawn` says the TUI has drawn the text (it read
    it: the submit key comes in a read of its own)."""
    body, submit = prompt_bytes(text, profile)
    write(body)
    if drawn is None:
        await asyncio.sleep(profile.settle_seconds)
        return submit
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.shield(drawn), profile.settle_seconds)
    return submit
