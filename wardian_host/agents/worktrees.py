"""Agents and their worktrees while the host runs: place a new agent in one, move one in or
out, release one on delete, remove a worktree no agent uses.

git and the set-up commands block, so each worktree operation runs in a thread with its own
state.db connection; the agent's own columns (`worktree`, `worktree_folder`, `branch`) are
written on the host's connection, by the registry's rules. Moving an agent (the lifecycle's
`move`) stops it, changes where it works and relaunches it in a fresh provider session: a
provider's session belongs to the folder it ran in.
"""

import asyncio
import sqlite3
from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any, TypeVar

from wardian_core.control.models import WorktreeRequest
from wardian_core.db import agents as agent_rows
from wardian_core.db import open_writer
from wardian_core.db import worktrees as worktree_rows
from wardian_core.db.agents import AgentRow
from wardian_core.errors import WardianError
from wardian_core.worktrees import creating, operations
from wardian_core.worktrees.records import WorktreeRecord
from wardian_host.agents.live_agent import LiveAgent
from wardian_host.agents.registry import AgentRegistry

T = TypeVar("T")


def check_present(row: AgentRow) -> None:
    """Refuse to launch an agent whose worktree folder is gone (removed outside Wardian)."""
    folder = row.get("worktree_folder")
    if folder and not Path(folder).is_dir():
        raise WardianError(
            "worktree_missing",
            f"agent {row['name']}'s worktree folder {folder} is gone (removed outside Wardian)",
            f"Move the agent back to its workspace: `wardian agent worktree disable {row['name']}`; "
            f"then forget the worktree: `wardian agent worktree remove {row.get('worktree')}`.",
            {"agent": row["name"], "worktree": row.get("worktree"), "worktree_folder": folder},
        )


