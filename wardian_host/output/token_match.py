"""Finding a token in an agent's output as it arrives, without mistaking the echo of a prompt for it.

TUIs draw spaces by moving the cursor and wrap long lines into boxes, so text is compared
with whitespace and box-drawing characters left out. When the prompt typed into the agent
contains the token itself, the terminal echoes it (and a TUI repaints it, wrapped): an
occurrence whose neighbouring text is the prompt's own text around the token is that echo,
not an answer. This is the output fallback of `agent watch --until output:` and
`ask --until output:`; the structured reply of `wardian ask` needs none of it.
"""

import re

_IGNORED = re.compile(r"[\s\u2500-\u257f]+")
# How much of the prompt around the token identifies an echo of it.
CONTEXT_CHARS = 24


def squeeze(text: str) -> str:
    return _IGNORED.sub("", text)


class TokenMatcher:
    """Fed the output's text (escapes stripped) chunk by chunk; `feed` is True once the token
    appeared other than as the echo of `prompt`. Each chunk is scanned once, with the little
    text kept before it that a split match or an echo's context needs."""

    def __init__(self, token: str, prompt: str | None = None) -> None:
        self._token = squeeze(token) or token
        typed = squeeze(prompt or "")
        size = len(self._token)
        self._echo_contexts = [
            (typed[max(0, at - CONTEXT_CHARS) : at], typed[at + size : at + size + CONTEXT_CHARS])
            for at in _occurrences(typed, self._token)
        ]
        self._text = ""
        self._scan_from = 0

    def feed(self, text: str) -> bool:
        self._text += squeeze(text)
        while (at := self._text.find(self._token, self._scan_from)) >= 0:
            echo = self._is_echo(at)
            if echo is None:  # the text after it decides, and has not arrived yet
                self._scan_from = at
                self._trim()
                return False
            if not echo:
                return True
            self._scan_from = at + 1
        self._scan_from = max(self._scan_from, len(self._text) - len(self._token) + 1)
        self._trim()
        return False

    def _is_echo(self, at: int) -> bool | None:
        before, after = self._text[:at], self._text[at + len(self._token) :]
        undecided = False
        for context_before, context_after in self._echo_contexts:
            if context_before:
                if before.endswith(context_before):
                    return True
            elif context_after:  # the prompt starts with the token: what follows tells
                if after.startswith(context_after):
                    return True
                undecided = undecided or context_after.startswith(after)
        return None if undecided else False

    def _trim(self) -> None:
        cut = max(0, self._scan_from - CONTEXT_CHARS)
        self._text = self._text[cut:]
        self._scan_from -= cut


def _occurrences(text: str, token: str) -> list[int]:
    found, at = [], text.find(token)
    while at >= 0:
        found.append(at)
        at = text.find(token, at + 1)
    return found
