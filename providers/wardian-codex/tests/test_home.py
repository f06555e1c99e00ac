"""The per-agent CODEX_HOME: what is shared with the user's Codex home, what stays per agent."""

import os
import tomllib
from pathlib import Path

import pytest

from wardian_codex import home


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    codex = tmp_path / "user" / ".codex"
    codex.mkdir(parents=True)
    (codex / "auth.json").write_text('{"OPENAI_API_KEY": "sk-user"}')
    (codex / "cap_sid").write_text("sid")
    (codex / "config.toml").write_text(
        'model = "user-model"\napproval_policy = "never"\n[projects."/elsewhere"]\ntrust_level = "trusted"\n'
        '[tui]\ntheme = "dark"\n'
    )
    (codex / "history.jsonl").write_text('{"session_id": "user-thread"}\n')
    (codex / "state_5.sqlite").write_bytes(b"user db")
    (codex / "sessions").mkdir()
    (codex / "AGENTS.md").write_text("User rules.\n")
    monkeypatch.setenv("CODEX_HOME", str(codex))
    return codex


def test_agent_home_is_keyed_by_the_wardian_id_and_announced_as_codex_home(make_ctx, user_home) -> None:
    ctx = make_ctx()
    plan = home.prepare(ctx)
    assert plan.env == {"CODEX_HOME": str(ctx.agent_dir / "habitat" / ".codex")}
    assert Path(plan.env["CODEX_HOME"]).is_dir()


def test_auth_and_cap_sid_are_shared_and_session_state_is_not(make_ctx, user_home) -> None:
    codex_home = Path(home.prepare(make_ctx()).env["CODEX_HOME"])
    for name in ("auth.json", "cap_sid"):
        assert (codex_home / name).is_symlink() and (codex_home / name).resolve() == (user_home / name).resolve()
    for name in ("history.jsonl", "session_index.jsonl", "state_5.sqlite", "sessions", "log", "logs_2.sqlite"):
        assert not (codex_home / name).exists(), name
    # Nothing in the agent's home is a hard link to the user's files.
    for path in codex_home.rglob("*"):
        if path.is_file() and not path.is_symlink():
            assert os.stat(path).st_nlink == 1, path


def test_config_keeps_user_keys_and_trusts_only_the_real_workspace(make_ctx, user_home, tmp_path) -> None:
    ctx = make_ctx(settings={"trust_workspace": True})
    codex_home = Path(home.prepare(ctx).env["CODEX_HOME"])
    config = tomllib.loads((codex_home / "config.toml").read_text())
    assert config["model"] == "user-model" and config["tui"] == {"theme": "dark"}
    assert config["projects"][str(ctx.workspace)] == {"trust_level": "trusted"}
    assert config["projects"]["/elsewhere"] == {"trust_level": "trusted"}
    trusted = {path for path, entry in config["projects"].items() if entry.get("trust_level") == "trusted"}
    assert not any(path.startswith(str(ctx.wardian_home)) for path in trusted), "habitat path trusted"


def test_wardian_entries_win_over_the_user_and_codex_writes_survive(make_ctx, user_home) -> None:
    ctx = make_ctx(settings={"trust_workspace": True})
    (user_home / "config.toml").write_text(f'[projects."{ctx.workspace}"]\ntrust_level = "untrusted"\n')
    codex_home = Path(home.prepare(ctx).env["CODEX_HOME"])
    config_file = codex_home / "config.toml"
    assert tomllib.loads(config_file.read_text())["projects"][str(ctx.workspace)]["trust_level"] == "trusted"
    # Codex itself records things in the agent's copy (e.g. a trust dialog answered there).
    config_file.write_text(config_file.read_text() + '\n[tui.model_availability_nux]\n"gpt-x" = 1\n')
    home.prepare(ctx)
    assert tomllib.loads(config_file.read_text())["tui"]["model_availability_nux"] == {"gpt-x": 1}


def test_without_trust_setting_trust_is_left_to_the_user(make_ctx, user_home) -> None:
    ctx = make_ctx()
    config = tomllib.loads((Path(home.prepare(ctx).env["CODEX_HOME"]) / "config.toml").read_text())
    assert str(ctx.workspace) not in config.get("projects", {})


