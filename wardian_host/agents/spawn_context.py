"""Builds the SpawnContext a provider's hooks receive for one launch of one agent."""

import json
from pathlib import Path
from typing import Any, Literal

from wardian_core import paths
from wardian_core.db.agents import AgentRow
from wardian_core.provider_models import LaunchConfig, SpawnContext


def launch_config_of(row: AgentRow) -> LaunchConfig:
    raw = row.get("launch_config") or "{}"
    return LaunchConfig.model_validate(json.loads(raw) if isinstance(raw, str) else raw)


def stored_launch_config(config: LaunchConfig) -> str:
    """The `launch_config` column's text: every key, provider settings only when the agent has its own,
    `recording` only when off (what every agent had before recordings reads the same)."""
    left_out = ({"settings"} if not config.settings else set()) | ({"recording"} if config.recording else set())
    return json.dumps(config.model_dump(mode="json", exclude=left_out or None))


def build_context(
    home: Path,
    row: AgentRow,
    *,
    mode: Literal["interactive", "headless"] = "interactive",
    session_mode: Literal["fresh", "resume"] = "fresh",
    provider_session_id: str | None = None,
    provider_settings: dict[str, Any] | None = None,
    prompt: str | None = None,
) -> SpawnContext:
    launch = launch_config_of(row)
    if provider_settings:
        launch = launch.model_copy(update={"settings": {**provider_settings, **launch.settings}})
    return SpawnContext(
        agent_uuid=row["uuid"],
        agent_name=row["name"],
        class_name=row["class"],
        provider=row["provider"],
        # In a worktree the provider runs, trusts and reads instructions there, as in a workspace.
        workspace=Path(row.get("worktree_folder") or row["workspace"] or home),
        include_roots=paths.include_roots(home, row["class"], row["uuid"]),
        wardian_home=home,
        agent_dir=paths.agent_dir(home, row["uuid"]),
        mode=mode,
        session_mode=session_mode,
        provider_session_id=provider_session_id,
        prompt=prompt,
        launch=launch,
    )
