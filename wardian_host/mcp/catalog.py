"""The MCP tools: each a CLI verb, its input the command's flags (`params`), its answer what the
command prints, computed by the function the command itself calls (`wardian_host.answers`).

Each call runs in a worker thread of the host (the answers block on their connection) and
imports what it needs when it runs, so the host's start-up pays for none of it.
"""

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from wardian_core.durations import parse_duration
from wardian_host.mcp import long_calls
from wardian_host.mcp.params import (
    AgentParams,
    AskParams,
    ListAgentsParams,
    NoParams,
    ReplyParams,
    RequestParams,
    RunStatusParams,
    RunWorkflowParams,
    SendParams,
    ShowAgentParams,
    SpawnParams,
    ToolParams,
    WaitParams,
    WatchParams,
    WorkflowParams,
)

P = TypeVar("P", bound=ToolParams)
Answer = dict[str, Any]


@dataclass(frozen=True)
class McpTool(Generic[P]):
    name: str
    description: str
    params: type[P]
    call: Callable[[P], Answer]
    waits: bool = False  # may wait long: reports progress, and is cut at the call budget
    read_only: bool = False

    def run(self, arguments: ToolParams) -> Answer:
        assert isinstance(arguments, self.params)
        return self.call(arguments)


def duration(text: str | None) -> float | None:
    return parse_duration(text) if text is not None else None


def _text(params: AskParams | SendParams | ReplyParams) -> str:
    from wardian_host.answers.messages import read_message

    return read_message(params.message, False, params.file)


def whoami(_: NoParams) -> Answer:
    from wardian_host.answers.host import whoami_answer

    return whoami_answer()


def list_agents(params: ListAgentsParams) -> Answer:
    from wardian_host.answers.agents import AgentFilters, listed_agents
    from wardian_host.answers.records import OutputOptions, agents_envelope

    options = OutputOptions.from_flags(params.fields, None, params.verbose, False)
    if params.limited and params.fields is None:
        options = options._replace(fields=(*options.columns(), "limit"))
    filters = AgentFilters(params.scope, params.status, params.class_name, params.workspace, params.limited)
    records, notice = listed_agents(filters)
    return agents_envelope(records, options, notice)


def show_agent(params: ShowAgentParams) -> Answer:
    from wardian_host.answers.agents import OutputFlags, shown_agent
    from wardian_host.answers.records import agent_envelope

    return agent_envelope(*shown_agent(params.agent, OutputFlags(params.fields, None, params.verbose)))


def send(params: SendParams) -> Answer:
    from wardian_host.answers.send import SendOrder, send_answer

    if params.approval is not None and (params.message is not None or params.file is not None):
        from wardian_core.errors import WardianError

        raise WardianError("usage", "approval takes no message", "Send the approval alone.")
    text = None if params.approval is not None else _text(params)
    timeout = duration(params.timeout)
    return send_answer(SendOrder(params.to, text, params.wait_until, timeout, params.approval, params.raw))


def reply(params: ReplyParams) -> Answer:
    from wardian_host.answers.reply import reply_answer

    return reply_answer(params.request_id, _text(params), params.status)


def show_request(params: RequestParams) -> Answer:
    from wardian_host.answers.ask import request_answer

    return request_answer(params.request_id)


def agent_screen(params: AgentParams) -> Answer:
    from wardian_host.answers.screens import screen_answer

    return screen_answer(params.agent)


def watch_output(params: WatchParams) -> Answer:
    from wardian_host.answers.watching import until_params, watch_answer

    watched = {"target": params.agent, "since": params.since, "timeout": duration(params.timeout), "raw": params.raw}
    return watch_answer(watched | {"follow": False} | until_params(params.until))


def spawn_agent(params: SpawnParams) -> Answer:
    from wardian_host.answers.lifecycle import SpawnOrder, spawn_answer

    given = (params.name, params.workspace, params.description, params.model, tuple(params.args))
    settings = (tuple(params.include_dirs), params.session_persistence, tuple(params.provider_settings))
    return spawn_answer(SpawnOrder(params.provider, params.class_name, *given, *settings))


