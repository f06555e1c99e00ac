"""Typing into an agent as a person would, following its provider's input profile."""

import asyncio
from collections.abc import Callable

from wardian_core.provider_models import InputProfile

PASTE_START = b"\x1b[200~"
PASTE_END = b"\x1b[201~"


def prompt_bytes(text: str, profile: InputProfile) -> tuple[bytes, bytes]:
    """(body, submit): the body pasted or typed, then the submit key after the settle delay."""
    body = text.rstrip("\r\n").encode()
    pasted = profile.bracketed_paste and ("\n" in text.strip("\n") or len(body) > profile.paste_threshold)
    if pasted:
        body = PASTE_START + body.replace(b"\r\n", b"\n") + PASTE_END
    return body, profile.submit_key.encode()


async def type_body(write: Callable[[bytes], None], text: str, profile: InputProfile) -> bytes:
    """Type (or paste) the text and let it settle; the submit key, for the caller to press."""
    body, submit = prompt_bytes(text, profile)
    write(body)
    # TUIs debounce pastes: an Enter that arrives with the text is taken as a newline.
    await asyncio.sleep(profile.settle_seconds)
    return submit
