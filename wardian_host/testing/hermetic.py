"""A pytest plugin that gives every test its own WARDIAN_HOME and HOME.

Load it explicitly (`pytest_plugins = ["wardian_host.testing.hermetic"]`): it is
not auto-registered, because it rewrites the environment of every test.
"""

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

# Variables through which a developer's own setup could leak into a test.
INHERITED_PREFIXES = (
    "WARDIAN_",
    "ANTHROPIC_",
    "CLAUDE_",
    "OPENAI_",
    "CODEX_",
    "GEMINI_",
    "GOOGLE_",
    "OPENCODE_",
    "XDG_",
    "CI_",
)
# Variables by which CLIs detect a CI run and change behaviour (Gemini CLI 0.61 turns
# non-interactive under CI=true): a test must behave the same on a laptop and in CI.
RUN_CHOICES = ("WARDIAN_SKIP_REAL_CLI", "WARDIAN_PTY_BACKEND")
CI_VARIABLES = frozenset({"CI", "CONTINUOUS_INTEGRATION", "BUILD_NUMBER", "RUN_ID", "GITHUB_ACTIONS", "BUILD_ID"})
# A shell's prompt and start-up files as the developer's shell exported them: an activated venv
# exports PS1 "(.venv) …", and a test reading a shell agent's prompt must see the shell's own.
SHELL_VARIABLES = frozenset({"PS1", "PS2", "PS4", "PROMPT_COMMAND", "ENV", "BASH_ENV"})


def clean_environment(base: dict[str, str], home: Path, wardian_home: Path) -> dict[str, str]:
    """`base` without inherited Wardian/provider variables, pointed at the test's homes."""
    env = {
        key: value
        for key, value in base.items()
        if not key.startswith(INHERITED_PREFIXES) and key not in CI_VARIABLES | SHELL_VARIABLES
    }
    env["HOME"] = str(home)
    env["WARDIAN_HOME"] = str(wardian_home)
    # Keep the test run's own choices (the real-CLI opt-out, the terminal backend under
    # test) visible to the code that honours them.
    for kept in RUN_CHOICES:
        if kept in base:
            env[kept] = base[kept]
    return env


@pytest.fixture(autouse=True)
def hermetic_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    home = tmp_path / "user-home"
    wardian_home = tmp_path / "wardian-home"
    home.mkdir()
    wardian_home.mkdir()
    environment = clean_environment(dict(os.environ), home, wardian_home)
    for key in set(os.environ) - set(environment):
        monkeypatch.delenv(key)
    for key, value in environment.items():
        monkeypatch.setenv(key, value)
    yield


@pytest.fixture
def wardian_home() -> Path:
    return Path(os.environ["WARDIAN_HOME"])