def _on_agent(kind: str) -> Callable[[AgentParams], Answer]:
    def call(params: AgentParams) -> Answer:
        from wardian_host.answers.lifecycle import target_answer

        return target_answer(kind, params.agent)

    return call


def list_workflows(_: NoParams) -> Answer:
    from wardian_host.answers.workflows import workflows_answer

    return workflows_answer()


def show_workflow(params: WorkflowParams) -> Answer:
    from wardian_host.answers.workflows import workflow_answer

    return workflow_answer(params.workflow_id)


def workflow_run_status(params: RunStatusParams) -> Answer:
    from wardian_host.answers.workflows import workflow_answer

    return workflow_answer(params.workflow_id, params.run_id)


def run_workflow(params: RunWorkflowParams) -> Answer:
    from wardian_host.answers.workflow_runs import run_answer

    timeout = duration(params.timeout)
    return run_answer(params.workflow_id, tuple(params.inputs), params.workspace, params.wait, timeout)


def ask(params: AskParams) -> Answer:
    from wardian_host.answers.ask import Question, until_token

    question = Question(params.agent, _text(params), until_token(params.until), duration(params.timeout))
    return long_calls.ask_within_budget(question._replace(wait=not params.no_wait))


def wait_for_agent(params: WaitParams) -> Answer:
    return long_calls.wait_within_budget(params.agent, params.until, duration(params.timeout), params.next)


# Tools that change nothing: the client may show them as such (MCP tool annotations).
READ_ONLY = {"whoami", "list_agents", "show_agent", "agent_screen", "show_request", "watch_output"}
READ_ONLY |= {"list_workflows", "show_workflow", "workflow_run_status"}
WAITING = {"ask", "wait_for_agent"}


def _tool(name: str, description: str, params: type[P], call: Callable[[P], Answer]) -> McpTool[Any]:
    return McpTool(name, description, params, call, waits=name in WAITING, read_only=name in READ_ONLY)


TOOLS: dict[str, McpTool[Any]] = {
    tool.name: tool
    for tool in (
        _tool("whoami", "Which agent the host takes you for, and how it knows (host whoami).", NoParams, whoami),
        _tool("list_agents", "Agents and their statuses, filtered as `agent list`.", ListAgentsParams, list_agents),
        _tool("show_agent", "One agent's record; without `agent`, your own.", ShowAgentParams, show_agent),
        _tool("agent_screen", "A live agent's visible terminal screen.", AgentParams, agent_screen),
        _tool("reply", "Answer a Wardian request you were asked (its id is in the question).", ReplyParams, reply),
        _tool("send", "Type a message into agents' terminals, or answer an approval.", SendParams, send),
        _tool("ask", "Ask an agent and wait for its structured reply.", AskParams, ask),
        _tool("wait_for_agent", "Wait until an agent has a status.", WaitParams, wait_for_agent),
        _tool("show_request", "A request and its reply, if any (ask show).", RequestParams, show_request),
        _tool("watch_output", "What an agent printed since a cursor (agent watch).", WatchParams, watch_output),
        _tool("spawn_agent", "Start a new agent (agent spawn).", SpawnParams, spawn_agent),
        _tool("kill_agent", "End an agent's whole process tree.", AgentParams, _on_agent("agent.kill")),
        _tool("pause_agent", "Stop an agent, keeping its provider session.", AgentParams, _on_agent("agent.pause")),
        _tool("resume_agent", "Relaunch a stopped agent.", AgentParams, _on_agent("agent.resume")),
        _tool("list_workflows", "Every workflow file (workflow list).", NoParams, list_workflows),
        _tool("show_workflow", "A workflow's whole definition (workflow show).", WorkflowParams, show_workflow),
        _tool("run_workflow", "Start a run of a workflow (workflow run).", RunWorkflowParams, run_workflow),
        _tool("workflow_run_status", "A workflow run with its nodes and events.", RunStatusParams, workflow_run_status),
    )
}
