"""Launch arguments and the per-agent home of the Claude provider."""

import json
import subprocess
from pathlib import Path
from unittest.mock import ANY

import pytest

from wardian_claude import argv, home
from wardian_core.provider import LaunchConfig, SpawnContext, WardianError
from wardian_core.provider.home import CLI_PID_FIELD

SESSION = "0f6f3c1e-8a0d-4b7e-9a53-2b9d4f0c6a11"


def make_ctx(tmp_path: Path, **update: object) -> SpawnContext:
    wardian_home = tmp_path / "wardian-home"
    uuid = "7f3e0c6a-3d2f-4e51-9c1d-0b6f1e2ac19d"
    agent_dir = wardian_home / "agents" / uuid
    common, klass = wardian_home / "common", wardian_home / "classes" / "Coder"
    workspace = tmp_path / "proj"
    for directory in (agent_dir, common, klass, workspace):
        directory.mkdir(parents=True, exist_ok=True)
    fields: dict[str, object] = {
        "agent_uuid": uuid,
        "agent_name": "coder-1",
        "provider": "claude",
        "workspace": workspace,
        "include_roots": [common, klass, agent_dir],
        "wardian_home": wardian_home,
        "agent_dir": agent_dir,
        "provider_session_id": SESSION,
    }
    if update.get("session_mode") == "resume":
        fields["resume_args"] = argv.resume_args(SESSION)  # as the host hands them over
    fields.update(update)
    return SpawnContext(**{"class": "Coder"}, **fields)


