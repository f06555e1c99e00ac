"""The per-agent Gemini home, its hooks, and the launch arguments."""

import json
import os
import subprocess
from functools import partial
from pathlib import Path
from unittest.mock import ANY

from wardian_core.provider import OutputSource
from wardian_core.provider.home import CLI_PID_FIELD
from wardian_core.provider.testing import repository_and_worktree
from wardian_gemini import home, hooks_log, plugin, trust

SESSION = "f2e72aca-8440-49d5-a6d4-b2495d2a9c4b"


def user_gemini(tmp_path: Path, monkeypatch) -> Path:
    user = tmp_path / "user"
    (user / ".gemini").mkdir(parents=True)
    monkeypatch.setenv("GEMINI_CLI_HOME", str(user))
    return user / ".gemini"


def test_the_agents_home_links_sign_in_and_keeps_wardians_hooks_in_an_extension_of_its_own(
    make_ctx, tmp_path: Path, monkeypatch
) -> None:
    user = user_gemini(tmp_path, monkeypatch)
    (user / "oauth_creds.json").write_text("{}")
    theirs = {"matcher": "*", "hooks": [{"type": "command", "command": "their-hook", "name": "mine"}]}
    (user / "settings.json").write_text(json.dumps({"ui": {"theme": "x"}, "hooks": {"BeforeTool": [theirs]}}))
    ctx = make_ctx(provider_session_id=SESSION)
    plan = plugin.prepare_home(ctx=ctx)
    plugin.prepare_home(ctx=ctx)  # twice: still one group of Wardian's per event

    gemini_dir = ctx.agent_dir / "habitat" / ".gemini"
    assert plan.env["GEMINI_CLI_HOME"] == str(ctx.agent_dir / "habitat")
    assert (gemini_dir / "oauth_creds.json").resolve() == (user / "oauth_creds.json").resolve()
    settings = json.loads((gemini_dir / "settings.json").read_text())
    assert settings["ui"] == {"theme": "x"} and settings["context"]["loadMemoryFromIncludeDirectories"] is True
    # The user's hooks as they are; Wardian's are its extension's, which 0.61 runs in untrusted folders too.
    assert settings["hooks"] == {"BeforeTool": [theirs]}
    extension = gemini_dir / "extensions" / "wardian"
    assert json.loads((extension / "gemini-extension.json").read_text())["name"] == "wardian"
    hooks = json.loads((extension / "hooks" / "hooks.json").read_text())["hooks"]
    assert set(hooks) == {*home.TOOL_HOOK_EVENTS, *home.OTHER_HOOK_EVENTS}
    for event, [ours] in hooks.items():
        assert ours["hooks"][0]["name"] == "wardian" and ("matcher" in ours) == (event in home.TOOL_HOOK_EVENTS)
    assert json.loads((user / "settings.json").read_text())["hooks"] == {"BeforeTool": [theirs]}, "never written"


def test_the_hook_command_appends_each_payload(make_ctx, tmp_path: Path, monkeypatch) -> None:
    user_gemini(tmp_path, monkeypatch)
    ctx = make_ctx(provider_session_id=SESSION)
    plugin.prepare_home(ctx=ctx)
    hooks = json.loads((home.extension_dir(ctx) / "hooks" / "hooks.json").read_text())["hooks"]
    command = hooks["AfterAgent"][0]["hooks"][0]["command"]
    payload = {"session_id": SESSION, "hook_event_name": "AfterAgent"}
    subprocess.run(command, shell=True, input=json.dumps(payload).encode(), check=True)
    recorded = [json.loads(line) for line in home.hooks_file(ctx).read_text().splitlines()]
    assert recorded == [payload | {CLI_PID_FIELD: ANY}]  # with the pid of the Gemini that ran it
    # The hook log first; the session log's folder (usage.py) after it.
    assert plugin.approval_source(ctx=ctx)[0] == OutputSource(
        name="gemini-hooks", kind="file", path=home.hooks_file(ctx)
    )


def test_launch_arguments_fresh_resume_and_headless(make_ctx, tmp_path: Path) -> None:
    root = tmp_path / "common"
    root.mkdir()
    fresh = plugin.build_argv(ctx=make_ctx(provider_session_id=SESSION, include_roots=[root])).argv
    assert fresh == [
        "gemini",
        "--session-id",
        SESSION,
        "--approval-mode",
        "default",
        "--include-directories",
        str(root),
    ]
    resumed = make_ctx(provider_session_id=SESSION, session_mode="resume", resume_args=["--resume", SESSION])
    assert plugin.build_argv(ctx=resumed).argv[:3] == ["gemini", "--resume", SESSION]
    headless = make_ctx(provider_session_id=SESSION, mode="headless", prompt="-x", settings={"approval_mode": "yolo"})
    argv = plugin.build_argv(ctx=headless).argv
    assert argv[-3:] == ["--output-format", "stream-json", "--prompt=-x"] and "yolo" in argv


def wardian_rules(tmp_path: Path) -> dict[str, str]:
    """Wardian's own rules: the home's folders of include roots, not the home (worktrees live there)."""
    home = (tmp_path / "wardian").resolve()
    return {str(home / folder): "TRUST_FOLDER" for folder in ("common", "classes", "agents")}


