from pathlib import Path

import pytest

from wardian_core import paths
from wardian_core.errors import WardianError


def test_wardian_home_is_trimmed_environment_value(tmp_path: Path) -> None:
    assert paths.wardian_home({"WARDIAN_HOME": f"  {tmp_path}/h \n"}) == tmp_path / "h"


def test_empty_wardian_home_falls_back_to_dot_wardian_in_user_home(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert paths.wardian_home({"WARDIAN_HOME": "   "}) == tmp_path / ".wardian"
    assert paths.wardian_home({}) == tmp_path / ".wardian"


def test_each_location_lives_under_the_home(tmp_path: Path) -> None:
    assert paths.state_db(tmp_path) == tmp_path / "state.db"
    assert paths.agent_dir(tmp_path, "u-1") == tmp_path / "agents" / "u-1"
    assert paths.class_dir(tmp_path, "Coder") == tmp_path / "classes" / "Coder"
    assert paths.common_dir(tmp_path) == tmp_path / "common"
    assert paths.bin_dir(tmp_path) == tmp_path / "bin"
    assert paths.workflows_dir(tmp_path) == tmp_path / "workflows"
    assert paths.run_dir(tmp_path) == tmp_path / "run"


def test_include_roots_keep_precedence_order_and_skip_missing(tmp_path: Path) -> None:
    (tmp_path / "common").mkdir()
    (tmp_path / "agents" / "u-1").mkdir(parents=True)
    assert paths.include_roots(tmp_path, "Coder", "u-1") == [tmp_path / "common", tmp_path / "agents" / "u-1"]
    (tmp_path / "classes" / "Coder").mkdir(parents=True)
    assert paths.include_roots(tmp_path, "Coder", "u-1")[1] == tmp_path / "classes" / "Coder"


def test_an_include_root_resolving_outside_the_home_is_refused(tmp_path: Path) -> None:
    home, elsewhere = tmp_path / "home", tmp_path / "elsewhere"
    (home / "classes").mkdir(parents=True)
    (elsewhere / "x").mkdir(parents=True)
    (home / "classes" / "Linked").symlink_to(elsewhere)
    for class_name in ("../../elsewhere/x", "Linked"):  # a class stored before classes were checked; a link
        with pytest.raises(WardianError) as caught:
            paths.include_roots(home, class_name, "u-1")
        assert caught.value.code == "unauthorized" and caught.value.details["resolved"].startswith(str(elsewhere))
    (home / "classes" / "Inside").symlink_to(home / "common")  # a link that stays in the home is fine
    (home / "common").mkdir()
    assert paths.include_roots(home, "Inside", "u-1") == [home / "common", home / "classes" / "Inside"]
