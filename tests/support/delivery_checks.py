"""What a real CLI's model server received, prompt by prompt: whether a send was lost or doubled.

Shared by each provider's real-CLI delivery tests and by benchmarks/delivery.py. A prompt is
counted once per turn that began with it: a request after a tool result continues that turn,
and a request that declares no tools (a title, Gemini's router) is not a turn.
"""

import json
import re
from collections.abc import Callable
from typing import Any

from model_server import anthropic, gemini, openai_chat, openai_responses
from model_server.turn import Conversation
from model_server.wire import RecordedRequest


def _reader(route: str) -> Callable[[dict[str, Any]], Conversation] | None:
    if route.endswith("/messages"):
        return anthropic.conversation
    if route.endswith("/responses"):
        return openai_responses.conversation
    if route.endswith("/chat/completions"):
        return openai_chat.conversation
    if route.endswith(":streamGenerateContent"):
        return gemini.conversation
    return None


def turn_prompts(requests: list[RecordedRequest]) -> list[str]:
    """The prompt of every turn the model server saw, in order."""
    prompts = []
    for request in requests:
        reader = _reader(request.route)
        if reader is None or not request.reply_kind:
            continue
        try:
            conversation = reader(json.loads(request.body))
        except ValueError:
            continue
        if conversation.tools and not conversation.after_tool_result:
            prompts.append(conversation.prompt)
    return prompts


def occurrences(text: str, token: str) -> int:
    """How often `token` is in `text` as a whole token: `ECHO:a1` is not in `ECHO:a12`."""
    return len(re.findall(re.escape(token) + r"(?![\w.-])", text))


def times_received(requests: list[RecordedRequest], token: str) -> int:
    """How many times `token` reached the model as (part of) a turn's prompt: 1 is right, 0 lost,
    2 or more doubled (typed twice into one prompt, or submitted as two turns)."""
    return sum(occurrences(prompt, token) for prompt in turn_prompts(requests))


def assert_send_confirmed(answer: dict[str, Any], signals: set[str]) -> None:
    """A `wardian send` answer confirmed by one of the provider's turn-start signals."""
    delivery = answer["delivery"]
    assert delivery["confirmed_by"] in signals, answer
    assert answer["results"][0]["delivery"] == delivery


def assert_a_send_is_confirmed_once(
    wardian: Any, name: str, signals: set[str], *, spawned: bool = False
) -> dict[str, Any]:
    """Through the real `wardian`: a prompt sent to an idle agent is confirmed by the provider's
    turn-start signal, its turn completes, the model received it exactly once, and nothing but the
    model server was called. `spawned`: the caller's agent `name` already ran turns (a start saved);
    it is sent to once idle, whichever event made it so."""
    if spawned:
        wardian("agent", "wait", name, "--until", "idle", "--timeout", "60s", timeout=90)
    else:
        wardian.spawn(name)
        wardian.wait(name, "idle", "ready")
    token = "ECHO:confirmed1"

    answer = wardian("send", f"say it once {token}", "--to", name)

    assert_send_confirmed(answer, signals)
    wardian.wait(name, "idle", "turn_completed")
    assert times_received(wardian.cli.server.requests, token) == 1, turn_prompts(wardian.cli.server.requests)
    wardian.cli.assert_only_model_server_was_called()
    return answer
