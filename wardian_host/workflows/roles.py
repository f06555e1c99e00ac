"""Who plays a workflow role: an existing agent, the first agent of a class, or a provider alone."""

from dataclasses import dataclass

from wardian_core.errors import WardianError
from wardian_core.workflows.model import RoleMapping
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.agents.registry import AgentRegistry


@dataclass(frozen=True)
class Player:
    provider: str
    agent: LiveAgent | None  # None: a role mapped to a provider


def resolve_role(role: str, mapping: RoleMapping, registry: AgentRegistry) -> Player:
    if mapping.provider is not None:
        return Player(mapping.provider, None)
    if mapping.agent is not None:
        agent = registry.resolve(mapping.agent)
        return Player(agent.row["provider"], agent)
    members = [agent for agent in registry.all() if agent.row["class"] == mapping.class_name]
    if not members:
        raise WardianError(
            "not_found",
            f"role {role!r}: no agent of class {mapping.class_name!r}",
            "Spawn one (`wardian agent spawn --class …`) or map the role to a provider.",
            {"role": role, "class": mapping.class_name},
        )
    return Player(members[0].row["provider"], members[0])
