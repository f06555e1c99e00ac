"""Each MCP tool's input: the flags of the CLI command it stands for, as a pydantic model whose
JSON Schema is the tool's `inputSchema`.

A flag keeps its CLI name (`--wait-until` is `wait_until`); a command's positional agent is
`agent`. Durations are the CLI's text (`500ms`, `30s`, `10m`, bare seconds), parsed by the
same function. A message comes as `message` or from `file`, as on the CLI (no standard input:
the server's is the protocol's).
"""

from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from wardian_core.asks import ReplyStatus
from wardian_core.statuses import Status

Duration = str
AGENT = Field(min_length=1, description="The agent's NAME or UUID.")
DURATION_HELP = "A duration: 500ms, 30s, 10m, 1h, or bare seconds."


class ToolParams(BaseModel):
    # A misspelt argument must be refused, not ignored: the call would do something else.
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class NoParams(ToolParams):
    pass


class Filters(ToolParams):
    fields: str | None = Field(None, description="Only these fields, in this order (comma-separated).")
    verbose: bool = Field(False, description="Add pid, started_at, last_status_at and launch_config.")


class ListAgentsParams(Filters):
    scope: str | None = Field(None, description="workspace[:PATH] or all (default: workspace inside an agent).")
    status: Status | None = Field(None, description="Only agents with this status.")
    class_name: str | None = Field(None, alias="class", description="Only agents of this class.")
    workspace: str | None = Field(None, description="Only agents in exactly this workspace (implies scope all).")
    limited: bool = Field(False, description="Only agents waiting out a usage limit (their `limit` set).")


class ShowAgentParams(Filters):
    agent: str | None = Field(None, min_length=1, description="NAME or UUID; without it, the calling agent.")


class AgentParams(ToolParams):
    agent: str = AGENT


ONE_SOURCE = "give exactly one of `message` and `file`"


class MessageParams(ToolParams):
    """A message from `message` or `file`: the schema cannot say "one of the two" where every client
    reads it (a top-level anyOf is refused by some), so each field's description says it, and
    the model's own check words the refusal in the tool's terms."""

    message: str | None = Field(None, description="The text. Required unless `file` is given.")
    file: str | None = Field(None, description="Read the text from this file instead of `message`.")

    @model_validator(mode="after")
    def _one_source(self) -> Self:
        if (self.message is None) == (self.file is None) and self._needs_text():
            raise ValueError(ONE_SOURCE)
        return self

    def _needs_text(self) -> bool:
        return True


class SendParams(MessageParams):
    message: str | None = Field(None, description="The text. Required unless `file` or `approval` is given.")
    to: str = Field(min_length=1, description="NAME, UUID, class:<Class> or all.")
    wait_until: Status | None = Field(None, description="Then wait for this status's next arrival.")
    timeout: Duration | None = Field(None, description="Limit for wait_until / approval. " + DURATION_HELP)
    approval: Literal["accept", "reject"] | None = Field(
        None, description="Answer a pending approval instead of typing a message (then no `message` nor `file`)."
    )
    raw: bool = Field(False, description="Type the text exactly as given: no [from <agent>] tag.")

    def _needs_text(self) -> bool:
        return self.approval is None


class AskParams(MessageParams):
    agent: str = AGENT
    timeout: Duration | None = Field(None, description="Give up waiting for the reply after this. " + DURATION_HELP)
    until: str | None = Field(None, description="output:TOKEN: complete on TOKEN in the output instead.")
    no_wait: bool = Field(False, description="Answer once the question is typed, with its request id.")


class ReplyParams(MessageParams):
    request_id: str = Field(min_length=1, description="The id the question carried (ask_ and 16 hex digits).")
    status: ReplyStatus = Field(description="How the request ended: done, blocked or failed.")


class RequestParams(ToolParams):
    request_id: str = Field(min_length=1, description="The request's id (ask_ and 16 hex digits).")


class WaitParams(ToolParams):
    agent: str = AGENT
    until: Status = Field(description="The status to wait for.")
    timeout: Duration | None = Field(None, description="Give up after this. " + DURATION_HELP)
    next: bool = Field(False, description="Wait for the next arrival even if the agent has the status now.")


class WatchParams(ToolParams):
    agent: str = AGENT
    since: int | None = Field(None, ge=0, description="Output after this cursor.")
    until: str | None = Field(None, description="output:TEXT or status:STATUS: wait for new output or a status.")
    timeout: Duration | None = Field(None, description="Give up waiting after this. " + DURATION_HELP)
    raw: bool = Field(False, description="Keep terminal escape sequences.")


class SpawnParams(ToolParams):
    provider: str = Field(min_length=1, description="Provider plugin (see `wardian providers list`).")
    class_name: str = Field(alias="class", min_length=1, description="The agent's class, e.g. Coder or Reviewer.")
    name: str | None = Field(None, description="A unique name; generated as <class>-<hex> when omitted.")
    workspace: str | None = Field(None, description="Working directory (default: the caller's).")
    description: str | None = Field(None, description="Free text shown with the agent.")
    model: str | None = Field(None, description="The model the provider launches with.")
    args: list[str] = Field(default_factory=list, description="Extra provider arguments.")
    include_dirs: list[str] = Field(default_factory=list, description="Directories to read instructions from.")
    session_persistence: Literal["default", "fresh", "resume"] | None = None
    provider_settings: list[str] = Field(default_factory=list, description="NAME=VALUE settings the provider declares.")


class WorkflowParams(ToolParams):
    workflow_id: str = Field(min_length=1)


class RunWorkflowParams(WorkflowParams):
    inputs: list[str] = Field(default_factory=list, description="NAME=VALUE workflow inputs.")
    wait: bool = Field(False, description="Return when the run has ended, with its result.")
    timeout: Duration | None = Field(None, description="With wait: give up waiting after this. " + DURATION_HELP)
    workspace: str | None = Field(None, description="Where nodes run (default: the caller's directory).")


class RunStatusParams(WorkflowParams):
    run_id: str = Field(min_length=1)


def input_schema(params: type[ToolParams]) -> dict[str, Any]:
    """The model's JSON Schema as every client here reads it: an optional argument is its own
    type, not `anyOf [type, null]` (left out is how a client leaves it unset), and no titles."""
    schema: dict[str, Any] = _plain(params.model_json_schema(by_alias=True))
    return schema


def _plain(node: Any) -> Any:
    if isinstance(node, list):
        return [_plain(item) for item in node]
    if not isinstance(node, dict):
        return node
    options = node.get("anyOf")
    if isinstance(options, list) and {"type": "null"} in options:
        kept = [option for option in options if option != {"type": "null"}]
        rest = {key: value for key, value in node.items() if key not in ("anyOf", "default")}
        node = (kept[0] | rest) if len(kept) == 1 else rest | {"anyOf": kept}
    return {key: _plain(value) for key, value in node.items() if key != "title"}
