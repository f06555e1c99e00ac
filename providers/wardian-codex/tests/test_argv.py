"""Launch and resume arguments: the real workspace as --cd always, exec flags after `exec`."""

from pathlib import Path

import pytest

from wardian_codex import argv, plugin
from wardian_core.provider import WardianError

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


def test_resume_args_name_the_thread(make_ctx) -> None:
    assert plugin.resume_args(session_id=THREAD) == ["resume", THREAD]


def test_interactive_resume_places_the_hosts_resume_args_right_after_codex(make_ctx) -> None:
    ctx = make_ctx(session_mode="resume", provider_session_id=THREAD, resume_args=["resume", THREAD])
    assert plugin.build_argv(ctx).argv == ["codex", "resume", THREAD, "--no-daemon", "--cd", str(ctx.workspace)]


def test_a_resume_launch_places_what_the_host_hands_over_never_its_own_copy(make_ctx) -> None:
    handed = ["resume", "from-the-host"]
    interactive = make_ctx(session_mode="resume", provider_session_id=THREAD, resume_args=handed)
    assert plugin.build_argv(interactive).argv[:3] == ["codex", *handed]
    assert THREAD not in plugin.build_argv(interactive).argv
    headless = make_ctx(mode="headless", prompt="x", session_mode="resume", provider_session_id=THREAD, resume_args=[])
    assert "resume" not in plugin.build_argv(headless).argv


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
    resume = {"session_mode": "resume", "provider_session_id": THREAD, "resume_args": ["resume", THREAD]}
    resumed = make_ctx(mode="headless", prompt="again", **resume)
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
    resumed = make_ctx(
        settings=settings, mode="headless", prompt="hi", session_mode="resume", resume_args=["resume", THREAD]
    )
    assert plugin.build_argv(resumed).argv[-8:] == [
        "--sandbox",
        "workspace-write",
        "--config",
        'approval_policy="on-request"',
        "resume",
        THREAD,
        "--",
        "hi",
    ]


def test_the_settings_argv_and_home_read_are_declared() -> None:
    settings = {setting.name: setting for setting in plugin.provider_info().settings}
    assert settings["sandbox_mode"].choices == ["read-only", "workspace-write", "danger-full-access"]
    assert settings["approval_policy"].choices == ["untrusted", "on-failure", "on-request", "never"]
    assert settings["trust_workspace"].type == "boolean"


def test_headless_without_prompt_is_a_usage_error(make_ctx) -> None:
    with pytest.raises(WardianError) as caught:
        argv.headless_argv(make_ctx(mode="headless"))
    assert caught.value.code == "usage"