def test_every_agent_reads_and_writes_the_users_own_trust_file_with_wardians_folders_trusted(
    make_ctx, tmp_path: Path, monkeypatch
) -> None:
    user = user_gemini(tmp_path, monkeypatch)
    users_rules = {str(tmp_path / "proj"): "TRUST_FOLDER", str(tmp_path / "secret"): "DO_NOT_TRUST"}
    (user / "trustedFolders.json").write_text(json.dumps(users_rules))
    ctx = make_ctx(include_roots=[tmp_path / "wardian" / "common"], include_dirs=[tmp_path / "theirs"])

    plan = plugin.prepare_home(ctx=ctx)
    again = plugin.prepare_home(ctx=make_ctx(agent_uuid="another", agent_dir=tmp_path / "wardian" / "agents" / "b"))

    # One file for every agent and for Gemini outside Wardian: an answer given once holds for all.
    assert plan.env["GEMINI_CLI_TRUSTED_FOLDERS_PATH"] == again.env["GEMINI_CLI_TRUSTED_FOLDERS_PATH"]
    assert plan.env["GEMINI_CLI_TRUSTED_FOLDERS_PATH"] == str(user / "trustedFolders.json")
    # The user's rules kept, refusals included; Wardian's folders of include roots trusted; the
    # user's include dir and workspace get no rule from Wardian.
    assert json.loads((user / "trustedFolders.json").read_text()) == {**users_rules, **wardian_rules(tmp_path)}
    assert not (user / "trustedFolders.json.lock").exists(), "the lock is given back"
    assert not (ctx.agent_dir / "habitat" / ".gemini" / "trustedFolders.json").exists()


def test_a_users_own_rule_for_wardians_home_stays_and_a_file_gemini_would_refuse_is_left_alone(
    make_ctx, tmp_path: Path, monkeypatch
) -> None:
    user = user_gemini(tmp_path, monkeypatch)
    refused = {str((tmp_path / "wardian").resolve()): "DO_NOT_TRUST"}
    (user / "trustedFolders.json").write_text(json.dumps(refused))
    plugin.prepare_home(ctx=make_ctx())
    assert json.loads((user / "trustedFolders.json").read_text()) == refused, "a refusal never becomes a trust"

    # A rule of the user's for one of Wardian's folders stays as they wrote it.
    common = str((tmp_path / "wardian" / "common").resolve())
    (user / "trustedFolders.json").write_text(json.dumps({common: "TRUST_PARENT"}))
    plugin.prepare_home(ctx=make_ctx())
    assert json.loads((user / "trustedFolders.json").read_text()) == wardian_rules(tmp_path) | {common: "TRUST_PARENT"}

    commented = '{\n  // mine\n  "/src": "TRUST_FOLDER"\n}\n'  # Gemini reads comments; json does not
    (user / "trustedFolders.json").write_text(commented)
    plugin.prepare_home(ctx=make_ctx())
    assert (user / "trustedFolders.json").read_text() == commented


def test_the_users_own_trust_file_setting_is_where_decisions_go_and_a_stale_lock_is_taken_over(
    make_ctx, tmp_path: Path, monkeypatch
) -> None:
    user_gemini(tmp_path, monkeypatch)
    theirs = tmp_path / "elsewhere" / "trust.json"
    monkeypatch.setenv("GEMINI_CLI_TRUSTED_FOLDERS_PATH", str(theirs))
    lock = theirs.with_name("trust.json.lock")
    lock.mkdir(parents=True)
    os.utime(lock, (1, 1))  # left by a Gemini that died holding it

    plan = plugin.prepare_home(ctx=make_ctx())

    assert plan.env["GEMINI_CLI_TRUSTED_FOLDERS_PATH"] == str(theirs)
    assert json.loads(theirs.read_text()) == wardian_rules(tmp_path)
    assert not lock.exists()


def test_an_interactive_gemini_keeps_its_relaunching_parent_which_restarts_it_on_a_trust_answer(make_ctx) -> None:
    interactive = plugin.build_argv(ctx=make_ctx()).env
    headless = plugin.build_argv(ctx=make_ctx(mode="headless", prompt="p")).env
    assert interactive["GEMINI_CLI_NO_RELAUNCH"] == ""  # unset to Gemini, whatever the host inherited
    assert "GEMINI_CLI_NO_RELAUNCH" not in headless


def gemini_and_repository(tmp_path: Path, monkeypatch) -> tuple[Path, Path]:
    """The user's Gemini folder, and a folder `code/repo` with `sub` below it."""
    repo = tmp_path / "code" / "repo"
    (repo / "sub").mkdir(parents=True)
    return user_gemini(tmp_path, monkeypatch), repo


