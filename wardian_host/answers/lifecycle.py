"""What the lifecycle verbs answer (and their MCP tools): a new agent (`agent spawn`), an agent
after a change (kill, pause, resume, ...), and an agent once it has a status (`agent wait`)."""

from typing import Any, NamedTuple

from wardian_core.budget_specs import spawn_limits
from wardian_core.errors import WardianError
from wardian_core.fields import DEFAULT_FIELDS, to_record
from wardian_core.identity import resolve_workspace
from wardian_host.answers.connection import caller_cwd, from_caller, lifecycle_timeout, request
from wardian_host.answers.key_values import setting_pairs
from wardian_host.answers.records import OutputOptions, agent_envelope, live_agent_envelope

# The fields of a new agent in a worktree: where it works, and on which branch.
AGENT_FIELDS = (*DEFAULT_FIELDS, "worktree", "worktree_folder", "branch")


class SpawnOrder(NamedTuple):
    """`agent spawn`'s flags as given (the CLI's and the MCP tool `spawn_agent`'s)."""

    provider: str
    class_name: str
    name: str | None = None
    workspace: str | None = None
    description: str | None = None
    model: str | None = None
    args: tuple[str, ...] = ()
    include_dirs: tuple[str, ...] = ()
    session_persistence: str | None = None
    provider_settings: tuple[str, ...] = ()
    worktree: str | None = None  # "" for a branch named after the agent
    base: str | None = None
    trust_repo: bool = False
    recording: bool = True
    budget: str | None = None  # `--budget tokens=N,usd=X,minutes=M`


def spawn_answer(order: SpawnOrder) -> dict[str, Any]:
    """What `agent spawn` prints (and the MCP tool `spawn_agent` answers): the new agent."""
    return spawned(spawn_request(order))


def spawn_request(order: SpawnOrder) -> dict[str, Any]:
    """The host's `agent.spawn` parameters for `order`, every flag checked."""
    launch_config = {
        "settings": setting_pairs(order.provider_settings, "--provider-setting"),
        "model": order.model or None,
        "extra_args": list(order.args),
        "include_dirs": [resolve_workspace(from_caller(directory)) for directory in order.include_dirs],
        "session_persistence": order.session_persistence or "default",
        "recording": order.recording,
    }
    budget = {"budget": spawn_limits(order.budget)} if order.budget is not None else {}
    return budget | {
        "provider": order.provider,
        "class": order.class_name,
        "workspace": resolve_workspace(from_caller(order.workspace) if order.workspace else caller_cwd()),
        "name": order.name,
        "description": order.description,
        "launch_config": launch_config,
        "worktree": worktree_request(order.worktree, order.base, order.trust_repo),
    }


def spawned(params: dict[str, Any]) -> dict[str, Any]:
    """The new agent the host made of `params` (`spawn_request`)."""
    # A worktree's set-up command runs under its own timeout (settings.toml worktrees.timeout_seconds).
    timeout = None if params["worktree"] is not None else lifecycle_timeout()
    return made_envelope(request("agent.spawn", params, timeout=timeout))


def worktree_request(worktree: str | None, base: str | None, trust_repo: bool = False) -> dict[str, Any] | None:
    """The worktree a new agent is asked to work in (spawn, clone), None for none; `--base` and
    `--trust-repo` need `--worktree`."""
    if worktree is None:
        for flag, given in (("--base", base is not None), ("--trust-repo", trust_repo)):
            if given:
                raise WardianError("usage", f"{flag} needs --worktree", f"Add --worktree [BRANCH], or drop {flag}.")
        return None
    return {"branch": worktree or None, "base": base}


def made_envelope(answer: dict[str, Any]) -> dict[str, Any]:
    """The new agent, and with a worktree what its making did (carried files, set-up outcome)."""
    made: dict[str, Any] | None = answer.get("worktree_made")
    if made is None:
        return live_agent_envelope(answer)
    # The same keys as a move's answer (`agent worktree enable`): `worktree`, `carried_over`, ...
    return agent_envelope(to_record(answer, "live"), OutputOptions(fields=AGENT_FIELDS)) | made


def target_answer(kind: str, target: str) -> dict[str, Any]:
    """What a command on one agent prints (kill, pause, resume, ...): the agent after the change."""
    return live_agent_envelope(request(kind, {"target": target}, timeout=lifecycle_timeout()))


def wait_answer(target: str, until: str, timeout: float | None, next_change: bool = False) -> dict[str, Any]:
    """What `agent wait` prints (and the MCP tool `wait_for_agent` answers): the agent once it has the status."""
    from wardian_host.answers.host_return import across_restarts

    params = {"target": target, "until": until, "timeout": timeout, "next": next_change}

    def again(heard: dict[str, Any], remaining: float | None) -> tuple[str, dict[str, Any]]:
        return "agent.wait", params | {"timeout": remaining, "arrived_after": heard.get("waiting_after")}

    snapshot = across_restarts(("agent.wait", params), timeout, {}, again, 10)
    return with_limit(live_agent_envelope(snapshot), snapshot)


def with_limit(answer: dict[str, Any], snapshot: dict[str, Any]) -> dict[str, Any]:
    """A wait's answer for an agent waiting out a usage limit: the limit beside its status, and,
    when it is idle because the limit cut its turn, `idle_reason: "limit"` (not a finished turn)."""
    limit = to_record(snapshot, "live")["limit"]
    if limit is None:
        return answer
    answer["agent"]["limit"] = limit
    if snapshot["status"] == "idle" and limit.get("state") == "cut":
        answer["idle_reason"] = "limit"
    return answer
