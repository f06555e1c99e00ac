"""What `wardian agent recording` writes: an agent's recording, exported (docs/recordings.md).

Read from the agent's folder directly, so it answers with the host stopped too: the terminal
server writes each record whole as it reads it, and a reader never sees half of one.
"""

import time
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from wardian_core import asciicast, paths
from wardian_core import recording_format as fmt
from wardian_core.errors import WardianError


class RecordingOrder(NamedTuple):
    target: str
    format: str = "asciicast"
    since: str | None = None
    until: str | None = None


def recording_lines(order: RecordingOrder) -> Iterator[str]:
    """The export's lines; every flag and the agent are checked before the first is made."""
    from wardian_core.roster import show_agent

    if order.format not in asciicast.FORMATS:
        raise WardianError(
            "usage",
            f"unknown recording format {order.format!r}",
            f"Use --format {' or '.join(asciicast.FORMATS)}.",
            {"format": order.format, "formats": list(asciicast.FORMATS)},
        )
    now = time.time()
    since = asciicast.moment("--since", order.since, now) if order.since is not None else None
    until = asciicast.moment("--until", order.until, now) if order.until is not None else None
    if since is not None and until is not None and until < since:
        raise WardianError(
            "usage",
            f"--until {order.until} is before --since {order.since}",
            "Give an --until after --since.",
            {"since": order.since, "until": order.until},
        )
    home = paths.wardian_home()
    agent = show_agent(home, order.target)
    folder = fmt.folder(paths.agent_dir(home, agent["uuid"]))
    if not fmt.segments(folder):
        raise _nothing_recorded(home, agent)
    return asciicast.lines(fmt.read(folder), since, until)


def _nothing_recorded(home: Path, agent: dict[str, object]) -> WardianError:
    from wardian_core.settings import load_settings

    name = str(agent["name"])
    config = agent.get("launch_config")
    agent_off = isinstance(config, dict) and config.get("recording") is False
    if agent_off or not load_settings(home).recording.enabled:
        why, hint = (
            ("it was spawned with --no-recording", f"Clone it to record: `wardian agent clone {name}`.")
            if agent_off
            else (
                "recording.enabled is false in this home",
                "Run `wardian settings set recording.enabled true`; agents record from their next launch.",
            )
        )
        return WardianError("recording_off", f"agent {name} has no recording: {why}", hint, {"agent": name})
    return WardianError(
        "not_found",
        f"agent {name} has no recording yet",
        "It is recorded from its next launch on: `wardian agent restart NAME`, or wait until it prints.",
        {"agent": name},
    )
