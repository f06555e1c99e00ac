"""The usage every fake model call reports, in each protocol's own words.

Chosen so no two figures are equal and none is 0: a CLI that reads one in another's place, drops
one, or adds a part twice shows a figure that cannot match. `REPORTED` says it once; each
protocol module renders it the way its vendor's API does (what counts cached input inside the
input, reasoning inside the output).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ReportedUsage:
    fresh_input: int = 1200  # input not read from (nor written to) a cache
    cache_read: int = 300
    cache_write: int = 40  # Anthropic's only: the other APIs have no cache writes
    output: int = 70  # every generated token, reasoning included
    reasoning: int = 9

    def anthropic(self) -> dict[str, Any]:
        return {
            "input_tokens": self.fresh_input,
            "output_tokens": self.output,
            "cache_creation_input_tokens": self.cache_write,
            "cache_read_input_tokens": self.cache_read,
        }

    def openai_responses(self) -> dict[str, Any]:
        prompt = self.fresh_input + self.cache_read
        return {
            "input_tokens": prompt,
            "input_tokens_details": {"cached_tokens": self.cache_read},
            "output_tokens": self.output,
            "output_tokens_details": {"reasoning_tokens": self.reasoning},
            "total_tokens": prompt + self.output,
        }

    def openai_chat(self) -> dict[str, Any]:
        prompt = self.fresh_input + self.cache_read
        return {
            "prompt_tokens": prompt,
            "prompt_tokens_details": {"cached_tokens": self.cache_read},
            "completion_tokens": self.output,
            "completion_tokens_details": {"reasoning_tokens": self.reasoning},
            "total_tokens": prompt + self.output,
        }

    def gemini(self) -> dict[str, Any]:
        prompt = self.fresh_input + self.cache_read
        return {
            "promptTokenCount": prompt,
            "cachedContentTokenCount": self.cache_read,
            "candidatesTokenCount": self.output - self.reasoning,  # Gemini counts thoughts apart
            "thoughtsTokenCount": self.reasoning,
            "totalTokenCount": prompt + self.output,
        }


@dataclass(frozen=True)
class RateLimitWindow:
    name: str
    used_percent: float
    window_minutes: int
    resets_at: int  # Unix time

    def codex_headers(self) -> dict[str, str]:
        """The window as the ChatGPT backend's response headers say it (what Codex reads)."""
        prefix = f"x-codex-{self.name}"
        return {
            f"{prefix}-used-percent": f"{self.used_percent:g}",
            f"{prefix}-window-minutes": str(self.window_minutes),
            f"{prefix}-reset-at": str(self.resets_at),
        }


REPORTED = ReportedUsage()
# Two windows, as a plan's limits come: five hours and a week.
RATE_LIMITS = (
    RateLimitWindow("primary", 12.5, 300, 1798761600),
    RateLimitWindow("secondary", 40.0, 10080, 1799366400),
)


def rate_limit_headers() -> dict[str, str]:
    return {name: value for window in RATE_LIMITS for name, value in window.codex_headers().items()}
