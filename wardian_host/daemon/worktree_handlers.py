"""The control endpoint's worktree request kinds: move an agent into a new or an existing
worktree or back to its workspace, and remove a worktree no agent uses (listing reads state.db
in the CLI itself). What would refuse a move is checked before the agent is stopped."""

from typing import Any

from wardian_core.control.answers import (
    WorktreeDisableAnswer,
    WorktreeEnableAnswer,
    WorktreeJoinAnswer,
    WorktreeRemoved,
    WorktreeRemovedOutside,
)
from wardian_core.control.models import TargetParams, WorktreeEnableParams, WorktreeJoinParams, WorktreeRemoveParams
from wardian_host.agents.lifecycle import AgentLifecycle
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.daemon.control_server import RequestContext, Route, Routes


def build_worktree_handlers(lifecycle: AgentLifecycle) -> Routes:
    async def enable(params: WorktreeEnableParams, _: RequestContext) -> WorktreeEnableAnswer:
        worktrees = lifecycle.worktrees
        worktrees.check_can_enable(params.target, params.worktree)
        moved = await lifecycle.move(params.target, lambda agent: worktrees.create_for(agent, params.worktree))
        return WorktreeEnableAnswer.model_validate(moved)

    async def join(params: WorktreeJoinParams, _: RequestContext) -> WorktreeJoinAnswer:
        record = lifecycle.worktrees.joinable(params.worktree, params.target)

        def place(agent: LiveAgent) -> dict[str, Any]:
            return lifecycle.worktrees.join(agent, record)

        return WorktreeJoinAnswer.model_validate(await lifecycle.move(params.target, place))

    async def disable(params: TargetParams, _: RequestContext) -> WorktreeDisableAnswer:
        lifecycle.worktrees.check_can_leave(params.target)
        return WorktreeDisableAnswer.model_validate(await lifecycle.move(params.target, lifecycle.worktrees.leave))

    async def remove(params: WorktreeRemoveParams, _: RequestContext) -> WorktreeRemoved | WorktreeRemovedOutside:
        removed = await lifecycle.worktrees.remove(params.worktree, params.force, params.delete_branch)
        if removed.get("removed_outside_wardian"):
            return WorktreeRemovedOutside.model_validate(removed)
        return WorktreeRemoved.model_validate(removed)

    return {
        "worktree.enable": Route(WorktreeEnableParams, enable),
        "worktree.join": Route(WorktreeJoinParams, join),
        "worktree.disable": Route(TargetParams, disable),
        "worktree.remove": Route(WorktreeRemoveParams, remove),
    }
