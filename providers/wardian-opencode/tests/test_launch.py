"""The agent's injected configuration, the TUI's server credential and the argv of both modes."""

import base64
import json
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from wardian_core.provider import WardianError
from wardian_opencode import plugin, server


def user_config(tmp_path: Path, monkeypatch, text: str) -> Path:
    path = tmp_path / "user" / "opencode.jsonc"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    monkeypatch.setenv("OPENCODE_CONFIG", str(path))
    return path


def test_the_users_config_keeps_everything_and_gains_the_roots_instructions(make_ctx, tmp_path, monkeypatch) -> None:
    theirs = user_config(
        tmp_path,
        monkeypatch,
        '{\n  // the user\'s own, in JSONC\n  "model": "mock/m", "instructions": ["mine.md",],\n'
        '  "provider": {"mock": {"options": {"baseURL": "http://127.0.0.1:1/v1"}}},\n}\n',
    )
    before = theirs.read_text()
    common, empty = tmp_path / "wardian" / "common", tmp_path / "wardian" / "classes" / "Coder"
    common.mkdir(parents=True)
    empty.mkdir(parents=True)
    (common / "AGENTS.md").write_text("be brief\n")
    ctx = make_ctx(include_roots=[common, empty], settings={"shell_permission": "ask"})

    plan = plugin.prepare_home(ctx=ctx)

    config = json.loads(Path(plan.env["OPENCODE_CONFIG"]).read_text())
    assert config == {
        "model": "mock/m",
        "instructions": ["mine.md", str(common / "AGENTS.md")],  # a root without AGENTS.md adds nothing
        "provider": {"mock": {"options": {"baseURL": "http://127.0.0.1:1/v1"}}},
        "permission": {"bash": "ask"},
    }
    assert Path(plan.env["OPENCODE_CONFIG"]).parent == ctx.agent_dir / "opencode"
    assert theirs.read_text() == before, "the user's file is never written"
    assert not list((tmp_path / "proj").iterdir()), "nothing is written into the workspace"


def test_a_config_that_cannot_be_read_is_an_error_that_names_it(make_ctx, tmp_path, monkeypatch) -> None:
    user_config(tmp_path, monkeypatch, '{"model": ')
    with pytest.raises(WardianError) as raised:
        plugin.prepare_home(ctx=make_ctx())
    assert raised.value.code == "request_failed" and "OPENCODE_CONFIG" in raised.value.message


def test_skills_of_the_roots_and_the_users_config_folder_meet_in_the_agents(make_ctx, tmp_path, monkeypatch) -> None:
    root = tmp_path / "wardian" / "common"
    (root / ".agents" / "skills" / "zebra").mkdir(parents=True)
    theirs = tmp_path / "their-config"
    (theirs / "skill" / "mine").mkdir(parents=True)
    (theirs / "agent").mkdir()
    monkeypatch.setenv("OPENCODE_CONFIG_DIR", str(theirs))
    ctx = make_ctx(include_roots=[root])

    folder = Path(plugin.prepare_home(ctx=ctx).env["OPENCODE_CONFIG_DIR"])

    assert sorted(p.name for p in (folder / "skills").iterdir()) == ["mine", "zebra"]
    assert (folder / "skills" / "zebra").resolve() == (root / ".agents" / "skills" / "zebra").resolve()
    assert (folder / "agent").resolve() == (theirs / "agent").resolve()


def test_the_server_password_is_the_agents_own_and_the_source_carries_it(make_ctx) -> None:
    ctx = make_ctx()
    env = plugin.prepare_home(ctx=ctx).env
    assert plugin.approval_source(ctx=ctx) == [], "no port before a launch chose one"
    plugin.build_argv(ctx=ctx)
    password = env["OPENCODE_SERVER_PASSWORD"]
    assert len(password) >= 24 and env["OPENCODE_SERVER_USERNAME"] == "opencode"
    assert stat.S_IMODE(server.password_file(ctx).stat().st_mode) == 0o600
    assert plugin.prepare_home(ctx=ctx).env["OPENCODE_SERVER_PASSWORD"] == password, "kept across launches"

    [source] = plugin.approval_source(ctx=ctx)
    assert (source.name, source.kind, source.url) == (
        "opencode-events",
        "sse",
        f"http://127.0.0.1:{server.port(ctx)}/event",
    )
    scheme, token = source.headers["Authorization"].split()
    assert (scheme, base64.b64decode(token).decode()) == ("Basic", f"opencode:{password}")
    assert password not in repr(source)


def test_the_tui_serves_on_the_chosen_port_and_resumes_with_session(make_ctx) -> None:
    ctx = make_ctx(model="mock/m")
    plugin.prepare_home(ctx=ctx)
    plan = plugin.build_argv(ctx=ctx)
    port = str(server.port(ctx))
    assert plan.argv == ["opencode", "--port", port, "--hostname", "127.0.0.1", "--model", "mock/m", str(ctx.workspace)]
    assert plan.env["PWD"] == str(ctx.workspace) and plan.cwd == ctx.workspace

    resumed = make_ctx(session_mode="resume", provider_session_id="ses_1", resume_args=plugin.resume_args("ses_1"))
    plugin.prepare_home(ctx=resumed)
    assert plugin.build_argv(ctx=resumed).argv[5:7] == ["--session", "ses_1"]


def test_headless_is_run_format_json_with_the_prompt_after_the_options(make_ctx) -> None:
    ctx = make_ctx(mode="headless", prompt="-v is a prompt", settings={"auto_approve": True})
    plugin.prepare_home(ctx=ctx)
    assert plugin.build_argv(ctx=ctx).argv == ["opencode", "run", "--format", "json", "--auto", "--", "-v is a prompt"]
    with pytest.raises(WardianError):
        plugin.build_argv(ctx=make_ctx(mode="headless"))


def test_the_native_binary_is_preferred_over_a_shim_earlier_on_path(tmp_path) -> None:
    shims, native = tmp_path / "npm-bin", tmp_path / "native"
    shims.mkdir()
    native.mkdir()
    (shims / "opencode").write_text("#!/usr/bin/env node\n")
    (shims / "opencode").chmod(0o755)
    shutil.copy(shutil.which("true") or "/bin/true", native / "opencode")
    env = {**os.environ, "PATH": f"{shims}:{native}:{os.environ['PATH']}", "WARDIAN_PLUGINS": "opencode"}
    wardian = str(Path(sys.executable).parent / "wardian")
    shown = subprocess.run([wardian, "providers", "show", "opencode"], capture_output=True, text=True, env=env)
    assert json.loads(shown.stdout)["provider"]["executable_path"] == str(native / "opencode")
