"""Shared helpers of the OpenCode provider's suite (the root conftest gives the hermetic env)."""

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
    return partial(spawn_context, tmp_path, "opencode")


@pytest.fixture
def wardian(opencode_cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[WardianCli]:
    """`wardian` with the real OpenCode (the real-CLI tests), its host inheriting the OPENCODE_CONFIG
    naming the model server."""
    inherited = {name: value for name, value in opencode_cli.env.items() if name.startswith("OPENCODE_")}
    yield from wardian_fixture(opencode_cli, tmp_path, monkeypatch, inherited)
