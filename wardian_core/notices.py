"""A notice: word to a person that an agent needs them, as the web view, the sinks named in
settings.toml and observer plugins (`notice_raised`) receive it."""

from typing import Literal

from pydantic import BaseModel, ConfigDict

# waiting: the agent waits on a person (a dialog); error: it ended in `error`; unseen_turn: a turn
# finished that nobody looked at within `notify.unseen_turn_seconds`; test: `wardian notify test`;
# limit: a usage limit cut its turn, and each step of its resume (docs/limits.md); budget: an
# agent's use reached its budget, and Wardian holds it.
NoticeKind = Literal["waiting", "error", "unseen_turn", "test", "limit", "budget"]


class Notice(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str  # one occurrence: a page shows each id once, a sink is sent each once
    kind: NoticeKind
    agent: str  # the agent's name, "" for a test
    uuid: str  # the agent's uuid, "" for a test; the page's link to its tile is `#agent-<uuid>`
    title: str
    body: str
    at: str  # ISO time of the status change that raised it
    # An `error` notice's exit code (None when the agent did not exit, or its code is unknown)
    # and the last line it printed, escapes stripped.
    exit_code: int | None = None
    last_line: str | None = None
