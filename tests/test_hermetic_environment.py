"""The hermetic plugin's environment: what a developer's own setup could leak into a test."""

from pathlib import Path

from wardian_host.testing.hermetic import clean_environment


def test_an_activated_venvs_prompt_does_not_reach_a_tests_shells(tmp_path: Path) -> None:
    # `. .venv/bin/activate` exports PS1="(.venv) …": a shell agent would print it, not `bash-5.2$`.
    base = {"PATH": "/usr/bin", "PS1": "(.venv) ", "PROMPT_COMMAND": "history -a", "BASH_ENV": "/x/rc"}
    env = clean_environment(base, tmp_path / "home", tmp_path / "wardian")
    assert env == {"PATH": "/usr/bin", "HOME": str(tmp_path / "home"), "WARDIAN_HOME": str(tmp_path / "wardian")}


def test_provider_and_wardian_variables_are_dropped_but_the_runs_own_choices_kept(tmp_path: Path) -> None:
    base = {
        "ANTHROPIC_API_KEY": "k",
        "WARDIAN_HOME": "/elsewhere",
        "CI": "true",
        "WARDIAN_PTY_BACKEND": "ptyprocess",
        "LANG": "C.UTF-8",
    }
    env = clean_environment(base, tmp_path / "home", tmp_path / "wardian")
    assert env["WARDIAN_PTY_BACKEND"] == "ptyprocess" and env["LANG"] == "C.UTF-8"
    assert env["WARDIAN_HOME"] == str(tmp_path / "wardian")
    assert "ANTHROPIC_API_KEY" not in env and "CI" not in env
