"""A workflow agent node in a worktree of its own, on the in-process host with a stand-in
provider (the host's plumbing: where the node runs and what is kept, not what a CLI prints)."""

import os
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pydantic
import pytest
from git_repos import configure_user_git, new_repository
from in_process_agents import WAIT_SECONDS
from stand_in_provider import StandIn, registered

from wardian_core import hookimpl
from wardian_core.db import open_writer
from wardian_core.db import worktrees as worktree_rows
from wardian_core.provider_models import (
    Evidence,
    LaunchPlan,
    OutputSource,
    ParseResult,
    ProviderEvent,
    SpawnContext,
)
from wardian_core.workflows.model import Workflow
from wardian_core.worktrees.operations import describe
from wardian_host.testing.in_process import InProcessHost
from wardian_host.testing.reaping import reap_home


class OneTurn:
    """Each line the run prints is one whole turn, its text the reply."""

    def feed(self, data: bytes) -> ParseResult:
        evidence = Evidence(source="headless", rule="a line", line=data.decode())
        turn = [ProviderEvent(kind="turn_started", evidence=evidence)]
        done = ProviderEvent(kind="turn_completed", evidence=evidence, message=data.decode())
        return ParseResult(events=[*turn, done])


class Worker(StandIn):
    name = "worker"
    capabilities = ("interactive", "headless")

    @hookimpl
    def build_argv(self, ctx: SpawnContext) -> LaunchPlan:
        return LaunchPlan(argv=["sh", "-c", "pwd > where.txt; echo worked"], cwd=ctx.workspace)

    @hookimpl
    def parse_output(self, ctx: SpawnContext, source: OutputSource) -> OneTurn:
        return OneTurn()


@pytest.fixture
def host(wardian_home: Path) -> Iterator[InProcessHost]:
    running = InProcessHost(wardian_home, registered(Worker()))
    try:
        yield running
    finally:
        try:
            running.close()
        finally:
            reap_home(wardian_home)


def node_workflow(**node: object) -> Workflow:
    agent = {"id": "build", "kind": "agent", "role": "builder", "prompt": "build it"} | node
    return Workflow.model_validate({"id": "wt", "roles": {"builder": {"provider": "worker"}}, "nodes": [agent]})


def test_an_agent_node_runs_in_its_own_worktree_kept_after_the_run(
    host: InProcessHost, tmp_path: Path, wardian_home: Path
) -> None:
    configure_user_git(Path(os.environ["HOME"]))
    repo = new_repository(tmp_path / "project")
    runner = host.host.workflows

    async def run() -> dict[str, object]:
        run_id = runner.start(node_workflow(worktree=True), {}, repo)
        assert await runner.wait(run_id, WAIT_SECONDS)
        return runner.describe(run_id)

    ended = host.call(run())
    node = ended["nodes"]["build"]  # type: ignore[index]
    assert (ended["status"], node["state"], node["output"]) == ("completed", "completed", "worked")
    folder = Path(node["worktree"]["worktree_folder"])
    assert (folder / "where.txt").read_text().strip() == str(folder)
    assert not (repo / "where.txt").exists()
    assert node["worktree"]["branch"] == f"wardian/{ended['run_id']}-build"

    with closing(open_writer(wardian_home)) as conn:
        kept = worktree_rows.get_worktree(conn, node["worktree"]["id"])
        assert kept is not None and kept.owner == f"workflow:{ended['run_id']}/build"
        view = describe(conn, kept)
    assert view.present and view.losses is not None and view.losses.untracked == ["where.txt"]
    assert view.can_remove is False, "kept for review under the same removal rules"


def test_a_worktree_node_cannot_resume_a_session_made_elsewhere() -> None:
    with pytest.raises(pydantic.ValidationError, match="inherit_resume"):
        node_workflow(worktree=True, run_mode="inherit_resume")
