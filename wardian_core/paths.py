"""The layout of a Wardian home, in one place.

`WARDIAN_HOME` (trimmed; empty means unset) selects the home, else `~/.wardian`.
Every function takes the home explicitly so the host and tests never depend on
the process environment after start-up.
"""

import os
from pathlib import Path


def wardian_home(environ: "os._Environ[str] | dict[str, str] | None" = None) -> Path:
    env = os.environ if environ is None else environ
    configured = env.get("WARDIAN_HOME", "").strip()
    if configured:
        return Path(configured).expanduser().absolute()
    return Path.home() / ".wardian"


def state_db(home: Path) -> Path:
    return home / "state.db"


def agents_dir(home: Path) -> Path:
    return home / "agents"


def agent_dir(home: Path, agent_uuid: str) -> Path:
    return agents_dir(home) / agent_uuid


def classes_dir(home: Path) -> Path:
    return home / "classes"


def class_dir(home: Path, class_name: str) -> Path:
    return classes_dir(home) / class_name


def common_dir(home: Path) -> Path:
    return home / "common"


def bin_dir(home: Path) -> Path:
    return home / "bin"


def workflows_dir(home: Path) -> Path:
    return home / "workflows"


def run_dir(home: Path) -> Path:
    return home / "run"


def logs_dir(home: Path) -> Path:
    return home / "logs"


def settings_file(home: Path) -> Path:
    return home / "settings.toml"


def include_roots(home: Path, class_name: str, agent_uuid: str) -> list[Path]:
    """Instruction and skill roots in precedence order (later wins), those that exist."""
    candidates = [common_dir(home), class_dir(home, class_name), agent_dir(home, agent_uuid)]
    return [root for root in candidates if root.is_dir()]
