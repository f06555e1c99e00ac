"""Where the control endpoint of a home lives, and the peer-credential checks.

A Unix socket under `<home>/run/`. When that path is too long for a socket address
(108 bytes on Linux), a short path on disk under a per-user folder of the temp
directory is used instead — never an abstract socket, which would be private to a
network namespace. The client checks the server's uid because that fallback sits
in a shared directory.
"""

import os
import socket
import struct
from pathlib import Path

from wardian_core import paths
from wardian_core.errors import WardianError

SOCKET_NAME = "control.sock"
MAX_SOCKET_PATH_BYTES = 107  # sun_path is 108 bytes including the terminating NUL


def primary_socket_path(home: Path) -> Path:
    return paths.run_dir(home) / SOCKET_NAME


def fallback_socket_dir() -> Path:
    base = os.environ.get("TMPDIR") or "/tmp"
    return Path(base) / f"wardian-{os.getuid()}"


def socket_path(home: Path) -> Path:
    primary = primary_socket_path(home)
    if len(os.fsencode(primary)) <= MAX_SOCKET_PATH_BYTES:
        return primary
    import hashlib  # only for long homes: kept off the common path

    digest = hashlib.sha256(os.fsencode(home)).hexdigest()[:16]
    return fallback_socket_dir() / f"{digest}.sock"


def ensure_private_dir(directory: Path) -> None:
    """Create `directory` 0700, and refuse one another user owns or others can write."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = directory.stat()
    if info.st_uid != os.getuid() or info.st_mode & 0o077:
        raise WardianError(
            "unauthorized",
            f"{directory} is not private to this user",
            f"Remove {directory} or fix its owner and mode (0700).",
            {"path": str(directory), "owner_uid": info.st_uid, "mode": oct(info.st_mode & 0o777)},
        )


def peer_credentials(sock: socket.socket) -> tuple[int, int, int]:
    """(pid, uid, gid) of the process at the other end of a Unix socket (Linux)."""
    raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    pid, uid, gid = struct.unpack("3i", raw)
    return pid, uid, gid


def check_same_user(peer_uid: int, own_uid: int, who: str) -> None:
    if peer_uid != own_uid:
        raise WardianError(
            "unauthorized",
            f"the {who} runs as uid {peer_uid}, not as this user (uid {own_uid})",
            "Each user runs their own Wardian host; set WARDIAN_HOME to a home of yours.",
            {"peer_uid": peer_uid, "uid": own_uid},
        )
