"""The control endpoint's request kinds, each a thin call into one of the host's parts.

The table pairs each kind with its model from `wardian_core.control.models` (the wire's
catalogue, REQUEST_PARAMS, which a test holds this table to) and a handler typed by it.
"""

import os
from collections.abc import Callable

from wardian_core.control.answers import (
    AgentsListAnswer,
    AgentSnapshot,
    ApprovalAnswer,
    AskAnswer,
    AttachAnswer,
    DeleteAnswer,
    HostStatusAnswer,
    HostStopAnswer,
    ReplyAnswer,
    RunAnswer,
    ScreenAnswer,
    SendAnswer,
    SpawnAnswer,
    UpdateAnswer,
    WatchFollowEnd,
    WatchPage,
    WhoamiAnswer,
)
from wardian_core.control.models import (
    AskParams,
    AskWaitParams,
    AttachParams,
    CloneParams,
    DeleteParams,
    HostStopParams,
    McpSessionParams,
    NoParams,
    RenameParams,
    ReplyParams,
    RunParams,
    SendParams,
    SpawnParams,
    TargetParams,
    UpdateParams,
    WaitParams,
    WatchParams,
)
from wardian_host.agents.asking import AskDesk
from wardian_host.agents.attaching import attach
from wardian_host.agents.lifecycle import AgentLifecycle
from wardian_host.agents.listing import list_agents
from wardian_host.agents.live_agent import Speaker
from wardian_host.agents.mcp_readiness import McpReadiness
from wardian_host.agents.registry import AgentRegistry
from wardian_host.agents.screens import show_screen
from wardian_host.agents.sending import Sender
from wardian_host.agents.status_waits import wait_across_restarts
from wardian_host.agents.watching import watch
from wardian_host.daemon.caller_identity import classify_caller
from wardian_host.daemon.control_server import RequestContext, Route, Routes
from wardian_host.daemon.mcp_sessions import McpSessions
from wardian_host.daemon.workflow_handlers import build_workflow_handlers
from wardian_host.daemon.worktree_handlers import build_worktree_handlers
from wardian_host.terminal.supervisor import TerminalSupervisor
from wardian_host.workflows.runner import WorkflowRunner


