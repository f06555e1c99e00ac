"""Pydantic models of the control wire's answers, beside the requests' (`control.models`).

A handler returns its kind's answer model (REQUEST_ANSWERS); the control server dumps it at
the door (as `Answer.wire` does), so the JSON the CLI reads is the model's, key for key and in order.
"""

from types import UnionType
from typing import Annotated, Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Discriminator, Field, SerializerFunctionWrapHandler, Tag, model_serializer

from wardian_core.asks import ReplySource, ReplyStatus, RequestState
from wardian_core.budgets import Dimension, Source
from wardian_core.control.models import Approval
from wardian_core.db.empty_file import EmptyStateDb
from wardian_core.inbox import Inbox
from wardian_core.mcp_tools import McpToolsState
from wardian_core.notices import Notice
from wardian_core.pty_backend import Backend
from wardian_core.statuses import Status


class Answer(BaseModel):
    # Schemas are built on a route's first answer: a host answers a few of some forty kinds, and
    # building them all cost every host's start about 40 ms of CPU.
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)

    def wire(self) -> dict[str, Any]:
        """The JSON object this answer travels as."""
        return self.model_dump(mode="json", by_alias=True)


class LeavesOutNone(Answer):
    """An answer whose `LEFT_OUT_WHEN_NONE` keys are absent from the wire, not null, when they
    hold None: clients read these keys' presence (`"worktree_made" in answer`)."""

    LEFT_OUT_WHEN_NONE: ClassVar[frozenset[str]] = frozenset()

    @model_serializer(mode="wrap")
    def _leave_out_none(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        dumped: dict[str, Any] = handler(self)
        return {key: value for key, value in dumped.items() if value is not None or key not in self.LEFT_OUT_WHEN_NONE}


# -- host -----------------------------------------------------------------------------------------


class TerminalServerStatus(Answer):
    """The terminal server a host reaches, as its welcome named it."""

    pid: int
    version: str
    protocol: int
    started_at: str
    pty_backend: str


class HostStatusAnswer(Answer):
    pid: int
    home: str
    version: str
    protocol: int
    socket: str
    started_at: str
    agents: int
    running: int = Field(description="Agents running in a terminal of this host.")
    pty_backend: Backend
    terminal_server: TerminalServerStatus | None = Field(description="None once it died: the next launch starts one.")
    state_db_notice: EmptyStateDb | None = Field(description="state.db was found empty and set aside at start.")


class HostStopAnswer(Answer):
    stopping: bool
    pid: int
    agents_kept: bool


class CgroupTie(Answer):
    """Whether agents' cgroups tie a caller to its agent on this machine."""

    in_use: bool
    folder: str | None  # where agents' cgroups are made
    reason: str | None  # why they cannot be


Verification = Literal["verified", "claimed", "none"]
Tie = Literal["cgroup", "ancestry", "session", "terminal"]


# -- agents ---------------------------------------------------------------------------------------


class AgentSnapshot(Answer):
    """An agent as the host answers it: its state.db row (JSON columns still text, `is_off` 0 or
    1, its launch token left out) with what only the host knows. The CLI turns it into the
    record `agent show` prints (`wardian_core.fields.to_record`)."""

    uuid: str
    name: str
    class_name: str = Field(alias="class")
    provider: str
    workspace: str | None
    description: str | None
    status: Status
    pid: int | None
    started_at: str | None
    last_status_at: str | None
    provider_session_id: str | None
    is_off: int
    created_at: str
    status_evidence: dict[str, Any] | None = Field(description="Why the status is what it is (parsed).")
    launch_config: str | None = Field(description="JSON text, as stored.")
    provider_settings: str | None = Field(description="JSON text, as stored.")
    worktree: str | None
    worktree_folder: str | None
    branch: str | None
    limit: str | None = Field(description="JSON text of the usage limit it waits out, as stored.")
    mcp_tools: McpToolsState


class WhoamiAnswer(Answer):
    pid: int
    verification: Verification
    agent: AgentSnapshot | None
    tie: Tie | None  # how a verified caller is tied to its agent
    cgroups: CgroupTie


class AgentsListAnswer(Answer):
    """What ends `agents.list`, after its rows came as `{"agents": [...]}` pages of the stream."""

    count: int


class SpawnAnswer(AgentSnapshot, LeavesOutNone):
    """A new agent (`agent spawn`, `agent clone`), with the worktree made for it, if one was."""

    LEFT_OUT_WHEN_NONE = frozenset({"worktree_made"})

    worktree_made: dict[str, Any] | None = Field(None, description="The worktree's record and its set-up's outcome.")


class DeleteAnswer(AgentSnapshot, LeavesOutNone):
    """The agent as it was before `agent delete` forgot it, with its worktree's removal, if any."""

    LEFT_OUT_WHEN_NONE = frozenset({"worktree_removed"})

    deleted: Literal[True] = True
    worktree_removed: dict[str, Any] | None = None


class UpdateAnswer(Answer):
    agent: AgentSnapshot
    restart_required: bool = Field(description="It runs, and its launch changed: a restart takes the change.")


# -- ask and reply --------------------------------------------------------------------------------


class TakenReply(Answer):
    """A reply as the host took it (the order its record keeps; `wardian_core.models.Reply` reads it)."""

    caller_pid: int | None = Field(None, description="The replying process, as the kernel reported it.")
    caller_agent: str | None = Field(None, description="The agent the caller was verified as, if any.")
    status: ReplyStatus
    body: str | None
    source: ReplySource
    at: str


class AskAnswer(Answer):
    """`ask` and `ask.wait`: the request as stored, with the agent's events and output since it was asked."""

    request_id: str
    agent: str
    status: RequestState
    reply: TakenReply | None
    delivery: dict[str, Any] | None = Field(description="What typing the question gave, as stored: send's result.")
    events: list[dict[str, Any]] = Field(description="The agent's events about this request, as `agent watch`.")
    output: str
    cursor: int
    more: bool


class ReplyAnswer(Answer):
    request_id: str
    agent: str
    reply: TakenReply


# -- inbox --------------------------------------------------------------------------------------


class InboxSeenAnswer(Answer):
    """`inbox.seen`: a person looked at the agent; its finished turn leaves the inbox."""

    agent: str
    uuid: str
    seen: Literal[True] = True


# -- budgets ------------------------------------------------------------------------------------


class BudgetInForce(Answer):
    """An agent's budget, each figure from its layer (`sources`); None: no limit."""

    tokens: int | None
    usd: float | None
    minutes: float | None
    hard: bool
    count_cache_reads: bool


class BudgetFigures(Answer):
    """Used or left of each figure; None: unknown (no cost reported) or no limit."""

    tokens: int | None
    usd: int | float | None  # as summed: a hold stored before keeps the figure it had
    minutes: int | float | None


class BudgetHold(Answer):
    """What held the agent, as stored when its use reached its budget."""

    budget: BudgetInForce
    used: BudgetFigures
    reached: list[Dimension]
    at: str


class BudgetAnswer(Answer):
    """`agent budget NAME`: the budget in force, where each figure comes from, used, left, the hold."""

    agent: str
    uuid: str
    budget: BudgetInForce
    sources: dict[str, Source]
    used: BudgetFigures
    left: BudgetFigures
    reached: list[Dimension]
    held: BudgetHold | None


# -- send ---------------------------------------------------------------------------------------


class Delivery(LeavesOutNone):
    """How a typed prompt was confirmed taken."""

    LEFT_OUT_WHEN_NONE = frozenset({"seconds", "resubmitted"})

    confirmed_by: str = Field(description="The signal (`hook UserPromptSubmit`, `screen`), or `unconfirmed`.")
    seconds: float | None = Field(None, description="How long after the submit key.")
    resubmitted: Literal[True] | None = Field(None, description="It took a second submit key.")


class _TargetResult(Answer):
    """One target's outcome of a `send`: the agent, and its status when it was reached."""

    agent: str
    uuid: str
    status: Status


class Delivered(_TargetResult):
    result: Literal["delivered"]
    queued: bool = Field(description="It was busy: its CLI queued the prompt as it would a person's.")
    delivery: Delivery


class NotDelivered(_TargetResult):
    """Not live, held by its budget, skipped by `all`: the text was not typed."""

    result: Literal["not_live", "skipped"]
    reason: str


class BudgetReached(_TargetResult):
    result: Literal["budget_reached"]
    reason: str
    hint: str | None


class Failed(_TargetResult, LeavesOutNone):
    LEFT_OUT_WHEN_NONE = frozenset({"delivered"})

    result: Literal["failed"]
    delivered: Literal[False] | None = Field(None, description="Typed, but never confirmed taken.")
    reason: str


TargetResult = Annotated[
    Annotated[Delivered, Tag("delivered")]
    | Annotated[BudgetReached, Tag("budget_reached")]
    | Annotated[NotDelivered, Tag("not_delivered")]
    | Annotated[Failed, Tag("failed")],
    Discriminator(lambda result: _result_tag(result)),
]


def _result_tag(result: Any) -> str:
    outcome = result["result"] if isinstance(result, dict) else result.result
    return outcome if outcome in ("delivered", "budget_reached", "failed") else "not_delivered"


class SendAnswer(LeavesOutNone):
    """`send`: each target's outcome; with one target its delivery, and after `--wait-until` the
    agent as it arrived."""

    LEFT_OUT_WHEN_NONE = frozenset({"delivery", "agent"})

    results: list[TargetResult]
    sender: str | None = Field(description="The calling agent's name, verified or only claimed.")
    sender_verified: bool | None
    delivery: Delivery | None = None
    agent: AgentSnapshot | None = None


class ApprovalTyped(Answer):
    agent: str
    uuid: str
    result: Literal["delivered"]
    approval: Approval


class ApprovalAnswer(Answer):
    """`send --approval`: the keys typed into the open dialog, and the agent after it."""

    results: list[ApprovalTyped]
    left_action_required: bool
    agent: AgentSnapshot


# -- terminal: run, screen, watch, attach -------------------------------------------------------
# Their stream items (`agent.watch --follow`'s output and events, `agent.attach`'s frames) stay
# plain: one is sent per chunk of output, and a model each would cost the host on its hot path.


class StatusStep(Answer):
    """One status change of a headless run, and the event and rule that made it."""

    from_status: Status = Field(alias="from")
    to: Status
    event: str
    rule: str


class RunAnswer(Answer):
    """`agent.run`: one headless run of the agent's provider; the agent's own status is its terminal's."""

    agent: str
    uuid: str
    session_mode: Literal["fresh", "resume"]
    status: Status = Field(description="The run's, by the same rules as a live agent's.")
    exit_code: int
    timed_out: bool
    session_id: str | None = Field(description="The provider session the run began or continued.")
    events: list[dict[str, Any]] = Field(description="The provider's events, as dumped ProviderEvents.")
    timeline: list[StatusStep]
    stderr_tail: str


class ScreenAnswer(Answer):
    """`agent.screen`: what the agent's terminal shows now."""

    agent: str
    uuid: str
    status: Status
    rows: list[str]
    cursor: dict[str, int]
    title: str
    size: dict[str, int]


class WatchPage(LeavesOutNone):
    """`agent.watch`: one bounded page of output and events from `since`; `more` says what is left."""

    LEFT_OUT_WHEN_NONE = frozenset({"events_dropped"})

    agent: str
    output: str
    events: list[dict[str, Any]] = Field(description="The agent's events, each with its cursor.")
    since: int
    cursor: int
    more: bool
    status: Status
    events_dropped: int | None = Field(None, description="The oldest events left out to keep the page in its frame.")


class WatchFollowEnd(Answer):
    """What ends `agent.watch --follow`, after its stream: where the agent's output ended."""

    cursor: int


class AttachAnswer(Answer):
    """What ends `agent.attach`, after its terminal's frames."""

    agent: str
    reason: Literal["detached", "agent exited"]
    status: Status


# -- workflows ----------------------------------------------------------------------------------


class WorkflowSummary(Answer):
    id: str
    name: str
    description: str
    nodes: int
    file: str


class UnreadableWorkflow(Answer):
    """A workflow file that does not load: its id is its file's name."""

    id: str
    file: str
    error: dict[str, Any] = Field(description="message, hint and every error (`workflow validate`'s).")


class WorkflowListAnswer(Answer):
    workflows: list[WorkflowSummary | UnreadableWorkflow]


class WorkflowShowAnswer(Answer):
    workflow: dict[str, Any] = Field(description="The whole definition as a file would hold it, defaults filled in.")
    file: str


class WorkflowRun(LeavesOutNone):
    """A run as its log rebuilds it (`wardian_core.workflows.run_state`)."""

    LEFT_OUT_WHEN_NONE = frozenset({"error"})

    run_id: str
    workflow_id: str
    inputs: dict[str, Any]
    created_at: str
    status: str
    started_at: str | None
    ended_at: str | None
    nodes: dict[str, dict[str, Any]] = Field(description="Each node's state, output, error, as its events left them.")
    error: str | None = None
    usage: dict[str, Any] = Field(description="What its agent nodes cost, as their CLIs reported it.")


class WorkflowRunAnswer(Answer):
    """`workflow.run`, `workflow.stop`, `workflow.approve`: the run after the request."""

    run: WorkflowRun


# -- worktrees ----------------------------------------------------------------------------------


class _Moved(Answer):
    """An agent moved into or out of a worktree: its provider session forgotten, relaunched if it ran."""

    agent: AgentSnapshot
    cleared_session: Literal[True]
    relaunched: bool


class WorktreeEnableAnswer(_Moved):
    worktree: dict[str, Any] = Field(description="The new worktree's record.")
    carried_over: list[str]
    not_overwritten: list[str]
    notes: list[str]
    setup: dict[str, Any] | None = Field(description="The set-up command's outcome; None: none ran.")


class WorktreeJoinAnswer(_Moved):
    worktree: dict[str, Any] = Field(description="The joined worktree's record.")


class WorktreeDisableAnswer(_Moved):
    left_worktree: str | None


class WorktreeRemoved(LeavesOutNone):
    """A worktree removed from its folder; archived first when `--force` took work it would lose."""

    LEFT_OUT_WHEN_NONE = frozenset({"archived", "restore", "notes"})

    id: str
    worktree_folder: str
    removed: Literal[True]
    archived: dict[str, Any] | None = None
    restore: list[str] | None = Field(None, description="The commands that bring the archived work back.")
    teardown: dict[str, Any] | None = Field(description="The tear-down command's outcome; None: none ran.")
    notes: list[str] | None = None
    branch: dict[str, Any] = Field(description="Whether its branch was deleted, and why (not).")


class WorktreeRemovedOutside(Answer):
    """A worktree whose folder was already gone: Wardian forgets it."""

    id: str
    worktree_folder: str
    removed: Literal[True]
    removed_outside_wardian: Literal[True]
    branch: dict[str, Any]


# -- web view and notices -----------------------------------------------------------------------


class WebOpenAnswer(LeavesOutNone):
    """`web.open`: the view's address with a one-time login, or an owner-only page holding one."""

    LEFT_OUT_WHEN_NONE = frozenset({"login_page", "port_taken"})

    url: str
    login_page: str | None = Field(None, description="With --login-page: the page's file.")
    listen: str
    port: int
    loopback: bool
    port_taken: int | None = Field(None, description="The port asked for, when another process held it.")


class WebRevokeAnswer(Answer):
    revoked: int = Field(description="The web view's sessions ended.")


class NotifyTestAnswer(Answer):
    """`notify.test`: the test notice, and whether each address in notify.urls took it."""

    notice: Notice
    sent: bool
    addresses: int
    reasons: list[str]
    hint: str | None


# Each kind's answer: one model, or a union of those it answers by what the request asked. A model
# the CLI reads too lives with the CLI's code (`Inbox`, which it merges across machines).
REQUEST_ANSWERS: dict[str, type[BaseModel] | UnionType] = {
    "host.status": HostStatusAnswer,
    "host.stop": HostStopAnswer,
    "host.whoami": WhoamiAnswer,
    "agents.list": AgentsListAnswer,
    "agent.wait": AgentSnapshot,
    "agent.spawn": SpawnAnswer,
    "agent.clone": SpawnAnswer,
    "agent.kill": AgentSnapshot,
    "agent.pause": AgentSnapshot,
    "agent.resume": AgentSnapshot,
    "agent.restart": AgentSnapshot,
    "agent.clear": AgentSnapshot,
    "agent.rename": AgentSnapshot,
    "agent.update": UpdateAnswer,
    "agent.delete": DeleteAnswer,
    "agent.resume_limit": AgentSnapshot,
    "agent.budget": BudgetAnswer,
    "ask": AskAnswer,
    "ask.wait": AskAnswer,
    "reply": ReplyAnswer,
    "inbox.list": Inbox,
    "inbox.seen": InboxSeenAnswer,
    "send": SendAnswer | ApprovalAnswer,  # by what it asked: a text or an approval
    "agent.run": RunAnswer,
    "agent.screen": ScreenAnswer,
    "agent.watch": WatchPage | WatchFollowEnd,  # by what it asked: a page, or to follow
    "agent.attach": AttachAnswer,
    "workflow.list": WorkflowListAnswer,
    "workflow.show": WorkflowShowAnswer,
    "workflow.run": WorkflowRunAnswer,
    "workflow.stop": WorkflowRunAnswer,
    "workflow.approve": WorkflowRunAnswer,
    "worktree.enable": WorktreeEnableAnswer,
    "worktree.join": WorktreeJoinAnswer,
    "worktree.disable": WorktreeDisableAnswer,
    "worktree.remove": WorktreeRemoved | WorktreeRemovedOutside,  # by whether its folder was still there
    "web.open": WebOpenAnswer,
    "web.revoke": WebRevokeAnswer,
    "notify.test": NotifyTestAnswer,
}