def test_fresh_launch_assigns_the_session_id_and_names_the_session(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    plan = argv.launch_plan(ctx)

    assert plan.argv[:5] == ["claude", "--session-id", SESSION, "--name", "coder-1"]
    assert plan.cwd == ctx.workspace
    settings = plan.argv.index("--settings")
    assert plan.argv[settings + 1] == str(ctx.agent_dir / "claude" / "settings.json")


def test_include_roots_are_added_in_order(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    plan = argv.launch_plan(ctx)

    added = [plan.argv[i + 1] for i, arg in enumerate(plan.argv) if arg == "--add-dir"]
    assert added == [str(root) for root in ctx.include_roots]
    assert home.prepare(ctx).env == {"CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD": "1"}


def test_missing_include_roots_are_left_out(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    ctx.include_roots[1].rmdir()

    plan = argv.launch_plan(ctx)
    assert str(ctx.include_roots[1]) not in plan.argv


def test_resume_never_resends_session_id_or_name(tmp_path: Path) -> None:
    plan = argv.launch_plan(make_ctx(tmp_path, session_mode="resume"))

    assert plan.argv[1:3] == ["--resume", SESSION]
    assert "--session-id" not in plan.argv and "--name" not in plan.argv


def test_interactive_launches_never_carry_stream_json_flags(tmp_path: Path) -> None:
    for session_mode in ("fresh", "resume"):
        plan = argv.launch_plan(make_ctx(tmp_path, session_mode=session_mode))
        assert "--output-format" not in plan.argv and "-p" not in plan.argv and "--verbose" not in plan.argv


def test_headless_run_prints_stream_json_with_the_prompt_last(tmp_path: Path) -> None:
    plan = argv.launch_plan(make_ctx(tmp_path, mode="headless", prompt="-do it", launch=LaunchConfig(model="opus")))

    assert plan.argv[:5] == ["claude", "-p", "--output-format", "stream-json", "--verbose"]
    assert plan.argv[-2:] == ["--", "-do it"]
    assert plan.argv[plan.argv.index("--model") + 1] == "opus"
    assert "--settings" not in plan.argv and "--name" not in plan.argv


def test_headless_resume_inherits_the_session(tmp_path: Path) -> None:
    plan = argv.launch_plan(make_ctx(tmp_path, mode="headless", session_mode="resume", prompt="go on"))

    assert plan.argv[plan.argv.index("--resume") + 1] == SESSION
    assert "--session-id" not in plan.argv


@pytest.mark.parametrize("variable", ["ANTHROPIC_API_KEY", "GITHUB_TOKEN", "DB_PASSWORD", "my_client_secret"])
def test_a_session_id_equal_to_a_secret_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    monkeypatch.setenv(variable, SESSION)

    for session_mode in ("fresh", "resume"):
        with pytest.raises(WardianError) as caught:
            argv.launch_plan(make_ctx(tmp_path, session_mode=session_mode))
        assert caught.value.code == "usage"
        assert variable in caught.value.message
        assert SESSION not in caught.value.message


def test_a_session_id_equal_to_an_ordinary_variable_is_fine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LAST_SESSION", SESSION)

    assert SESSION in argv.launch_plan(make_ctx(tmp_path)).argv


def test_hook_settings_record_every_payload_to_the_agents_jsonl(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    home.prepare(ctx)
    settings = json.loads(home.settings_file(ctx).read_text())
    events = set(settings["hooks"])
    assert {
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "PermissionRequest",
        "PostToolUse",
        "Stop",
        "SessionEnd",
        "Notification",
    } <= events
    command = settings["hooks"]["PermissionRequest"][0]["hooks"][0]["command"]

    payload = {"session_id": SESSION, "hook_event_name": "PermissionRequest", "tool_input": {"command": "a\nb"}}
    for _ in range(2):
        subprocess.run(command, shell=True, input=json.dumps(payload, indent=2).encode(), check=True)

    lines = home.hooks_file(ctx).read_text().splitlines()
    assert [json.loads(line) for line in lines] == [payload | {CLI_PID_FIELD: ANY}] * 2


def test_hooks_post_to_the_hosts_endpoint_when_it_serves_them_but_session_start(tmp_path: Path) -> None:
    from wardian_core.provider.testing import home_secret, is_agent_token, record_port

    ctx = make_ctx(tmp_path)
    secret = home_secret(ctx.wardian_home)  # what a host serving hooks leaves in run/
    record_port(ctx.wardian_home, 40123)
    home.prepare(ctx)

    settings = json.loads(home.settings_file(ctx).read_text())
    handlers = {event: entries[0]["hooks"][0] for event, entries in settings["hooks"].items()}
    assert handlers.pop("SessionStart")["type"] == "command"  # Claude posts no SessionStart
    url = f"http://127.0.0.1:40123/hooks/{ctx.agent_uuid}/claude/hooks.jsonl"
    assert {handler["type"] for handler in handlers.values()} == {"http"}
    assert {handler["url"] for handler in handlers.values()} == {url}
    token = handlers["Stop"]["headers"]["Authorization"].removeprefix("Bearer ")
    assert is_agent_token(secret, ctx.agent_uuid, token)
    assert home.settings_file(ctx).stat().st_mode & 0o777 == 0o600


def test_each_interactive_launch_starts_an_empty_hook_file(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    home.prepare(ctx)
    home.hooks_file(ctx).write_text('{"hook_event_name":"Stop"}\n')

    home.prepare(ctx.model_copy(update={"session_mode": "resume"}))
    assert home.hooks_file(ctx).read_text() == ""


def test_skills_of_an_include_root_are_linked_where_claude_looks(tmp_path: Path) -> None:
    ctx = make_ctx(tmp_path)
    skill = ctx.include_roots[0] / ".agents" / "skills" / "zebra"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: zebra\ndescription: paints zebras\n---\n")
    own = ctx.include_roots[1] / ".claude" / "skills"
    own.mkdir(parents=True)
    (ctx.include_roots[1] / ".agents" / "skills").mkdir(parents=True)

    home.prepare(ctx)
    home.prepare(ctx)

    link = ctx.include_roots[0] / ".claude" / "skills"
    assert link.is_symlink() and (link / "zebra" / "SKILL.md").is_file()
    assert own.is_dir() and not own.is_symlink()  # a root's own .claude/skills is left alone
    assert not (ctx.workspace / ".claude").exists()  # the user's workspace is never touched


def test_an_interactive_launch_trusts_the_homes_include_root_folders_in_claudes_config(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config_dir = tmp_path / "claude-config"
    config_dir.mkdir()
    config = config_dir / ".claude.json"
    user_state = {"hasCompletedOnboarding": True, "projects": {"/src/app": {"hasTrustDialogAccepted": False}}}
    config.write_text(json.dumps(user_state))
    config.chmod(0o600)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config_dir))
    ctx = make_ctx(tmp_path)

    home.prepare(ctx)

    written = json.loads(config.read_text())
    for folder in ("common", "classes", "agents"):
        assert written["projects"][str(ctx.wardian_home / folder)] == {"hasTrustDialogAccepted": True}
    # Not the whole home: agents' worktrees of the user's code live there too.
    assert str(ctx.wardian_home) not in written["projects"]
    # The user's own state is kept, their workspace is not trusted for them, the mode is kept.
    assert written["hasCompletedOnboarding"] is True
    assert written["projects"]["/src/app"] == {"hasTrustDialogAccepted": False}
    assert str(ctx.workspace) not in written["projects"]
    assert config.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in config_dir.iterdir()] == [".claude.json"]  # no temporary file left


@pytest.mark.parametrize("content", [None, "{not json", "[1, 2]"])
def test_a_missing_or_unreadable_claude_config_is_left_as_it_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, content: str | None
) -> None:
    config_dir = tmp_path / "claude-config"
    config_dir.mkdir()
    config = config_dir / ".claude.json"
    if content is not None:
        config.write_text(content)
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config_dir))

    home.prepare(make_ctx(tmp_path))

    assert (config.read_text() if content is not None else None) == content
    assert config.exists() == (content is not None)


def test_the_permission_mode_is_default_unless_the_agent_sets_one(tmp_path: Path) -> None:
    plain = argv.launch_plan(make_ctx(tmp_path)).argv
    assert plain[plain.index("--permission-mode") + 1] == "default"

    launch = LaunchConfig(settings={"permission_mode": "acceptEdits"})
    chosen = argv.launch_plan(make_ctx(tmp_path, launch=launch)).argv
    assert chosen[chosen.index("--permission-mode") + 1] == "acceptEdits"
