"""Running workflow graphs in the host: independent nodes in parallel, each node's events
appended to the run's log in state.db as they happen.

A node starts once every node before it completed; a failed, skipped or stopped node
skips the nodes after it. `stop` ends running nodes' process groups and marks the rest
stopped; a host that stops (or died, found at the next start) leaves its runs `interrupted`.
"""

import asyncio
import logging
import secrets
import sqlite3
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

from wardian_core import paths
from wardian_core.db import workflow_runs as run_rows
from wardian_core.errors import WardianError
from wardian_core.workflows.model import AgentNode, ApprovalNode, Node, ShellNode, Workflow
from wardian_core.workflows.run_state import OPEN_NODE_STATES
from wardian_core.workflows.templates import TemplateError, render
from wardian_host.agents.headless import kill_group
from wardian_host.agents.lifecycle import AgentLifecycle
from wardian_host.agents.registry import AgentRegistry
from wardian_host.workflows.node_runs import AgentNodeParts, NodeFailed, NodeRun, run_agent, run_shell

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class NodeIdentity:
    """A node run as a caller: what `send` and `ask` record of it (a Speaker)."""

    name: str  # <workflow>/<node>
    uuid: str  # the node run's session id


@dataclass(eq=False)
class ActiveRun:
    workflow: Workflow
    run_id: str
    inputs: dict[str, str]
    workspace: Path
    states: dict[str, str] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)
    tasks: dict[str, "asyncio.Task[None]"] = field(default_factory=dict)
    approvals: dict[str, "asyncio.Future[bool]"] = field(default_factory=dict)
    ending: str | None = None  # "stopped" or "interrupted" once someone ends it
    done: asyncio.Event = field(default_factory=asyncio.Event)
    driver: "asyncio.Task[None] | None" = None


def run_inputs(workflow: Workflow, given: dict[str, str]) -> dict[str, str]:
    """The run's inputs: those given, then defaults; an unknown or missing one refuses the run."""
    unknown = sorted(set(given) - set(workflow.inputs))
    missing = sorted(name for name, spec in workflow.inputs.items() if name not in given and spec.default is None)
    if unknown or missing:
        raise WardianError(
            "validation_failed",
            f"workflow {workflow.id}: "
            + "; ".join(
                [f"unknown input {name!r}" for name in unknown] + [f"input {name!r} has no value" for name in missing]
            ),
            f"Give each declared input with --input NAME=VALUE (declared: {', '.join(workflow.inputs) or 'none'}).",
            {"unknown": unknown, "missing": missing},
        )
    return {name: spec.default for name, spec in workflow.inputs.items() if spec.default is not None} | given


