"""Whether a launch's output is recorded, and where: the home's `recording.*` settings, then the
agent's own `--no-recording` (docs/recordings.md). Decided at each launch, so a changed setting
applies from an agent's next launch on; the terminal server does the recording."""

from pathlib import Path

from wardian_core import paths
from wardian_core import recording_format as fmt
from wardian_core.db.agents import AgentRow
from wardian_core.settings import load_settings
from wardian_host.agents.spawn_context import launch_config_of


def recording_target(home: Path, row: AgentRow) -> fmt.Target | None:
    settings = load_settings(home).recording
    if not settings.enabled or not launch_config_of(row).recording:
        return None
    return fmt.Target(fmt.folder(paths.agent_dir(home, row["uuid"])), settings.max_bytes)