def test_the_question_is_expected_only_where_no_rule_of_the_users_file_holds_the_workspace(
    tmp_path: Path, monkeypatch
) -> None:
    user, repo = gemini_and_repository(tmp_path, monkeypatch)
    expected = partial(trust.question_expected, user, {})

    def rules(rules: dict[str, str]) -> None:
        (user / "trustedFolders.json").write_text(json.dumps(rules))

    assert expected(repo)  # no file at all
    rules({str(tmp_path / "elsewhere"): "TRUST_FOLDER", str(repo / "sub"): "TRUST_FOLDER"})
    assert expected(repo), "a rule for a folder below or beside it holds nothing here"
    assert not expected(repo / "sub" / "deeper")
    rules({str(repo / "sibling"): "TRUST_PARENT"})  # its parent, the repo, and all below
    assert not expected(repo / "sub")
    rules({str(tmp_path / "code"): "DO_NOT_TRUST"})  # a refusal decides too: no question
    assert not expected(repo)
    rules({})
    assert not trust.question_expected(user, {"GEMINI_CLI_TRUST_WORKSPACE": "true"}, repo)
    assert not trust.question_expected(user, {"GEMINI_RESTRICTED_MODE": "true"}, repo)
    assert trust.question_expected(user, {"GEMINI_RESTRICTED_MODE": "false"}, repo), "only 'true' restricts"
    (user / "settings.json").write_text(json.dumps({"security": {"folderTrust": {"enabled": False}}}))
    assert not expected(repo)


def test_a_folder_runs_untrusted_as_geminis_check_decides_env_then_setting_then_file(
    tmp_path: Path, monkeypatch
) -> None:
    """In such a folder Gemini starts no MCP server: its ready says so (`without_mcp`)."""
    user, repo = gemini_and_repository(tmp_path, monkeypatch)
    rules_file = user / "trustedFolders.json"
    why = partial(trust.untrusted_why, user)

    assert why({}, repo) is None, "undecided: Gemini asks, nothing is known yet"
    rules_file.write_text(json.dumps({str(tmp_path / "code"): "DO_NOT_TRUST", str(repo / "sub"): "TRUST_FOLDER"}))
    assert why({}, repo) == f"the trust file {rules_file} does not trust {repo}"
    assert why({}, repo / "sub") is None, "the longest rule decides"
    assert why({"GEMINI_CLI_TRUST_WORKSPACE": "true"}, repo) is None
    assert why({"GEMINI_CLI_TRUST_WORKSPACE": "false"}, repo / "sub") == "GEMINI_CLI_TRUST_WORKSPACE=false"
    assert why({"GEMINI_RESTRICTED_MODE": "true", "GEMINI_CLI_TRUST_WORKSPACE": "true"}, repo / "sub") == (
        "GEMINI_RESTRICTED_MODE=true"
    )
    (user / "settings.json").write_text(json.dumps({"security": {"folderTrust": {"enabled": False}}}))
    assert why({}, repo) is None, "folder trust off: every folder is trusted"


def test_session_end_ends_nothing_gemini_restarts_itself_in_the_same_terminal() -> None:
    """0.61.0 fires SessionEnd (reason exit) when a trust answer restarts it, then SessionStart."""
    payload = {"session_id": "s-1", "hook_event_name": "SessionEnd", "reason": "exit"}
    source = OutputSource(name=home.HOOKS_SOURCE, kind="file", path=Path("hooks.jsonl"))
    parser = hooks_log.GeminiHooks(source)
    parser.session_id = "s-1"
    result = parser.feed(json.dumps(payload).encode() + b"\n")
    assert result.events == []


def test_a_worktree_is_trusted_exactly_when_its_repository_is(make_ctx, tmp_path: Path, monkeypatch) -> None:
    user = user_gemini(tmp_path, monkeypatch)
    # Under the default root, in the Wardian home: the home's own rules must not cover it.
    repository, linked = repository_and_worktree(tmp_path)
    rules_file = user / "trustedFolders.json"
    decision = partial(trust.question_expected, user, {})

    # The whole-home rule of an earlier Wardian goes; a repository never decided: Gemini asks.
    rules_file.write_text(json.dumps({str((tmp_path / "wardian").resolve()): "TRUST_FOLDER"}))
    plugin.prepare_home(ctx=make_ctx(workspace=linked))
    assert json.loads(rules_file.read_text()) == wardian_rules(tmp_path)
    assert decision(linked), "a worktree of a repository never trusted starts with Gemini's question"

    rules_file.write_text(json.dumps({str(repository.parent): "DO_NOT_TRUST"}))
    plugin.prepare_home(ctx=make_ctx(workspace=linked))
    assert json.loads(rules_file.read_text())[str(linked)] == "DO_NOT_TRUST", "refused, as its repository"

    rules_file.write_text(json.dumps({str(repository): "TRUST_FOLDER"}))
    plugin.prepare_home(ctx=make_ctx(workspace=linked / "sub"))
    assert json.loads(rules_file.read_text())[str(linked)] == "TRUST_FOLDER"

    # A decision the user made for the worktree itself is theirs.
    rules_file.write_text(json.dumps({str(repository): "TRUST_FOLDER", str(linked): "DO_NOT_TRUST"}))
    plugin.prepare_home(ctx=make_ctx(workspace=linked))
    assert json.loads(rules_file.read_text())[str(linked)] == "DO_NOT_TRUST"
