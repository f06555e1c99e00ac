"""The control endpoint's request kinds, each a thin call into the host's objects."""

import os
from typing import TYPE_CHECKING, Any

from wardian_core.control.protocol import PROTOCOL_VERSION
from wardian_core.errors import WardianError
from wardian_core.version import __version__
from wardian_host.caller_identity import identify_caller
from wardian_host.control_server import Handler, RequestContext
from wardian_host.attaching import attach
from wardian_host.sending import answer_approval, send_message
from wardian_host.status_waits import wait_for_status
from wardian_host.watching import watch

if TYPE_CHECKING:
    from wardian_host.host import Host


def build_handlers(host: "Host") -> dict[str, Handler]:
    lifecycle = host.lifecycle

    async def host_status(_: Any, __: RequestContext) -> dict[str, Any]:
        agents = host.registry.all()
        return {
            "pid": os.getpid(),
            "home": str(host.home),
            "version": __version__,
            "protocol": PROTOCOL_VERSION,
            "socket": str(host.server.path),
            "started_at": host.started_at,
            "agents": len(agents),
            "running": sum(1 for agent in agents if agent.is_running),
        }

    async def host_stop(_: Any, __: RequestContext) -> dict[str, Any]:
        host.request_stop()
        return {"stopping": True, "pid": os.getpid()}

    async def host_whoami(_: Any, request: RequestContext) -> dict[str, Any]:
        agent, tie = identify_caller(request.peer, host.registry.all())
        return {
            "pid": request.peer.pid,
            "agent": agent.snapshot() if agent else None,
            "tie": tie,
        }

    async def agents_list(_: Any, __: RequestContext) -> list[dict[str, Any]]:
        return [agent.snapshot() for agent in host.registry.all()]

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
        agent = host.registry.resolve(params.target)
        return await wait_for_status(agent, params.until, params.timeout, params.next)

    async def send(params: Any, request: RequestContext) -> dict[str, Any]:
        if params.approval is not None:
            return await answer_approval(host, params)
        if params.text is None:
            raise WardianError("usage", "nothing to send", "Give a message, --stdin, --file, or --approval.")
        return await send_message(host, params, request)

    async def watch_output(params: Any, request: RequestContext) -> dict[str, Any]:
        return await watch(host.registry.resolve(params.target), params, request)

    async def attach_terminal(params: Any, request: RequestContext) -> dict[str, Any]:
        return await attach(host.registry.resolve(params.target), host.supervisor, params, request)

    async def run_headless(params: Any, _: RequestContext) -> dict[str, Any]:
        return await lifecycle.run_headless(params.target, params.prompt, params.resume, params.timeout)

    return {
        "agent.run": run_headless,
        "send": send,
        "agent.watch": watch_output,
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
