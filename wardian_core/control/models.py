"""Pydantic models of the control wire: frames and each request kind's parameters.

The host validates every request with these; the CLI builds the same shapes as
plain dicts (tests check them against these models). Each kind's answer is modelled
beside them, in `wardian_core.control.answers`.
"""

from typing import Annotated, Any, Literal

from pydantic import Base64Bytes, BaseModel, ConfigDict, Field

from wardian_core.asks import REPLY_BODY_MAX_CHARS, ReplyStatus
from wardian_core.control.protocol import PROTOCOL_VERSION
from wardian_core.parsing import MAX_TERMINAL_SIDE
from wardian_core.settings.model import BudgetLimits
from wardian_core.statuses import Status


class _Params(BaseModel):
    # Built on a request kind's first use, as the answers are (control/answers.Answer).
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)


class RequestFrame(BaseModel):
    model_config = ConfigDict(extra="forbid")

    v: int
    id: int
    kind: str
    params: dict[str, Any] = Field(default_factory=dict)
    deadline: float | None = Field(
        None, description="Seconds since the epoch after which the host does not start the request."
    )


class ResponseFrame(BaseModel):
    model_config = ConfigDict(extra="forbid")

    # The constant, not a second spelling of it: pydantic reads it at run time, mypy cannot.
    v: Literal[PROTOCOL_VERSION]  # type: ignore[valid-type]
    id: int | None
    ok: bool
    result: Any = None
    error: dict[str, Any] | None = None


class NoParams(_Params):
    pass


class HostStopParams(_Params):
    keep_agents: bool = Field(
        False, description="Leave every agent running in the terminal server, for the next host (host restart)."
    )


class TargetParams(_Params):
    target: str = Field(min_length=1)


class WorktreeRequest(_Params):
    """`--worktree [BRANCH]` of spawn, clone and `worktree enable`: a new worktree on a new branch."""

    branch: str | None = Field(None, min_length=1, description="The new branch; None: named after the agent.")
    base: str | None = Field(None, min_length=1, description="Where the branch starts; None: the workspace's HEAD.")


class SpawnParams(_Params):
    provider: str = Field(min_length=1)
    class_name: str = Field(alias="class", min_length=1)
    workspace: str = Field(min_length=1, description="Absolute path, resolved by the CLI.")
    name: str | None = None
    description: str | None = None
    launch_config: dict[str, Any] = Field(
        default_factory=dict,
        description="model, extra_args, include_dirs (absolute), session_persistence; the host validates it.",
    )
    worktree: WorktreeRequest | None = Field(None, description="Work in a new git worktree of the workspace.")
    budget: BudgetLimits | None = Field(None, description="The agent's own budget (`--budget`), before settings'.")


class BudgetParams(TargetParams):
    """`agent budget NAME`: show it; `raise_by` (`tokens=+N,usd=X`) or `clear` change it."""

    raise_by: str | None = Field(None, min_length=1, max_length=200)
    clear: bool = False


class UpdateParams(TargetParams):
    """What `agent update` changes; a field left out keeps its stored value."""

    model: str | None = Field(None, description="The model to launch with; empty: the provider's default.")
    args: list[str] = Field(default_factory=list, description="Extra provider arguments to append.")
    clear_args: bool = Field(False, description="Drop the stored extra arguments first.")
    include_dirs: list[str] = Field(default_factory=list, description="Absolute directories to add.")
    clear_include_dirs: bool = Field(False, description="Drop the stored include directories first.")
    session_persistence: Literal["default", "fresh", "resume"] | None = None
    settings: dict[str, str] = Field(default_factory=dict, description="Provider settings to set (NAME: VALUE).")
    clear_settings: bool = Field(False, description="Drop the agent's own provider settings first.")
    description: str | None = Field(None, description="New description; empty: none.")


class CloneParams(TargetParams):
    name: str | None = None
    worktree: WorktreeRequest | None = None


class RenameParams(TargetParams):
    new_name: str = Field(min_length=1)


class DeleteParams(TargetParams):
    confirm: str
    force: bool = False
    keep_worktree: bool = Field(False, description="Leave the agent's worktree in place, even as its last agent.")


class WorktreeEnableParams(TargetParams):
    worktree: WorktreeRequest = Field(default_factory=WorktreeRequest)


class WorktreeJoinParams(TargetParams):
    worktree: str = Field(min_length=1, description="A worktree's id, folder or branch.")


class WorktreeRemoveParams(_Params):
    worktree: str = Field(min_length=1, description="A worktree's id, folder or branch.")
    force: bool = Field(False, description="Archive what would be lost to refs/wardian/archive/<id>, then remove.")
    delete_branch: bool = Field(False, description="Delete its branch too, when merged (squash merges included).")


class WaitParams(TargetParams):
    until: Status
    timeout: float | None = Field(None, gt=0)
    next: bool = False
    # With `next`: an arrival after this mark counts (the `waiting_after` a wait that a host
    # restart cut short was told), so its continuation misses nothing that arrived meanwhile.
    arrived_after: int | None = Field(None, ge=0)


Approval = Literal["accept", "reject"]


class SendParams(_Params):
    to: str = Field(min_length=1)
    text: str | None = None
    # Typed exactly as given: no `[from <agent>]` tag, whatever the target's provider wants.
    raw: bool = False
    approval: Approval | None = None
    wait_until: Status | None = None
    timeout: float | None = Field(None, gt=0)