class AgentWorktrees:
    def __init__(self, home: Path, conn: sqlite3.Connection, registry: AgentRegistry) -> None:
        self._home = home
        self._conn = conn
        self._registry = registry

    async def create_for(self, agent: LiveAgent, request: WorktreeRequest) -> dict[str, Any]:
        """A new worktree of the agent's workspace, the agent placed in it; the creation's report."""
        workspace = Path(agent.row["workspace"] or self._home)
        record, report = await self._in_thread(
            operations.create, workspace, stem=agent.name, branch=request.branch, base_ref=request.base
        )
        self._place(agent, record)
        return {"worktree": record.model_dump(mode="json")} | report

    async def create_for_node(self, workspace: Path, run_id: str, node_id: str) -> dict[str, Any]:
        """A workflow node's own worktree of `workspace`, kept after the run: its record, the
        folder matching `workspace` in it, and the set-up's outcome."""
        record, report = await self._in_thread(
            operations.create,
            workspace,
            stem=f"{run_id}-{node_id}",
            branch=None,
            base_ref=None,
            owner=f"workflow:{run_id}/{node_id}",
        )
        folder = operations.agent_folder(record, workspace)
        made = {"folder": str(folder), "setup": report["setup"], "notes": report["notes"]}
        return record.model_dump(mode="json") | made

    def joinable(self, reference: str, target: str) -> WorktreeRecord:
        """The worktree `reference` names, its folder still there, of the repository holding the
        workspace of the agent `target` names (checked before that agent is stopped)."""
        agent = self._registry.resolve(target)
        record = operations.find(self._conn, reference)
        workspace = Path(agent.row["workspace"] or self._home).resolve()
        if not workspace.is_relative_to(record.source_folder.resolve()):
            raise WardianError(
                "usage",
                f"worktree {record.id} is of {record.source_folder}, not of agent {agent.name}'s workspace {workspace}",
                "Join a worktree of the agent's own repository (`wardian agent worktree list`), or `enable` a new one.",
                {"agent": agent.name, "worktree": record.id, "source_folder": str(record.source_folder)},
            )
        if not record.worktree_folder.is_dir():
            raise WardianError(
                "worktree_missing",
                f"worktree {record.id}'s folder {record.worktree_folder} is gone (removed outside Wardian)",
                f"Forget it with `wardian agent worktree remove {record.id}`, or make a new one with `enable`.",
                {"worktree": record.id, "worktree_folder": str(record.worktree_folder)},
            )
        return record

    def join(self, agent: LiveAgent, record: WorktreeRecord) -> dict[str, Any]:
        self._place(agent, record)
        return {"worktree": record.model_dump(mode="json")}

    def leave(self, agent: LiveAgent) -> dict[str, Any]:
        """Back to its workspace; the worktree stays (removed only by `worktree remove`)."""
        left = agent.row.get("worktree")
        agent_rows.update_columns(self._conn, agent.uuid, worktree=None, worktree_folder=None, branch=None)
        self._registry.refresh(agent)
        return {"left_worktree": left}

    def check_can_enable(self, target: str, request: WorktreeRequest) -> None:
        """Refused before the agent is stopped: it has a worktree, its workspace is no repository,
        the branch is taken or bad, the base names nothing."""
        agent = self._registry.resolve(target)
        if agent.row.get("worktree"):
            raise WardianError(
                "usage",
                f"agent {agent.name} already works in worktree {agent.row['worktree']}",
                f"`wardian agent worktree disable {agent.name}` first, or `join` another worktree.",
                {"agent": agent.name, "worktree": agent.row["worktree"]},
            )
        top = creating.repository_top(Path(agent.row["workspace"] or self._home))
        if request.branch:
            creating.check_branch_name(top, request.branch)
        creating.resolve_base(top, request.base or "HEAD")

    def check_can_leave(self, target: str) -> None:
        agent = self._registry.resolve(target)
        if not agent.row.get("worktree"):
            raise WardianError(
                "usage",
                f"agent {agent.name} works in no worktree",
                f"`wardian agent worktree enable {agent.name}` gives it one.",
                {"agent": agent.name},
            )

    def _place(self, agent: LiveAgent, record: WorktreeRecord) -> None:
        folder = operations.agent_folder(record, Path(agent.row["workspace"] or self._home))
        columns = {"worktree": record.id, "worktree_folder": str(folder), "branch": record.branch}
        agent_rows.update_columns(self._conn, agent.uuid, **columns)
        self._registry.refresh(agent)

    async def check_release(self, agent: LiveAgent, keep: bool) -> WorktreeRecord | None:
        """The worktree a delete of `agent` removes too (it is its last agent); refused with
        `would_lose_work` before anything is stopped when that would lose work."""
        worktree_id = agent.row.get("worktree")
        if keep or not worktree_id or worktree_rows.member_agents(self._conn, worktree_id) != [agent.name]:
            return None
        record = worktree_rows.get_worktree(self._conn, worktree_id)
        if record is None or not record.worktree_folder.is_dir():
            return record
        losses = await asyncio.to_thread(operations.losses_of, record)
        if losses.any():
            error = operations.would_lose_work(record, losses)
            error.hint = (
                f"Commit or push what details.losses lists, or delete with --keep-worktree (the worktree "
                f"stays; `wardian agent worktree remove {record.id} --force` archives and removes it later)."
            )
            raise error
        return record

    async def remove_released(self, record: WorktreeRecord) -> dict[str, Any]:
        """After the delete: remove the worktree checked above; a late change keeps it, said so."""
        return await self.remove_released_id(record.id)

    async def remove_released_id(self, worktree_id: str) -> dict[str, Any]:
        try:
            return await self.remove(worktree_id, force=False, delete_branch=False)
        except WardianError as error:
            return {"id": worktree_id, "removed": False, "why": error.message}

    async def remove(self, reference: str, force: bool, delete_branch: bool) -> dict[str, Any]:
        record = operations.find(self._conn, reference)
        members = worktree_rows.member_agents(self._conn, record.id)
        if members:
            raise WardianError(
                "worktree_in_use",
                f"agents work in worktree {record.id}: {', '.join(members)}",
                "Move each back to its workspace (`wardian agent worktree disable NAME`) or delete it first.",
                {"worktree": record.id, "member_agents": members},
            )
        return await self._in_thread(operations.remove, record, force=force, delete_branch=delete_branch)

    async def _in_thread(self, operation: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        def run() -> T:
            with closing(open_writer(self._home)) as conn:
                return operation(conn, self._home, *args, **kwargs)

        return await asyncio.to_thread(run)
