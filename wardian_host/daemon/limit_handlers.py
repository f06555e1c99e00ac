"""The control endpoint's `agent.resume_limit`: continue, now, the turn a usage limit cut
(`wardian agent resume-limit`, the inbox's `limit` entry)."""

from wardian_core.control.answers import AgentSnapshot
from wardian_core.control.models import TargetParams
from wardian_host.agents.limit_resumer import LimitResumer
from wardian_host.agents.registry import AgentRegistry
from wardian_host.daemon.control_server import RequestContext, Route, Routes


def build_limit_handlers(registry: AgentRegistry, resumer: LimitResumer) -> Routes:
    async def resume_limit(params: TargetParams, _: RequestContext) -> AgentSnapshot:
        return await resumer.resume_now(registry.resolve(params.target))

    return {"agent.resume_limit": Route(TargetParams, resume_limit)}
