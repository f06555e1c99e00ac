"""Shared helpers of the Codex provider's suite (the root conftest gives the hermetic env)."""

from collections.abc import Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from wardian_cli import WardianCli
from wardian_homes import wardian_fixture

from wardian_core.provider.testing import spawn_context


@pytest.fixture
def make_ctx(tmp_path: Path):
    """A SpawnContext for an agent whose Wardian home is under `tmp_path`."""
    return partial(spawn_context, tmp_path, "codex")


@pytest.fixture
def wardian(codex_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[WardianCli]:
    """`wardian` with the real Codex (the real-CLI tests): the user's Codex home (HOME/.codex)
    points at the model server."""
    monkeypatch.delenv("CODEX_HOME", raising=False)
    yield from wardian_fixture(
        codex_cli, tmp_path, monkeypatch, {"MOCK_MODEL_API_KEY": codex_cli.env["MOCK_MODEL_API_KEY"]}
    )
