"""Shared helpers of the Gemini provider's suite (the root conftest gives the hermetic env)."""

from pathlib import Path

import pytest

from wardian_core.provider_models import LaunchConfig, SpawnContext


@pytest.fixture
def make_ctx(tmp_path: Path):
    """A SpawnContext for an agent whose Wardian home is under `tmp_path`."""

    def make(**fields) -> SpawnContext:
        home = tmp_path / "wardian"
        workspace = fields.pop("workspace", tmp_path / "proj")
        Path(workspace).mkdir(parents=True, exist_ok=True)
        settings = fields.pop("settings", {})
        include_dirs = fields.pop("include_dirs", [])
        model = fields.pop("model", None)
        values = dict(
            agent_uuid="0b7e6f3c-1111-4222-8333-444455556666",
            agent_name="coder",
            class_name="Coder",
            provider="gemini",
            workspace=workspace,
            wardian_home=home,
            agent_dir=home / "agents" / "0b7e6f3c-1111-4222-8333-444455556666",
            launch=LaunchConfig(settings=settings, include_dirs=include_dirs, model=model),
        )
        values.update(fields)
        return SpawnContext(**values)

    return make