def build_handlers(
    *,
    registry: AgentRegistry,
    lifecycle: AgentLifecycle,
    sender: Sender,
    desk: AskDesk,
    workflows: WorkflowRunner,
    terminals: TerminalSupervisor,
    describe_host: Callable[[], HostStatusAnswer],
    request_stop: Callable[[bool], None],
    mcp_readiness: McpReadiness,
) -> Routes:
    async def host_status(_: NoParams, __: RequestContext) -> HostStatusAnswer:
        return describe_host()

    async def host_stop(params: HostStopParams, __: RequestContext) -> HostStopAnswer:
        request_stop(params.keep_agents)
        return HostStopAnswer(stopping=True, pid=os.getpid(), agents_kept=params.keep_agents)

    async def host_whoami(_: NoParams, request: RequestContext) -> WhoamiAnswer:
        return classify_caller(request.peer, registry.all(), terminals.cgroups).answer()

    async def agents_list(_: NoParams, request: RequestContext) -> AgentsListAnswer:
        return await list_agents(registry.all(), request)

    async def spawn(params: SpawnParams, _: RequestContext) -> SpawnAnswer:
        return await lifecycle.spawn(params)

    async def kill(params: TargetParams, _: RequestContext) -> AgentSnapshot:
        return await lifecycle.stop(params.target, "kill")

    async def pause(params: TargetParams, _: RequestContext) -> AgentSnapshot:
        return await lifecycle.stop(params.target, "pause")

    async def resume(params: TargetParams, _: RequestContext) -> AgentSnapshot:
        return await lifecycle.resume(params.target)

    async def restart(params: TargetParams, _: RequestContext) -> AgentSnapshot:
        return await lifecycle.restart(params.target)

    async def clear(params: TargetParams, _: RequestContext) -> AgentSnapshot:
        return await lifecycle.clear(params.target)

    async def update(params: UpdateParams, _: RequestContext) -> UpdateAnswer:
        return await lifecycle.update(params)

    async def clone(params: CloneParams, _: RequestContext) -> SpawnAnswer:
        return await lifecycle.clone(params.target, params.name, params.worktree)

    async def rename(params: RenameParams, _: RequestContext) -> AgentSnapshot:
        return await lifecycle.rename(params.target, params.new_name)

    async def delete(params: DeleteParams, _: RequestContext) -> DeleteAnswer:
        return await lifecycle.delete(params.target, params.confirm, params.force, params.keep_worktree)

    async def wait(params: WaitParams, request: RequestContext) -> AgentSnapshot:
        return await wait_across_restarts(registry.resolve(params.target), params, registry, request)

    def _speaker(request: RequestContext) -> tuple[Speaker | None, bool]:
        """The calling agent (verified, or only claimed), else the workflow node run it is part of."""
        caller = classify_caller(request.peer, registry.all(), terminals.cgroups)
        if caller.agent is None and (node_run := workflows.node_run_of(request.peer.pid)) is not None:
            return node_run, True
        return caller.agent, caller.verification == "verified"

    async def send(params: SendParams, request: RequestContext) -> SendAnswer | ApprovalAnswer:
        if params.approval is not None:
            return await sender.answer_approval(params.to, params.approval, params.timeout)
        speaker, verified = _speaker(request)
        return await sender.send_message(params, speaker, verified, request)

    async def ask(params: AskParams, request: RequestContext) -> AskAnswer:
        speaker, verified = _speaker(request)
        return await desk.ask(params, speaker, verified, request)

    async def ask_wait(params: AskWaitParams, request: RequestContext) -> AskAnswer:
        return await desk.wait_for_reply(params, request)

    async def reply(params: ReplyParams, request: RequestContext) -> ReplyAnswer:
        speaker, verified = _speaker(request)
        return desk.reply(params, speaker, verified, request.peer.pid)

    async def screen(params: TargetParams, _: RequestContext) -> ScreenAnswer:
        return ScreenAnswer.model_validate(await show_screen(registry.resolve(params.target)))

    async def watch_output(params: WatchParams, request: RequestContext) -> WatchPage | WatchFollowEnd:
        answer = await watch(registry.resolve(params.target), params, request)
        return WatchFollowEnd.model_validate(answer) if params.follow else WatchPage.model_validate(answer)

    async def attach_terminal(params: AttachParams, request: RequestContext) -> AttachAnswer:
        caller = classify_caller(request.peer, registry.all(), terminals.cgroups).agent
        return AttachAnswer.model_validate(
            await attach(registry.resolve(params.target), terminals, params, request, caller)
        )

    async def run_headless(params: RunParams, _: RequestContext) -> RunAnswer:
        run = await lifecycle.run_headless(params.target, params.prompt, params.resume, params.timeout)
        return RunAnswer.model_validate(run)

    routes: Routes = (
        build_workflow_handlers(lifecycle.home, workflows)
        | build_worktree_handlers(lifecycle)
        | {
            "agent.run": Route(RunParams, run_headless),
            "send": Route(SendParams, send),
            "ask": Route(AskParams, ask),
            "ask.wait": Route(AskWaitParams, ask_wait),
            "reply": Route(ReplyParams, reply),
            "agent.watch": Route(WatchParams, watch_output),
            "agent.screen": Route(TargetParams, screen),
            "agent.attach": Route(AttachParams, attach_terminal),
            "agent.wait": Route(WaitParams, wait),
            "host.status": Route(NoParams, host_status),
            "host.stop": Route(HostStopParams, host_stop),
            "host.whoami": Route(NoParams, host_whoami),
            "agents.list": Route(NoParams, agents_list),
            "agent.spawn": Route(SpawnParams, spawn),
            "agent.kill": Route(TargetParams, kill),
            "agent.pause": Route(TargetParams, pause),
            "agent.resume": Route(TargetParams, resume),
            "agent.restart": Route(TargetParams, restart),
            "agent.clear": Route(TargetParams, clear),
            "agent.update": Route(UpdateParams, update),
            "agent.clone": Route(CloneParams, clone),
            "agent.rename": Route(RenameParams, rename),
            "agent.delete": Route(DeleteParams, delete),
        }
    )
    # Wardian's MCP tools, served to every agent's relay (`wardian mcp`) through these same routes.
    sessions = McpSessions(routes, lambda peer: classify_caller(peer, registry.all(), terminals.cgroups), mcp_readiness)
    routes["mcp.session"] = Route(McpSessionParams, sessions.serve)
    return routes
