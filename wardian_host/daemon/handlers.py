"""The control endpoint's request kinds, each a thin call into one of the host's parts."""

import os
from collections.abc import Callable
from typing import Any

from wardian_core.errors import WardianError
from wardian_host.agents.asking import AskDesk
from wardian_host.agents.attaching import attach
from wardian_host.agents.lifecycle import AgentLifecycle
from wardian_host.agents.listing import list_agents
from wardian_host.agents.live_agent import Speaker
from wardian_host.agents.registry import AgentRegistry
from wardian_host.agents.screens import show_screen
from wardian_host.agents.sending import Sender
from wardian_host.agents.status_waits import wait_for_status
from wardian_host.agents.watching import watch
from wardian_host.daemon.caller_identity import classify_caller
from wardian_host.daemon.control_server import Handler, RequestContext
from wardian_host.daemon.workflow_handlers import build_workflow_handlers
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
    describe_host: Callable[[], dict[str, Any]],
    request_stop: Callable[[], None],
) -> dict[str, Handler]:
    async def host_status(_: Any, __: RequestContext) -> dict[str, Any]:
        return describe_host()

    async def host_stop(_: Any, __: RequestContext) -> dict[str, Any]:
        request_stop()
        return {"stopping": True, "pid": os.getpid()}

    async def host_whoami(_: Any, request: RequestContext) -> dict[str, Any]:
        return classify_caller(request.peer, registry.all(), terminals.cgroups).answer()

    async def agents_list(_: Any, request: RequestContext) -> dict[str, int]:
        return await list_agents(registry.all(), request)

    async def spawn(params: Any, _: RequestContext) -> dict[str, Any]:
        return await lifecycle.spawn(params.model_dump(by_alias=True))

    async def kill(params: Any, _: RequestContext) -> dict[str, Any]:
        return await lifecycle.stop(params.target, "kill")

    async def pause(params: Any, _: RequestContext) -> dict[str, Any]:
        return await lifecycle.stop(params.target, "pause")

    async def resume(params: Any, _: RequestContext) -> dict[str, Any]:
        return await lifecycle.resume(params.target)

    async def restart(params: Any, _: RequestContext) -> dict[str, Any]:
        return await lifecycle.restart(params.target)

    async def clear(params: Any, _: RequestContext) -> dict[str, Any]:
        return await lifecycle.clear(params.target)

    async def update(params: Any, _: RequestContext) -> dict[str, Any]:
        return await lifecycle.update(params)

    async def clone(params: Any, _: RequestContext) -> dict[str, Any]:
        return await lifecycle.clone(params.target, params.name)

    async def rename(params: Any, _: RequestContext) -> dict[str, Any]:
        return await lifecycle.rename(params.target, params.new_name)

    async def delete(params: Any, _: RequestContext) -> dict[str, Any]:
        return await lifecycle.delete(params.target, params.confirm, params.force)

    async def wait(params: Any, _: RequestContext) -> dict[str, Any]:
        agent = registry.resolve(params.target)
        return await wait_for_status(agent, params.until, params.timeout, params.next)

    def _speaker(request: RequestContext) -> tuple[Speaker | None, bool]:
        """The calling agent (verified, or only claimed), else the workflow node run it is part of."""
        caller = classify_caller(request.peer, registry.all(), terminals.cgroups)
        if caller.agent is None and (node_run := workflows.node_run_of(request.peer.pid)) is not None:
            return node_run, True
        return caller.agent, caller.verification == "verified"

    async def send(params: Any, request: RequestContext) -> dict[str, Any]:
        if params.approval is not None:
            return await sender.answer_approval(params)
        if params.text is None:
            raise WardianError("usage", "nothing to send", "Give a message, --stdin, --file, or --approval.")
        speaker, verified = _speaker(request)
        return await sender.send_message(params, speaker, verified)

    async def ask(params: Any, request: RequestContext) -> dict[str, Any]:
        speaker, verified = _speaker(request)
        return await desk.ask(params, speaker, verified, request)

    async def reply(params: Any, request: RequestContext) -> dict[str, Any]:
        speaker, verified = _speaker(request)
        return desk.reply(params, speaker, verified, request.peer.pid)

    async def screen(params: Any, _: RequestContext) -> dict[str, Any]:
        return await show_screen(registry.resolve(params.target))

    async def watch_output(params: Any, request: RequestContext) -> dict[str, Any]:
        return await watch(registry.resolve(params.target), params, request)

    async def attach_terminal(params: Any, request: RequestContext) -> dict[str, Any]:
        return await attach(registry.resolve(params.target), terminals, params, request)

    async def run_headless(params: Any, _: RequestContext) -> dict[str, Any]:
        return await lifecycle.run_headless(params.target, params.prompt, params.resume, params.timeout)

    return build_workflow_handlers(lifecycle.home, workflows) | {
        "agent.run": run_headless,
        "send": send,
        "ask": ask,
        "reply": reply,
        "agent.watch": watch_output,
        "agent.screen": screen,
        "agent.attach": attach_terminal,
        "agent.wait": wait,
        "host.status": host_status,
        "host.stop": host_stop,
        "host.whoami": host_whoami,
        "agents.list": agents_list,
        "agent.spawn": spawn,
        "agent.kill": kill,
        "agent.pause": pause,
        "agent.resume": resume,
        "agent.restart": restart,
        "agent.clear": clear,
        "agent.update": update,
        "agent.clone": clone,
        "agent.rename": rename,
        "agent.delete": delete,
    }