class WorkflowRunner:
    def __init__(
        self,
        home: Path,
        conn: sqlite3.Connection,
        registry: AgentRegistry,
        lifecycle: AgentLifecycle,
        base_env: dict[str, str],
        on_change: Callable[[], None] = lambda: None,
    ) -> None:
        self._home = home
        self._on_change = on_change  # each event of a run: the web view shows runs with their nodes
        self._conn = conn
        self._parts = AgentNodeParts(lifecycle, registry, home)
        self._base_env = base_env
        self._active: dict[str, ActiveRun] = {}
        # The processes of running nodes, so a command they run is known as its node run.
        self._node_processes: dict[int, NodeIdentity] = {}

    def start(self, workflow: Workflow, inputs: dict[str, str], workspace: Path) -> str:
        values = run_inputs(workflow, inputs)
        run_id = "run_" + secrets.token_hex(6)
        run_rows.create_run(self._conn, run_id, workflow.id, workflow.model_dump(mode="json", by_alias=True), values)
        active = ActiveRun(workflow, run_id, values, workspace, {node.id: "pending" for node in workflow.nodes})
        self._active[run_id] = active
        active.driver = asyncio.ensure_future(self._drive(active))
        return run_id

    def node_run_of(self, pid: int) -> NodeIdentity | None:
        """The running node whose process is `pid` or one of its ancestors."""
        if not self._node_processes:
            return None
        try:
            chain = [pid, *(parent.pid for parent in psutil.Process(pid).parents())]
        except psutil.Error:
            return None
        return next((self._node_processes[member] for member in chain if member in self._node_processes), None)

    def describe(self, run_id: str) -> dict[str, Any]:
        """The run as its log rebuilds it; an unknown id is `not_found`."""
        run = run_rows.get_run(self._conn, run_id)
        if run is None:
            raise WardianError(
                "not_found",
                f"no workflow run {run_id}",
                "See the runs with `wardian workflow runs`.",
                {"run_id": run_id},
            )
        return run

    # The wait's --timeout: its expiry is an answer (False), the run goes on.
    async def wait(self, run_id: str, timeout: float | None) -> bool:  # noqa: ASYNC109
        """True once the run ended (at once for one that is not running here)."""
        active = self._active.get(run_id)
        if active is None:
            return True
        try:
            await asyncio.wait_for(active.done.wait(), timeout)
        except TimeoutError:
            return False
        return True

    async def stop(self, run_id: str, ending: str = "stopped") -> None:
        active = self._active.get(run_id)
        if active is None or active.done.is_set():
            return
        active.ending = ending
        for task in list(active.tasks.values()):
            task.cancel()
        await active.done.wait()

    async def stop_all(self) -> None:
        """The host is stopping: what still runs is interrupted."""
        await asyncio.gather(*(self.stop(run_id, "interrupted") for run_id in list(self._active)))

    async def approve(self, run_id: str, node_id: str, approved: bool) -> None:
        """Answer an approval node; returns once the node recorded how it ended."""
        active = self._active.get(run_id)
        waiting = active.approvals.get(node_id) if active else None
        if waiting is None or waiting.done():
            raise WardianError(
                "request_failed",
                f"node {node_id} of run {run_id} is not awaiting approval",
                f"See the run's nodes with `wardian workflow show <workflow> --run {run_id}`.",
                {"run_id": run_id, "node": node_id, "state": active.states.get(node_id) if active else None},
            )
        node_task = active.tasks.get(node_id) if active else None
        waiting.set_result(approved)
        if node_task is not None:
            await asyncio.wait({node_task})

    # -- driving a run -----------------------------------------------------------

    def _event(
        self, active: ActiveRun, kind: str, node: str | None = None, payload: dict[str, Any] | None = None
    ) -> None:
        run_rows.add_event(self._conn, active.run_id, kind, node, payload)
        self._on_change()

    async def _drive(self, active: ActiveRun) -> None:
        try:
            while True:
                self._skip_blocked(active)
                if active.ending is None:
                    for node in self._ready(active):
                        active.states[node.id] = "running"
                        active.tasks[node.id] = asyncio.ensure_future(self._run_node(active, node))
                if not active.tasks:
                    break
                finished, _ = await asyncio.wait(active.tasks.values(), return_when=asyncio.FIRST_COMPLETED)
                for node_id in [key for key, task in active.tasks.items() if task in finished]:
                    del active.tasks[node_id]
            self._finish(active)
        except Exception:  # a bug must not leave the run open for ever
            log.exception("workflow run %s failed", active.run_id)
            self._event(active, "run_failed", payload={"error": "internal error: see `wardian host logs`"})
        finally:
            active.done.set()
            self._active.pop(active.run_id, None)

    def _ready(self, active: ActiveRun) -> list[Any]:
        workflow = active.workflow
        return [
            node
            for node in workflow.nodes
            if active.states[node.id] == "pending"
            and all(active.states[source] == "completed" for source in workflow.upstream(node.id))
        ]

    def _skip_blocked(self, active: ActiveRun) -> None:
        """Pending nodes after a node that will never complete; repeated until nothing changes."""
        changed = active.ending is None  # a run being ended marks what waits `stopped` instead
        while changed:
            changed = False
            for node in active.workflow.nodes:
                blocked = [
                    source
                    for source in active.workflow.upstream(node.id)
                    if active.states[source] in ("failed", "skipped", "stopped")
                ]
                if active.states[node.id] == "pending" and blocked:
                    active.states[node.id] = "skipped"
                    self._event(active, "node_skipped", node.id, {"because": blocked[0]})
                    changed = True

    def _finish(self, active: ActiveRun) -> None:
        for node_id, state in active.states.items():
            if state in OPEN_NODE_STATES:
                active.states[node_id] = "stopped"
                self._event(active, "node_stopped", node_id, {"reason": active.ending or "stopped"})
        if active.ending is not None:
            self._event(active, f"run_{active.ending}")
        elif all(state == "completed" for state in active.states.values()):
            self._event(active, "run_completed")
        else:
            failed = [node_id for node_id, state in active.states.items() if state == "failed"]
            self._event(active, "run_failed", payload={"error": f"node {failed[0]} failed" if failed else "failed"})

    async def _run_node(self, active: ActiveRun, node: Node) -> None:
        run = NodeRun(
            run_id=active.run_id,
            session_id=str(uuid.uuid4()),
            directory=paths.workflow_run_dir(self._home, active.run_id) / node.id,
            workspace=active.workspace,
            inputs=active.inputs,
            outputs=active.outputs,
            record=lambda kind, payload: self._event(active, kind, node.id, payload),
        )
        identity = NodeIdentity(f"{active.workflow.id}/{node.id}", run.session_id)
        pids: list[int] = []

        def started(pid: int) -> None:
            pids.append(pid)
            self._node_processes[pid] = identity

        run.on_started = started
        run.directory.mkdir(parents=True, exist_ok=True)
        try:
            result = await self._execute(active, node, run)
        except NodeFailed as failure:
            active.states[node.id] = "failed"
            self._event(active, "node_failed", node.id, {"error": str(failure)} | failure.details)
        except asyncio.CancelledError:
            active.states[node.id] = "stopped"
            self._event(active, "node_stopped", node.id, {"reason": active.ending or "stopped"})
        except Exception as exc:
            log.exception("workflow run %s: node %s failed", active.run_id, node.id)
            active.states[node.id] = "failed"
            self._event(active, "node_failed", node.id, {"error": f"internal error: {exc}"})
        else:
            active.states[node.id] = "completed"
            active.outputs[node.id] = result["output"]
            self._event(active, "node_completed", node.id, result)
        finally:
            for pid in pids:
                self._node_processes.pop(pid, None)

    async def _execute(self, active: ActiveRun, node: Node, run: NodeRun) -> dict[str, Any]:
        if isinstance(node, ShellNode):
            return await run_shell(node, run, self._home, self._base_env)
        if isinstance(node, AgentNode):
            return await run_agent(node, active.workflow, run, self._parts)
        return await self._approval(active, node, run)

    async def _approval(self, active: ActiveRun, node: ApprovalNode, run: NodeRun) -> dict[str, Any]:
        try:
            message = render(node.message, run.inputs, run.outputs)
        except TemplateError as error:
            raise NodeFailed(str(error)) from None
        waiting = active.approvals[node.id] = asyncio.get_running_loop().create_future()
        active.states[node.id] = "awaiting_approval"
        self._event(active, "node_awaiting_approval", node.id, {"message": message})
        try:
            approved = await asyncio.wait_for(waiting, node.timeout)
        except TimeoutError:
            raise NodeFailed(f"no approval within {node.timeout:g} s") from None
        finally:
            active.approvals.pop(node.id, None)
        if not approved:
            raise NodeFailed("rejected", {"approved": False})
        return {"output": "approved", "approved": True}

    # -- after a host that died --------------------------------------------------

    def interrupt_leftovers(self) -> None:
        """Runs a previous host left open: their node processes ended, the runs marked interrupted."""
        for run_id in run_rows.unfinished_runs(self._conn):
            run = run_rows.get_run(self._conn, run_id)
            if run is None:
                continue
            for node_id, node in run["nodes"].items():
                if node["state"] == "running" and node.get("pid"):
                    _end_leftover(node["pid"], node.get("created"))
                if node["state"] in OPEN_NODE_STATES:
                    run_rows.add_event(self._conn, run_id, "node_stopped", node_id, {"reason": "interrupted"})
            run_rows.add_event(self._conn, run_id, "run_interrupted")
            log.warning("workflow run %s was left running by a previous host: interrupted", run_id)


def _end_leftover(pid: int, created: float | None) -> None:
    """The node's process group, if its leader is still the process the run started."""
    try:
        if created is not None and abs(psutil.Process(pid).create_time() - created) > 0.01:
            return
    except psutil.NoSuchProcess:
        pass  # the leader is gone; its group may not be
    except psutil.Error:
        return
    kill_group(pid)
