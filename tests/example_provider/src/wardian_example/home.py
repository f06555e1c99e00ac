"""The per-agent home of `wardian-example-cli`: EXAMPLE_HOME under the agent's directory."""

from pathlib import Path

from wardian_core.provider import HomePlan, SpawnContext, hookimpl


def example_home(ctx: SpawnContext) -> Path:
    return ctx.agent_dir / "example"


def hooks_file(ctx: SpawnContext) -> Path:
    """The log the CLI's hooks append a JSON line to at each step of a turn."""
    return example_home(ctx) / "hooks.jsonl"


@hookimpl(specname="prepare_home")
def prepare(ctx: SpawnContext) -> HomePlan:
    home = example_home(ctx)
    home.mkdir(parents=True, exist_ok=True)
    roots = "\n".join(str(root / "AGENTS.md") for root in ctx.include_roots)
    (home / "instructions.txt").write_text(roots + "\n" if roots else "", encoding="utf-8")
    return HomePlan(env={"EXAMPLE_HOME": str(home)})