class WatchParams(TargetParams):
    since: int | None = Field(None, ge=0)
    until_output: str | None = Field(None, min_length=1)
    until_status: Status | None = None
    timeout: float | None = Field(None, gt=0)
    follow: bool = False
    raw: bool = False
    # With `until_output`: output from this cursor on counts (the `watching_from` a watch that a
    # host restart cut short was told), so its continuation misses nothing printed meanwhile.
    output_from: int | None = Field(None, ge=0)


TerminalSide = Annotated[int, Field(ge=1, le=MAX_TERMINAL_SIDE)]


class AttachParams(TargetParams):
    read_only: bool = False
    rows: TerminalSide | None = None
    cols: TerminalSide | None = None


class AttachClientFrame(BaseModel):
    """One frame an attached client sends after its request: typed input, a resize, a detach."""

    model_config = ConfigDict(extra="forbid")

    input: Base64Bytes | None = Field(None, description="Bytes to type into the terminal, base64.")
    resize: tuple[TerminalSide, TerminalSide] | None = Field(None, description="[rows, cols]")
    detach: bool = False


class WebOpenParams(_Params):
    """`wardian web`: serve the view (on `listen`, loopback when None) and answer its address."""

    listen: str | None = Field(None, min_length=1, max_length=255)
    login_page: bool = False  # write the login into an owner-only page instead of the address


class RunParams(TargetParams):
    prompt: str = Field(min_length=1)
    resume: bool = False
    timeout: float = Field(600.0, gt=0)


class AskParams(TargetParams):
    message: str = Field(min_length=1)
    until_output: str | None = Field(None, min_length=1, description="Complete on this token in the output instead.")
    timeout: float | None = Field(None, gt=0, description="Seconds to wait for the reply; None: no limit.")
    wait: bool = Field(True, description="False: answer once the question is typed, with its request id.")
    # An ask forwarded over ssh (`ask name@remote`): where it comes from, as the caller claims.
    asker_machine: str | None = Field(None, min_length=1, max_length=255, description="The asking machine.")
    asker_name: str | None = Field(None, min_length=1, max_length=200, description="The asker that machine names.")


class AskWaitParams(_Params):
    """The rest of an ask's wait that a host restart cut short: the same request, not asked again."""

    request_id: str = Field(min_length=1, max_length=200)
    timeout: float | None = Field(None, gt=0, description="Seconds to wait for the reply; None: no limit.")
    # What the first host told the CLI (`asked`): the cursor the answer's events and output start
    # at, and (with `until output:TOKEN`) the one the token counts from, so nothing printed
    # meanwhile is missed.
    since: int = Field(ge=0)
    output_from: int | None = Field(None, ge=0)


class ReplyParams(_Params):
    # Any text: an id that is not a stored request is `not_found`, whatever its shape.
    request_id: str = Field(min_length=1, max_length=200)
    status: ReplyStatus
    body: str = Field(max_length=REPLY_BODY_MAX_CHARS)


class WorkflowRunParams(_Params):
    workflow_id: str = Field(min_length=1)
    inputs: dict[str, str] = Field(default_factory=dict)
    workspace: str = Field(min_length=1, description="Absolute: where nodes without an agent's workspace run.")
    wait: bool = False
    timeout: float | None = Field(None, gt=0, description="With wait: seconds before `wait_timeout`.")


class WorkflowRunRef(_Params):
    run_id: str = Field(min_length=1)


class WorkflowApproveParams(WorkflowRunRef):
    node: str = Field(min_length=1)
    approve: bool = True


class WorkflowIdParams(_Params):
    workflow_id: str = Field(min_length=1, max_length=200)


class McpSessionParams(_Params):
    """`mcp.session`: what the relay says of where it stands: its working directory, and the
    agent its environment names (a claim; the host's own tie of its peer comes first)."""

    cwd: str | None = Field(None, max_length=4096)
    session_id: str | None = Field(None, max_length=200)


class InboxParams(_Params):
    """`inbox.list`: what needs a person on this machine; `unseen`: with the finished turns nobody looked at."""

    unseen: bool = False


REQUEST_PARAMS: dict[str, type[_Params]] = {
    "host.status": NoParams,
    "host.stop": HostStopParams,
    "host.whoami": NoParams,
    "agents.list": NoParams,
    "agent.spawn": SpawnParams,
    "agent.kill": TargetParams,
    "agent.pause": TargetParams,
    "agent.resume": TargetParams,
    "agent.restart": TargetParams,
    "agent.clear": TargetParams,
    "agent.update": UpdateParams,
    "agent.clone": CloneParams,
    "agent.rename": RenameParams,
    "agent.delete": DeleteParams,
    "agent.budget": BudgetParams,
    "agent.resume_limit": TargetParams,
    "worktree.enable": WorktreeEnableParams,
    "worktree.join": WorktreeJoinParams,
    "worktree.disable": TargetParams,
    "worktree.remove": WorktreeRemoveParams,
    "agent.wait": WaitParams,
    "agent.screen": TargetParams,
    "send": SendParams,
    "agent.watch": WatchParams,
    "agent.attach": AttachParams,
    "agent.run": RunParams,
    "ask": AskParams,
    "ask.wait": AskWaitParams,
    "reply": ReplyParams,
    "workflow.list": NoParams,
    "workflow.show": WorkflowIdParams,
    "workflow.run": WorkflowRunParams,
    "workflow.stop": WorkflowRunRef,
    "workflow.approve": WorkflowApproveParams,
    "web.open": WebOpenParams,
    "web.revoke": NoParams,
    "notify.test": NoParams,
    "inbox.list": InboxParams,
    "inbox.seen": TargetParams,
    "mcp.session": McpSessionParams,
}
