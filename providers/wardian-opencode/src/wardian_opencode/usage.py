"""What OpenCode records of each model call's cost (1.18.33): every step is an assistant message
whose `tokens` (`input` without the cache reads and writes, counted apart under `cache`; `output`
without the `reasoning`, counted apart) and `cost` OpenCode states, from its own model table (0
for a model it has no price for). It states no context window per message.
"""

from typing import Any

from wardian_core.provider import OutputSource, ProviderEvent
from wardian_core.provider.parsing import amount, count, epoch_milliseconds, object_field, plus, text_field, usage_event


def call_usage(
    source: OutputSource,
    rule: str,
    line: str,
    message_id: str | None,
    holder: dict[str, Any],
    model: str | None,
    recorded_ms: Any = None,
) -> ProviderEvent | None:
    """The usage in `holder` (an assistant message, or a `step-finish` part) of the call `message_id`,
    named by it: the message's updates and its step's finish count once."""
    tokens = object_field(holder, "tokens")
    if not tokens or message_id is None:
        return None
    cache = object_field(tokens, "cache")
    reasoning = count(tokens, "reasoning")
    return usage_event(
        source,
        rule,
        line,
        turn_key=message_id,
        model=model,
        input_tokens=count(tokens, "input"),
        output_tokens=plus(count(tokens, "output"), reasoning),
        cache_read_tokens=count(cache, "read"),
        cache_write_tokens=count(cache, "write"),
        reasoning_tokens=reasoning,
        cost_usd=amount(holder, "cost"),
        # OpenCode's own context meter counts the call's whole total (1.18.33).
        context_used=count(tokens, "total"),
        recorded_at=epoch_milliseconds(recorded_ms),
    )


def message_usage(source: OutputSource, info: dict[str, Any], line: str) -> ProviderEvent | None:
    """An assistant message once its call ended (`time.completed`): before, its tokens are 0s. A
    call that failed (`error`) keeps those 0s, which no model reported: it is no report either."""
    completed = count(object_field(info, "time"), "completed")
    ended = completed is not None
    if text_field(info, "role") != "assistant" or not ended or info.get("error"):
        return None
    model = text_field(info, "modelID")
    provider = text_field(info, "providerID")
    named = f"{provider}/{model}" if provider and model else model
    rule = "message.updated assistant completed"
    return call_usage(source, rule, line, text_field(info, "id"), info, named, completed)
