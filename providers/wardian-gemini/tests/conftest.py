"""Shared helpers of the Gemini provider's suite (the root conftest gives the hermetic env)."""

from functools import partial
from pathlib import Path

import pytest

from wardian_core.provider.testing import spawn_context


@pytest.fixture
def make_ctx(tmp_path: Path):
    """A SpawnContext for an agent whose Wardian home is under `tmp_path`."""
    return partial(spawn_context, tmp_path, "gemini")
