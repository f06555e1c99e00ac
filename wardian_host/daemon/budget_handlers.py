"""The control endpoint's budget kinds: `agent.budget` (show, `--raise`, `--clear`), and spawn's
`--budget`, stored as the new agent's own budget once the spawn answers."""

from wardian_core.control.answers import BudgetAnswer, SpawnAnswer
from wardian_core.control.models import BudgetParams, SpawnParams
from wardian_host.agents.budgets import BudgetKeeper
from wardian_host.agents.registry import AgentRegistry
from wardian_host.daemon.control_server import RequestContext, Route, Routes


def build_budget_handlers(registry: AgentRegistry, keeper: BudgetKeeper, spawn: Route[SpawnParams]) -> Routes:
    """`spawn`: the plain spawn route, which the budgeted one wraps."""

    async def agent_budget(params: BudgetParams, _: RequestContext) -> BudgetAnswer:
        agent = registry.resolve(params.target)
        if params.clear or params.raise_by is not None:
            return BudgetAnswer.model_validate(keeper.change(agent, params.raise_by, params.clear))
        return BudgetAnswer.model_validate(keeper.report(agent))

    async def spawn_with_budget(params: SpawnParams, request: RequestContext) -> SpawnAnswer:
        answer: SpawnAnswer = await spawn.handler(params, request)
        if params.budget is not None:
            keeper.set_own(answer.uuid, params.budget)
        return answer

    return {"agent.budget": Route(BudgetParams, agent_budget), "agent.spawn": Route(SpawnParams, spawn_with_budget)}
