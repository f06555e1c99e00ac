"""Shared helpers of the Gemini provider's suite (the root conftest gives the hermetic env)."""

from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from wardian_cli import WardianCli
from wardian_homes import wardian_fixture

from wardian_core.provider.testing import spawn_context

# What points Gemini at the model server, in the user's environment: the host (and so every agent)
# inherits it.
GEMINI_VARIABLES = ("GEMINI_CLI_HOME", "GEMINI_API_KEY", "GOOGLE_GEMINI_BASE_URL", "GEMINI_CLI_NO_RELAUNCH")


@pytest.fixture
def make_ctx(tmp_path: Path):
    """A SpawnContext for an agent whose Wardian home is under `tmp_path`."""
    return partial(spawn_context, tmp_path, "gemini")


@pytest.fixture
def wardian(gemini_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[WardianCli]:
    """`wardian` with the real Gemini CLI (the real-CLI tests), its host inheriting GEMINI_VARIABLES."""
    yield from wardian_fixture(
        gemini_cli, tmp_path, monkeypatch, {name: gemini_cli.env[name] for name in GEMINI_VARIABLES}
    )
