"""The example provider's plugin: who it is, and its hooks, each marked where its work is done."""

from wardian_core import hookimpl
from wardian_core.provider_models import (
    CONTRACT_VERSION,
    OutputSource,
    ProviderInfo,
    ProviderSetting,
    SpawnContext,
    TestedVersions,
)
from wardian_example import argv, home
from wardian_example.argv import launch_plan as build_argv
from wardian_example.argv import resume_args
from wardian_example.home import prepare as prepare_home
from wardian_example.parser import parse_output
from wardian_example.profile import INPUT_PROFILE

__all__ = [
    "approval_source",
    "build_argv",
    "parse_output",
    "prepare_home",
    "provider_info",
    "resume_args",
]


@hookimpl
def provider_info() -> ProviderInfo:
    return ProviderInfo(
        name="example",
        display_name="Example CLI",
        contract_version=CONTRACT_VERSION,
        executable=argv.EXECUTABLE,
        install_hint="Install it with `pip install wardian-example-cli`",
        instruction_file="AGENTS.md",
        session_id_mode="discovered",
        capabilities=["interactive", "headless", "resume", "approvals"],
        input_profile=INPUT_PROFILE,
        tested_versions=TestedVersions(oldest="1.0.0", newest="1.0.0"),
        settings=[
            ProviderSetting(
                name="events_url",
                description="A local server-sent-events URL where the CLI's approval requests appear.",
            ),
            ProviderSetting(
                name="tone", choices=["plain", "friendly"], default="plain", description="The CLI's --tone."
            ),
        ],
    )


@hookimpl
def approval_source(ctx: SpawnContext) -> list[OutputSource]:
    sources = []
    events_url = ctx.launch.settings.get("events_url")
    if ctx.mode == "interactive" and isinstance(events_url, str):
        sources.append(OutputSource(name="events", kind="sse", url=events_url, headers={"X-Example": ctx.agent_name}))
    if ctx.provider_session_id:
        path = home.example_home(ctx) / f"approvals-{ctx.provider_session_id}.jsonl"
        sources.append(OutputSource(name="approvals", kind="file", path=path))
    return sources
