"""`wardian send`: typing a message into agents, answering approvals, waiting for the result."""

import asyncio
from typing import TYPE_CHECKING, Any

from wardian_core.errors import WardianError
from wardian_host.caller_identity import identify_caller
from wardian_host.live_agent import LiveAgent
from wardian_host.status_waits import wait_for_status
from wardian_host.typing_input import type_prompt

if TYPE_CHECKING:
    from wardian_host.control_server import RequestContext
    from wardian_host.host import Host

BUSY_STATUSES = ("starting", "processing", "action_required")
APPROVAL_SETTLE_TIMEOUT = 10.0


def resolve_targets(host: "Host", to: str) -> list[LiveAgent]:
    agents = host.registry.all()
    if to == "all":
        return agents
    if to.startswith("class:"):
        class_name = to.removeprefix("class:")
        members = [agent for agent in agents if agent.row["class"] == class_name]
        if not members:
            raise WardianError(
                "not_found", f"no agent of class {class_name!r}", "See the classes with `wardian agent list --scope all`.",
                {"to": to},
            )  # fmt: skip
        return members
    return [host.registry.resolve(to)]


async def _deliver(host: "Host", agent: LiveAgent, text: str) -> dict[str, Any]:
    result: dict[str, Any] = {"agent": agent.name, "uuid": agent.uuid, "status": agent.status}
    if not agent.is_running:
        return result | {"result": "not_live", "reason": f"agent is {agent.status}: nothing to type into"}
    busy = agent.status in BUSY_STATUSES
    try:
        profile = host.plugins.info(agent.row["provider"]).input_profile
        await type_prompt(lambda data: host.supervisor.write(agent, data), text, profile)
    except (WardianError, OSError, RuntimeError) as exc:
        return result | {"result": "failed", "reason": str(getattr(exc, "message", exc))}
    # A busy provider queues typed input as it would a person's.
    return result | {"result": "delivered", "queued": busy}


async def send_message(host: "Host", params: Any, request: "RequestContext") -> dict[str, Any]:
    targets = resolve_targets(host, params.to)
    if params.wait_until and (len(targets) != 1 or params.to == "all" or params.to.startswith("class:")):
        raise WardianError(
            "usage", "--wait-until needs exactly one target", "Send to one agent by name or uuid.",
            {"to": params.to, "targets": len(targets)},
        )  # fmt: skip
    sender, _ = identify_caller(request.peer, host.registry.all())
    text = f"[from {sender.name}] {params.text}" if sender is not None else params.text
    waiter = None
    if params.wait_until and targets[0].is_running:
        waiter = asyncio.ensure_future(wait_for_status(targets[0], params.wait_until, params.timeout, True))
        await asyncio.sleep(0)  # let the waiter register before the first keystroke
    results = list(await asyncio.gather(*(_deliver(host, agent, text) for agent in targets)))
    answer: dict[str, Any] = {"results": results, "sender": sender.name if sender else None}
    if params.wait_until:
        if waiter is None or results[0]["result"] != "delivered":
            if waiter is not None:
                waiter.cancel()
            raise WardianError(
                "agent_exited", f"agent {targets[0].name} did not receive the message ({results[0]['result']})",
                f"Resume it first: `wardian agent resume {targets[0].name}`.", {"results": results},
            )  # fmt: skip
        answer["agent"] = await waiter
    return answer


async def answer_approval(host: "Host", params: Any) -> dict[str, Any]:
    targets = resolve_targets(host, params.to)
    if len(targets) != 1:
        raise WardianError("usage", "--approval needs exactly one target", "Name one agent with --to.")
    agent = targets[0]
    if agent.status != "action_required" or not agent.is_running:
        raise WardianError(
            "request_failed", f"agent {agent.name} is not waiting for an approval (it is {agent.status})",
            f"Check with `wardian agent {agent.name} --fields status,status_evidence`.",
            {"agent": agent.name, "status": agent.status},
        )  # fmt: skip
    profile = host.plugins.info(agent.row["provider"]).input_profile
    keys = profile.approve_keys if params.approval == "accept" else profile.reject_keys
    if not keys:
        raise WardianError(
            "not_supported", f"provider {agent.row['provider']} declares no keys to {params.approval} an approval",
            "Answer it in the agent's terminal: `wardian agent attach`.", {"provider": agent.row["provider"]},
        )  # fmt: skip
    left: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    def on_status(_: LiveAgent, status: str) -> None:
        if status != "action_required" and not left.done():
            left.set_result(status)

    agent.listeners.add(on_status)
    try:
        host.supervisor.write(agent, keys.encode())
        try:
            status = await asyncio.wait_for(left, params.timeout or APPROVAL_SETTLE_TIMEOUT)
        except TimeoutError:
            status = agent.status
    finally:
        agent.listeners.discard(on_status)
    return {
        "results": [{"agent": agent.name, "uuid": agent.uuid, "result": "delivered", "approval": params.approval}],
        "left_action_required": status != "action_required",
        "agent": agent.snapshot(),
    }
