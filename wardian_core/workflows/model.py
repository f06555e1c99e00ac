"""The workflow file format: one JSON document per workflow under `<home>/workflows/`.

`wardian workflow schema` prints this model's JSON Schema. Structure is checked here;
what needs the whole graph (edges, cycles, roles, interpolations) is `validation`.
"""

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$"
RunMode = Literal["ephemeral", "inherit_fresh", "inherit_resume"]
RUN_MODES: tuple[str, ...] = ("ephemeral", "inherit_fresh", "inherit_resume")
DEFAULT_NODE_TIMEOUT = 600.0


class _Model(BaseModel):
    # Built when a workflow is first read: most hosts never read one.
    model_config = ConfigDict(extra="forbid", populate_by_name=True, defer_build=True)


class WorkflowInput(_Model):
    description: str = ""
    default: str | None = Field(None, description="Used when `run` gives no value; without one the input is required.")


class RoleMapping(_Model):
    """Who plays a role: an existing agent (by name or uuid), the first agent of a class, or a provider."""

    agent: str | None = None
    class_name: str | None = Field(None, alias="class")
    provider: str | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> "RoleMapping":
        if sum(value is not None for value in (self.agent, self.class_name, self.provider)) != 1:
            raise ValueError("a role maps to exactly one of `agent`, `class` or `provider`")
        return self


class _Node(_Model):
    id: str = Field(pattern=ID_PATTERN)
    timeout: float = Field(DEFAULT_NODE_TIMEOUT, gt=0, description="Seconds before the node is ended and failed.")


class AgentNode(_Node):
    kind: Literal["agent"]
    role: str = Field(min_length=1)
    prompt: str = Field(min_length=1, description="Template: {{inputs.x}}, {{nodes.<id>.output}}.")
    run_mode: RunMode = "ephemeral"
    wait_for_agent_off: bool = Field(
        False, description="inherit_resume: wait until the role agent is off instead of refusing a live one."
    )
    output_schema: dict[str, Any] | None = Field(
        None, description="The reply must contain a JSON object with these `required` keys; it becomes the output."
    )
    worktree: bool = Field(
        False,
        description="Run in a new git worktree of the node's workspace, on branch wardian/<run>-<node>, kept after "
        "the run for review (docs/worktrees.md).",
    )

    @model_validator(mode="after")
    def _worktree_needs_a_fresh_session(self) -> "AgentNode":
        # A resumed provider session belongs to the folder it ran in, not to a new checkout.
        if self.worktree and self.run_mode == "inherit_resume":
            raise ValueError("`worktree` runs a fresh session: it cannot go with run_mode inherit_resume")
        return self


class ShellNode(_Node):
    kind: Literal["shell"]
    command: str = Field(min_length=1, description="Run by `sh -c`; interpolated values are shell-quoted.")
    cwd: str | None = Field(None, description="Working directory (default: the run's own directory).")


class ApprovalNode(_Node):
    kind: Literal["approval"]
    message: str = Field("", description="What the approver is asked (a template).")
    timeout: float = Field(24 * 3600.0, gt=0)


Node = Annotated[AgentNode | ShellNode | ApprovalNode, Field(discriminator="kind")]
NODE_KINDS: tuple[str, ...] = ("agent", "shell", "approval")


class Edge(_Model):
    source: str = Field(alias="from")
    target: str = Field(alias="to")


class Workflow(_Model):
    id: str = Field(pattern=ID_PATTERN)
    name: str = ""
    description: str = ""
    inputs: dict[str, WorkflowInput] = Field(default_factory=dict)
    roles: dict[str, RoleMapping] = Field(default_factory=dict)
    nodes: list[Node] = Field(min_length=1)
    edges: list[Edge] = Field(default_factory=list)

    def node(self, node_id: str) -> AgentNode | ShellNode | ApprovalNode:
        return next(node for node in self.nodes if node.id == node_id)

    def upstream(self, node_id: str) -> list[str]:
        return [edge.source for edge in self.edges if edge.target == node_id]

    def downstream(self, node_id: str) -> list[str]:
        return [edge.target for edge in self.edges if edge.source == node_id]


def workflow_schema() -> dict[str, Any]:
    return Workflow.model_json_schema(by_alias=True)
