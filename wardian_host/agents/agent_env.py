"""The environment every agent process starts with."""

import os
from pathlib import Path

from wardian_core import paths

# The host's own Wardian variables never leak into an agent: each gets its own.
_HOST_ONLY_PREFIX = "WARDIAN_"


def agent_environment(base: dict[str, str], home: Path, agent_uuid: str, *extra: dict[str, str]) -> dict[str, str]:
    env = {key: value for key, value in base.items() if not key.startswith(_HOST_ONLY_PREFIX)}
    for addition in extra:
        env.update(addition)
    env["WARDIAN_SESSION_ID"] = agent_uuid
    env["WARDIAN_HOME"] = str(home)
    env["TERM"] = "xterm-256color"
    env["PATH"] = os.pathsep.join([str(paths.bin_dir(home)), env.get("PATH", os.defpath)])
    return env
