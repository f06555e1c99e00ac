"""The links providers make when projecting an agent's home."""

from pathlib import Path

import pytest

from wardian_core.errors import WardianError
from wardian_core.provider_homes import assigned_skills, include_args, link, link_skills
from wardian_host.testing.contexts import spawn_context


def skill(root: Path, name: str) -> Path:
    folder = root / ".agents" / "skills" / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\n---\n")
    return folder


def test_a_later_root_wins_and_hidden_folders_are_no_skills(tmp_path: Path) -> None:
    common, agent = tmp_path / "common", tmp_path / "agent"
    skill(common, "lint"), skill(common, "deploy"), skill(common, ".cache")
    mine = skill(agent, "lint")
    assert assigned_skills([common, agent]) == {"deploy": common / ".agents/skills/deploy", "lint": mine}


def test_links_follow_the_skills_and_leave_a_clis_own_folders(tmp_path: Path) -> None:
    root, target = tmp_path / "root", tmp_path / "home" / "skills"
    (target / ".system").mkdir(parents=True)
    link_skills({"old": skill(root, "old")}, target)
    link_skills({"new": skill(root, "new")}, target)
    assert sorted(entry.name for entry in target.iterdir()) == [".system", "new"]
    assert (target / "new" / "SKILL.md").is_file()


def test_a_stale_link_is_replaced_and_a_real_folder_kept(tmp_path: Path) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    target = tmp_path / "link"
    link(first, target)
    link(second, target)
    assert target.resolve() == second.resolve()
    real = tmp_path / "real"
    real.mkdir()
    link(first, real)
    assert real.is_dir() and not real.is_symlink()
    relative = tmp_path / "deep" / "up"
    link(Path("..") / "first", relative)
    assert relative.resolve() == first.resolve()


def test_a_link_whose_folder_leads_out_of_the_home_is_refused_before_anything_is_made(tmp_path: Path) -> None:
    home, elsewhere = tmp_path / "home", tmp_path / "elsewhere"
    root = home / "classes" / "Coder"
    root.mkdir(parents=True)
    elsewhere.mkdir()
    (root / ".claude").symlink_to(elsewhere)
    with pytest.raises(WardianError) as caught:
        link(Path("..") / ".agents" / "skills", root / ".claude" / "skills", inside=home)
    assert caught.value.code == "unauthorized"
    assert list(elsewhere.iterdir()) == []
    link(Path("..") / ".agents" / "skills", root / "own" / "skills", inside=home)
    assert (root / "own" / "skills").is_symlink()


def test_include_args_name_the_roots_then_the_launchs_folders_that_exist(tmp_path: Path) -> None:
    common, extra = tmp_path / "common", tmp_path / "extra"
    common.mkdir()
    extra.mkdir()
    ctx = spawn_context(tmp_path, "example", include_roots=[common, tmp_path / "class"], include_dirs=[extra])
    assert include_args(ctx, "--add-dir") == ["--add-dir", str(common), "--add-dir", str(extra)]
