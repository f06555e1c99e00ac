"""The example provider's plugin: its hooks, each marked where its work is done, and who it is
(provider.toml beside this file)."""

from wardian_core.provider import LimitReport, LimitResume, OutputSource, SpawnContext, declared_provider_info, hookimpl
from wardian_example import argv, home
from wardian_example.argv import launch_plan as build_argv
from wardian_example.argv import resume_args
from wardian_example.home import prepare as prepare_home
from wardian_example.parser import parse_output
from wardian_example.profile import INPUT_PROFILE

provider_info = declared_provider_info(__file__, executable=argv.EXECUTABLE, input_profile=INPUT_PROFILE)


@hookimpl
def approval_source(ctx: SpawnContext) -> list[OutputSource]:
    sources = []
    events_url = ctx.launch.settings.get("events_url")
    if ctx.mode == "interactive" and isinstance(events_url, str):
        sources.append(OutputSource(name="events", kind="sse", url=events_url, headers={"X-Example": ctx.agent_name}))
    if ctx.mode == "interactive":
        sources.append(OutputSource(name="hooks", kind="file", path=home.hooks_file(ctx)))
    if ctx.provider_session_id:
        path = home.example_home(ctx) / f"approvals-{ctx.provider_session_id}.jsonl"
        sources.append(OutputSource(name="approvals", kind="file", path=path))
    return sources


@hookimpl
def limit_resume(ctx: SpawnContext, limit: LimitReport) -> LimitResume:
    """The CLI's limit menu takes the next key: Escape leaves it (any other key takes its upgrade
    offer), then `continue` goes on. The setting `limit_resume` picks another way, for tests."""
    how = ctx.launch.settings.get("limit_resume", "text")
    if how == "wait":
        return LimitResume(how="wait", text=None)
    return LimitResume(how="resume" if how == "resume" else "text", keys=["escape"], text="continue")
