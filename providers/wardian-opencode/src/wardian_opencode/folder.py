"""The agent's OpenCode folder, `agents/<uuid>/opencode/`: named once, since the configuration
Wardian projects (`home`) and the TUI server's port and password (`server`) both live there."""

from pathlib import Path

from wardian_core.provider import SpawnContext


def wardian_dir(ctx: SpawnContext) -> Path:
    return ctx.agent_dir / "opencode"
