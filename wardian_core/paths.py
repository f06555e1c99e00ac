"""The layout of a Wardian home, in one place.

`WARDIAN_HOME` (trimmed; empty means unset) selects the home, else `~/.wardian`.
Every function takes the home explicitly so the host and tests never depend on
the process environment after start-up.

A home is its owner's only (0700): it holds what agents printed, so state.db, its -wal
and -shm, settings.toml and the host's logs are 0600 as well. It must also be its
caller's own, with every folder in it Wardian writes into (`check_owner`): another
user who owns any of them could swap `bin/wardian`, first on every agent's PATH, and
have their code run as the caller.
"""

import contextlib
import os
from pathlib import Path

from wardian_core.errors import WardianError

PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
# The folders of a home Wardian writes into (settings.toml, which may be a link into a
# dotfiles checkout, is written through its link by design).
WRITTEN_FOLDERS = ("agents", "bin", "run", "logs", "workflows", "workflow-runs")


def wardian_home(environ: "os._Environ[str] | dict[str, str] | None" = None) -> Path:
    env = os.environ if environ is None else environ
    configured = env.get("WARDIAN_HOME", "").strip()
    if configured:
        return Path(configured).expanduser().absolute()
    return Path.home() / ".wardian"


def ensure_home(home: Path) -> Path:
    """The home, created owner-only if missing (an existing one is tightened at host start);
    one of another user is refused before anything is written in it."""
    check_owner(home)
    home.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
    return home


def check_owner(home: Path) -> None:
    """Refuse (`unauthorized`) a home, or a folder in it Wardian writes into, that this user
    does not own; a link among them is judged by the link and by what it leads to."""
    for folder in [home, *(home / name for name in WRITTEN_FOLDERS)]:
        try:
            owners = {os.lstat(folder).st_uid, os.stat(folder).st_uid}
        except FileNotFoundError:
            continue  # what is missing is made by this user when it is needed
        except PermissionError:
            raise _foreign_home(home, folder, "this user may not look into it") from None
        foreign = owners - {os.getuid()}
        if foreign:
            raise _foreign_home(home, folder, f"it belongs to uid {foreign.pop()}")


def check_owner_within(home: Path) -> None:
    """`check_owner`, and each agent's folder and `bin/wardian` too: what a host writes into or
    runs for agents (checked when a host starts; every command checks the top folders)."""
    check_owner(home)
    below = [bin_dir(home) / "wardian"]
    for parent in (agents_dir(home), home / "workflow-runs"):
        with contextlib.suppress(FileNotFoundError, NotADirectoryError):
            below += sorted(parent.iterdir())
    for path in below:
        with contextlib.suppress(FileNotFoundError):
            owner = os.lstat(path).st_uid
            if owner != os.getuid():
                raise _foreign_home(home, path, f"it belongs to uid {owner}")


def _foreign_home(home: Path, folder: Path, reason: str) -> WardianError:
    return WardianError(
        "unauthorized",
        f"{folder} is not this user's own: {reason}",
        f"Each user keeps their own Wardian home: point WARDIAN_HOME at a folder of yours (uid {os.getuid()}), "
        f"or have {folder} removed or given to you if it should be yours.",
        {"home": str(home), "path": str(folder), "uid": os.getuid()},
    )


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


def workflow_run_dir(home: Path, run_id: str) -> Path:
    """A workflow run's own files: a directory per node run (its provider home, a shell's scratch)."""
    return home / "workflow-runs" / run_id


def run_dir(home: Path) -> Path:
    return home / "run"


def host_lock(home: Path) -> Path:
    """The host's lock: its holder is the home's running host (read by the CLI and the answers too)."""
    return run_dir(home) / "host.lock"


def terminal_server_lock(home: Path) -> Path:
    """The terminal server's lock: its holder is the home's one server (read by the CLI too)."""
    return run_dir(home) / "terminal-server.lock"


def logs_dir(home: Path) -> Path:
    return home / "logs"


def settings_file(home: Path) -> Path:
    return home / "settings.toml"


def include_roots(home: Path, class_name: str, agent_uuid: str) -> list[Path]:
    """Instruction and skill roots in precedence order (later wins), those that exist; one that
    resolves outside the home is refused (a provider reads it, and writes links into it)."""
    candidates = [common_dir(home), class_dir(home, class_name), agent_dir(home, agent_uuid)]
    return [check_inside(home, root) for root in candidates if root.is_dir()]


def include_root_folders(home: Path) -> list[Path]:
    """The folders of the home that hold every include root: what a provider may trust on
    Wardian's behalf. Not the whole home, which also holds worktrees of the user's code."""
    return [common_dir(home), classes_dir(home), agents_dir(home)]


def check_inside(home: Path, path: Path) -> Path:
    """`path`, when it resolves inside `home` (every link on the way followed); else `unauthorized`.
    A class named `../../x` (stored before classes were checked) or a folder of the home linked
    elsewhere would otherwise have a provider read there and make folders and links there."""
    resolved = path.resolve()
    if resolved.is_relative_to(home.resolve()):
        return path
    raise WardianError(
        "unauthorized",
        f"{path} leads outside the Wardian home (to {resolved})",
        f"Wardian reads and writes agents' folders inside {home} only: make {path} a folder of its own "
        "(copy what the link led to into it), or remove it.",
        {"path": str(path), "resolved": str(resolved), "home": str(home)},
    )
