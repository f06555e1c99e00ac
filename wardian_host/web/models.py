"""The web view's formats: what the page sends (actions, WebSocket frames) and the record of
where the view listens. The page's answers are the control wire's own answers."""

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from wardian_core.control.models import TerminalSide

# What a page may ask for: the verbs a person uses on the agents it sees. Each is answered by
# the control endpoint's own route, with the caller rules of a person.
PageKind = Literal[
    "agent.spawn",
    "agent.kill",
    "agent.pause",
    "agent.resume",
    "agent.restart",
    "agent.clear",
    "send",
    "reply",
    "workflow.stop",
    "workflow.approve",
    "inbox.seen",
    "agent.resume_limit",
    "agent.budget",
]


class PageAction(BaseModel):
    """The body of `POST /api/action`."""

    model_config = ConfigDict(extra="forbid")

    kind: PageKind
    params: dict[str, Any] = Field(default_factory=dict)
    # Another machine's agent (a remote of settings.toml): done there, as `wardian --remote` does.
    machine: str | None = Field(None, min_length=1, max_length=200)


class PageFrame(BaseModel):
    """One frame the page sends on its WebSocket.

    open: stream agent `agent`'s terminal (its current screen, then live bytes); `typing` makes
    it the person's terminal, sized `rows` x `cols`, as `agent attach` does. input: bytes typed
    (base64). resize: the typing terminal's new size. close: stop streaming it. seen: a person
    looked at it (no notice for its finished turn). `machine`: the agent is another machine's;
    its tile shows its screen, read again every few seconds (never typing).
    """

    model_config = ConfigDict(extra="forbid")

    op: Literal["open", "input", "resize", "close", "seen"]
    agent: str = Field(min_length=1, max_length=200)
    typing: bool = False
    rows: TerminalSide | None = None
    cols: TerminalSide | None = None
    data: str | None = Field(None, max_length=64 * 1024)
    machine: str | None = Field(None, min_length=1, max_length=200)


class WebRecord(BaseModel):
    """`run/web.json`: where the host serves the view, for `wardian web` and a restarted host."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    pid: int
    listen: str
    port: int = Field(ge=1, le=65535)


class KeptSessions(BaseModel):
    """`run/web-sessions.json`: each session's SHA-256 digest and when it was last used (epoch seconds)."""

    model_config = ConfigDict(extra="forbid")

    sessions: dict[str, float] = Field(default_factory=dict)
