"""What the projection grants so that the agent's shell tool can run `wardian` (reach.py)."""

import os
import tomllib
from pathlib import Path

import pytest

from wardian_codex import home, reach


@pytest.fixture
def user_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    codex = tmp_path / "user" / ".codex"
    codex.mkdir(parents=True)
    monkeypatch.setenv("CODEX_HOME", str(codex))
    monkeypatch.setenv("PATH", "/usr/local/bin:/usr/bin")
    return codex


def projected_config(ctx) -> dict:
    codex_home = Path(home.prepare(ctx).env["CODEX_HOME"])
    return tomllib.loads((codex_home / "config.toml").read_text())


def test_commands_get_wardians_bin_first_on_path_and_the_agents_variables(make_ctx, user_home) -> None:
    ctx = make_ctx()

    variables = projected_config(ctx)["shell_environment_policy"]["set"]

    # Restored after Codex sources its login-shell snapshot, which may have reset PATH.
    assert variables["PATH"] == os.pathsep.join([str(ctx.wardian_home / "bin"), "/usr/local/bin", "/usr/bin"])
    assert variables["WARDIAN_HOME"] == str(ctx.wardian_home)
    assert variables["WARDIAN_SESSION_ID"] == ctx.agent_uuid


def test_the_users_own_shell_variables_and_path_are_kept_behind_wardians_bin(make_ctx, user_home) -> None:
    (user_home / "config.toml").write_text(
        '[shell_environment_policy]\ninherit = "core"\n'
        '[shell_environment_policy.set]\nPATH = "/opt/tools"\nLANG = "C"\n'
    )
    ctx = make_ctx()

    policy = projected_config(ctx)["shell_environment_policy"]

    assert policy["inherit"] == "core"
    assert policy["set"]["LANG"] == "C"
    assert policy["set"]["PATH"] == os.pathsep.join([str(ctx.wardian_home / "bin"), "/opt/tools"])


def test_wardians_bin_is_not_repeated_when_the_environment_already_has_it(make_ctx, monkeypatch) -> None:
    ctx = make_ctx()
    bin_dir = str(ctx.wardian_home / "bin")

    path = reach.shell_path(ctx, {}, {"PATH": os.pathsep.join([bin_dir, "/usr/bin"])})

    assert path == os.pathsep.join([bin_dir, "/usr/bin"])


def test_an_exec_policy_rule_lets_the_wardian_command_out_of_the_sandbox(make_ctx, user_home) -> None:
    codex_home = Path(home.prepare(make_ctx()).env["CODEX_HOME"])

    rules = (codex_home / "rules" / "wardian.rules").read_text()

    # Codex runs a command outside its sandbox only when a rule allows every part of it.
    assert 'prefix_rule(pattern = ["wardian"], decision = "allow"' in rules
    assert [line for line in rules.splitlines() if not line.startswith("#")] == [
        'prefix_rule(pattern = ["wardian"], decision = "allow", justification = "Wardian\'s own CLI")'
    ]


def test_a_stale_rules_file_is_rewritten(make_ctx, user_home) -> None:
    ctx = make_ctx()
    codex_home = Path(home.prepare(ctx).env["CODEX_HOME"])
    (codex_home / "rules" / "wardian.rules").write_text('prefix_rule(pattern = ["rm"], decision = "allow")\n')

    home.prepare(ctx)

    assert (codex_home / "rules" / "wardian.rules").read_text() == reach.RULES
