"""Launch and resume arguments: the real workspace as --cd always, exec flags after `exec`."""

from pathlib import Path

import pytest

from wardian_codex import argv, plugin
from wardian_core.errors import WardianError

THREAD = "01a2002d-bdb3-7ee1-918a-96982cc53b81"


def test_interactive_fresh_launch(make_ctx, tmp_path: Path) -> None:
    ctx = make_ctx(include_dirs=[tmp_path / "docs"], model="mock-model")
    plan = plugin.build_argv(ctx)
    assert plan.argv == [
        "codex",
        "--no-daemon",
        "--cd",
        str(ctx.workspace),
        "--add-dir",
        str(tmp_path / "docs"),
        "--model",
        "mock-model",
    ]
    assert plan.cwd == ctx.workspace
    assert plan.env == {"CODEX_HOME": str(ctx.agent_dir / "habitat" / ".codex")}


def test_interactive_resume_names_the_thread(make_ctx) -> None:
    ctx = make_ctx(session_mode="resume", provider_session_id=THREAD)
    assert plugin.build_argv(ctx).argv == ["codex", "resume", THREAD, "--no-daemon", "--cd", str(ctx.workspace)]
    assert plugin.resume_args(THREAD) == ["resume", THREAD]


def test_headless_run_and_resume(make_ctx) -> None:
    fresh = make_ctx(mode="headless", prompt="-starts with a dash")
    assert plugin.build_argv(fresh).argv == [
        "codex",
        "exec",
        "--json",
        "--skip-git-repo-check",
        "--cd",
        str(fresh.workspace),
        "--",
        "-starts with a dash",
    ]
    resumed = make_ctx(mode="headless", prompt="again", session_mode="resume", provider_session_id=THREAD)
    assert plugin.build_argv(resumed).argv == [
        "codex",
        "exec",
        "--json",
        "--skip-git-repo-check",
        "--cd",
        str(resumed.workspace),
        "resume",
        THREAD,
        "--",
        "again",
    ]


def test_runtime_policy_settings(make_ctx) -> None:
    settings = {"sandbox_mode": "workspace-write", "approval_policy": "on-request"}
    interactive = plugin.build_argv(make_ctx(settings=settings)).argv
    assert interactive[-4:] == ["--sandbox", "workspace-write", "--ask-for-approval", "on-request"]
    headless = plugin.build_argv(make_ctx(settings=settings, mode="headless", prompt="hi")).argv
    assert headless[-6:-2] == ["--sandbox", "workspace-write", "--config", 'approval_policy="on-request"']


def test_headless_without_prompt_is_a_usage_error(make_ctx) -> None:
    with pytest.raises(WardianError) as caught:
        argv.headless_argv(make_ctx(mode="headless"))
    assert caught.value.code == "usage"


def test_approval_source_is_the_threads_rollout_once_it_exists(make_ctx) -> None:
    ctx = make_ctx(session_mode="resume", provider_session_id=THREAD)
    assert plugin.approval_source(make_ctx()) is None
    assert plugin.approval_source(ctx) is None
    day = ctx.agent_dir / "habitat" / ".codex" / "sessions" / "2026" / "11" / "21"
    day.mkdir(parents=True)
    (day / f"rollout-2026-11-21T22-15-27-{THREAD}.jsonl").write_text("")
    source = plugin.approval_source(ctx)
    assert source.name == "rollout-resumed" and source.path.parent == day
    fresh = make_ctx(provider_session_id=THREAD)
    assert plugin.approval_source(fresh).name == "rollout"
    assert plugin.approval_source(make_ctx(mode="headless", provider_session_id=THREAD, prompt="x")) is None