@pytest.mark.parametrize(
    ("entries", "trusted"),
    [
        ({"{parent}": "trusted"}, True),
        ({"{grandparent}": "trusted"}, True),
        # Something nearer the workspace says otherwise: the nearest entry decides.
        ({"{grandparent}": "trusted", "{parent}": "untrusted"}, False),
        ({"{parent}": "trusted", "{workspace}": "untrusted"}, False),
        ({"{workspace}-sibling": "trusted"}, False),
    ],
)
def test_a_trust_given_to_a_parent_folder_counts_for_the_workspace(
    make_ctx, user_home, entries: dict[str, str], trusted: bool
) -> None:
    ctx = make_ctx()
    names = {"parent": ctx.workspace.parent, "grandparent": ctx.workspace.parent.parent, "workspace": ctx.workspace}
    toml = "".join(
        f'[projects."{folder.format(**names)}"]\ntrust_level = "{level}"\n' for folder, level in entries.items()
    )
    (user_home / "config.toml").write_text(toml)

    config = tomllib.loads((Path(home.prepare(ctx).env["CODEX_HOME"]) / "config.toml").read_text())

    in_force = config.get("projects", {}).get(str(ctx.workspace), {}).get("trust_level")
    assert (in_force == "trusted") is trusted, config


def test_skills_from_include_roots_are_linked_later_root_winning(make_ctx, user_home, tmp_path) -> None:
    roots = [tmp_path / "wardian" / "common", tmp_path / "wardian" / "classes" / "Coder"]
    for root, description in zip(roots, ("common", "class"), strict=True):
        for name in ("review", f"only-{description}"):
            skill = root / ".agents" / "skills" / name
            skill.mkdir(parents=True)
            (skill / "SKILL.md").write_text(f"---\nname: {name}\ndescription: from {description}\n---\n")
    ctx = make_ctx(include_roots=roots)
    codex_home = Path(home.prepare(ctx).env["CODEX_HOME"])
    system = codex_home / "skills" / ".system"
    system.mkdir()
    (system / "keep.txt").write_text("codex's own")
    skills = codex_home / "skills"
    assert sorted(p.name for p in skills.iterdir() if p.is_symlink()) == ["only-class", "only-common", "review"]
    assert (skills / "review").resolve() == (roots[1] / ".agents" / "skills" / "review").resolve()
    # A skill removed from the include roots disappears; .system stays.
    import shutil

    shutil.rmtree(roots[0] / ".agents" / "skills" / "only-common")
    home.prepare(ctx)
    assert not (skills / "only-common").exists() and (system / "keep.txt").exists()


def test_instruction_roots_become_codex_global_agents_md(make_ctx, user_home, tmp_path) -> None:
    common = tmp_path / "wardian" / "common"
    common.mkdir(parents=True)
    (common / "AGENTS.md").write_text("Common rules.\n")
    codex_home = Path(home.prepare(make_ctx(include_roots=[common])).env["CODEX_HOME"])
    assert (codex_home / "AGENTS.md").read_text() == "User rules.\n\nCommon rules.\n"


def test_prepare_is_idempotent(make_ctx, user_home) -> None:
    ctx = make_ctx(settings={"trust_workspace": True})
    first = home.prepare(ctx)
    snapshot = {p: p.read_bytes() for p in Path(first.env["CODEX_HOME"]).rglob("*") if p.is_file()}
    assert home.prepare(ctx) == first
    assert {p: p.read_bytes() for p in Path(first.env["CODEX_HOME"]).rglob("*") if p.is_file()} == snapshot


def test_user_home_defaults_to_dot_codex(tmp_path: Path) -> None:
    assert home.user_codex_home({}) == Path.home() / ".codex"
    assert home.user_codex_home({"CODEX_HOME": str(tmp_path)}) == tmp_path


def test_windows_sandbox_support_is_shared_or_copied_behind_the_platform_check(make_ctx, user_home) -> None:
    (user_home / ".sandbox-secrets").mkdir()
    (user_home / ".sandbox-bin").mkdir()
    (user_home / ".sandbox").mkdir()
    (user_home / ".sandbox" / "setup_marker.json").write_text("{}")
    (user_home / ".sandbox" / "sandbox.log").write_text("user log")
    posix = Path(home.prepare(make_ctx(), windows=False).env["CODEX_HOME"])
    assert not (posix / ".sandbox-secrets").exists() and not (posix / ".sandbox").exists()
    windows = Path(home.prepare(make_ctx(), windows=True).env["CODEX_HOME"])
    assert (windows / ".sandbox-secrets").is_symlink() and (windows / ".sandbox-bin").is_symlink()
    assert (windows / ".sandbox").is_dir() and not (windows / ".sandbox").is_symlink()
    assert (windows / ".sandbox" / "setup_marker.json").read_text() == "{}"
    assert not (windows / ".sandbox" / "sandbox.log").exists()
