"""A cgroup of its own for each agent, where the system lets Wardian make one.

An agent's processes can leave its process tree (`setsid -f`, a daemon) and drop its
`WARDIAN_SESSION_ID`, and then pass for a person. A cgroup v2 membership is inherited
by every child and a process cannot leave it by itself unless it may write the
`cgroup.procs` of another cgroup: root may, and in a systemd delegation so may every
process of that user, which can then move itself out, or into another agent's cgroup,
on purpose (docs/cli.md says so); Wardian cannot stop that. So where the
host may make cgroups under its own — as root, or in a systemd user delegation — each
agent's launch joins `<the host's cgroup>/wardian-<home digest>/<agent uuid>` itself
before it execs the agent (`entering`), so nothing it forks is born outside, and a caller
is classified by the cgroup `/proc/<pid>/cgroup` names. Where that is not possible, `support.reason` says why and
callers are classified by their process tree alone.
"""

import contextlib
import hashlib
import logging
import os
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

PROC = Path("/proc")


@dataclass(frozen=True)
class CgroupSupport:
    folder: Path | None  # where agents' cgroups are made; None when they cannot be
    reason: str | None = None  # why not

    def answer(self) -> dict[str, object]:
        """What `host whoami` says about this tie."""
        folder = None if self.folder is None else str(self.folder)
        return {"in_use": self.folder is not None, "folder": folder, "reason": self.reason}


def cgroup2_mount(mountinfo: str) -> Path | None:
    """Where the cgroup v2 hierarchy is mounted (/sys/fs/cgroup, or .../unified on a hybrid system)."""
    for line in mountinfo.splitlines():
        fields = line.split()
        if "-" in fields:
            separator = fields.index("-")
            if fields[separator + 1 : separator + 2] == ["cgroup2"]:
                return Path(fields[4])
    return None


def cgroup2_path(proc_cgroup: str) -> str | None:
    """A process's cgroup v2 path from its /proc/<pid>/cgroup (the `0::` line)."""
    for line in proc_cgroup.splitlines():
        if line.startswith("0::"):
            return line[3:]
    return None


def _read(path: Path) -> str | None:
    try:
        return path.read_text()
    except OSError:
        return None


def probe(home: Path, proc: Path = PROC) -> CgroupSupport:
    """Whether this host may make agents' cgroups, and where."""
    mount = cgroup2_mount(_read(proc / "self" / "mountinfo") or "")
    own = cgroup2_path(_read(proc / "self" / "cgroup") or "")
    if mount is None or own is None:
        return CgroupSupport(None, "this system has no cgroup v2 hierarchy")
    digest = hashlib.sha256(os.fsencode(home)).hexdigest()[:16]
    parent = mount / own.lstrip("/")
    # Made with the first agent's launch (`prepare`), so a host without agents leaves nothing behind.
    if not (os.access(parent, os.W_OK) and os.access(parent / "cgroup.procs", os.W_OK)):
        return CgroupSupport(None, f"this user may not make cgroups in {parent} (root or a systemd delegation may)")
    folder = parent / f"wardian-{digest}"
    return CgroupSupport(folder)


class AgentCgroups:
    def __init__(self, support: CgroupSupport, proc: Path = PROC) -> None:
        self.support = support
        self._proc = proc

    @classmethod
    def open(cls, home: Path) -> "AgentCgroups":
        support = probe(home)
        if support.folder is None:
            log.info("agents get no cgroup of their own: %s", support.reason)
        opened = cls(support)
        opened.release(None)  # what a host that died left of this home's cgroups, now empty
        return opened

    def prepare(self, agent_uuid: str) -> Path | None:
        """The `cgroup.procs` file of the agent's cgroup, made if missing; None where it cannot be."""
        folder = self.support.folder
        if folder is None:
            return None
        target = folder / agent_uuid
        try:
            target.mkdir(parents=True, exist_ok=True)
            self._sweep(keep=agent_uuid)
        except OSError as exc:
            log.warning("could not make a cgroup for agent %s: %s", agent_uuid, exc)
            return None
        return target / "cgroup.procs"

    def agent_of(self, pid: int) -> str | None:
        """The uuid of the agent whose cgroup holds `pid` (or a cgroup it made below its own)."""
        folder = self.support.folder
        if folder is None:
            return None  # no agent has a cgroup: the caller's file need not be read
        path = cgroup2_path(_read(self._proc / str(pid) / "cgroup") or "")
        if path is None:
            return None
        parts = Path(path).parts
        if folder.name not in parts:
            return None
        below = parts[parts.index(folder.name) + 1 :]
        return below[0] if below else None

    def release(self, agent_uuid: str | None) -> None:
        """Remove an agent's cgroup (None: every agent's) once nothing is left in it (a process that
        outlived it keeps it), and the home's folder with the last one (`prepare` makes it again)."""
        folder = self.support.folder
        if folder is None:
            return
        emptied = [folder / agent_uuid] if agent_uuid else _subfolders(folder)
        _remove_empty([*emptied, folder])

    def _sweep(self, keep: str) -> None:
        """Remove the empty cgroups of agents no longer running (their exit could not remove them)."""
        if self.support.folder is not None:
            _remove_empty([child for child in _subfolders(self.support.folder) if child.name != keep])


def _subfolders(folder: Path) -> list[Path]:
    try:
        return [child for child in folder.iterdir() if child.is_dir()]
    except FileNotFoundError:
        return []


def _remove_empty(folders: list[Path]) -> None:
    """rmdir each: the kernel refuses a cgroup that still holds a process or a child cgroup."""
    for folder in folders:
        with contextlib.suppress(OSError):
            folder.rmdir()


def entering(procs: Path, executable: str, arguments: list[str]) -> list[str]:
    """argv that joins the cgroup whose `cgroup.procs` is `procs` (writing 0 moves the writer
    itself), then execs `executable`: the launch is inside before it runs anything, so nothing
    it forks, however fast, is born outside. A cgroup that went meanwhile leaves the launch
    where it was (tied by its process tree), never unstarted."""
    script = '{ echo 0 > "$0"; } 2>/dev/null; exec "$@"'
    return ["/bin/sh", "-c", script, os.fspath(procs), executable, *arguments]
