"""Where the control endpoint of a home lives, and the peer-credential checks.

A Unix socket under `<home>/run/`. When that path is too long for a socket address
(108 bytes on Linux), a short path under `wardian/` in the user's runtime directory
(platformdirs: `$XDG_RUNTIME_DIR`, else `/run/user/<uid>`, else a private folder of
the temp directory) is used instead — never an abstract socket, which would be
private to a network namespace. Every folder on the way is checked with lstat (a
planted symlink is refused, not followed) and for its owner, and the client checks
the server's uid as well.
"""

import contextlib
import os
import socket
import stat
import struct
from pathlib import Path

from wardian_core import paths
from wardian_core.errors import WardianError

SOCKET_NAME = "control.sock"
MAX_SOCKET_PATH_BYTES = 107  # sun_path is 108 bytes including the terminating NUL


def primary_socket_path(home: Path) -> Path:
    return paths.run_dir(home) / SOCKET_NAME


def fallback_socket_dir() -> Path:
    """`wardian/` in the user's runtime directory, which is checked to be the user's own."""
    import warnings

    import platformdirs  # only for long homes: kept off the common path

    with warnings.catch_warnings():
        # Its warning that it fell back to another folder would land in the CLI's stderr.
        warnings.simplefilter("ignore")
        try:
            base = platformdirs.user_runtime_path(ensure_exists=True)
        except OSError as exc:  # its temp-folder fallback is a link or another user's
            hint = "Set XDG_RUNTIME_DIR to a folder of yours with mode 0700."
            raise _not_private(Path(exc.filename or "the runtime directory"), str(exc), hint=hint) from None
    # Not necessarily 0700 (macOS's is 0755), but nobody else may replace what is in it.
    refuse_unless_private(base, others_may_read=True)
    return base / "wardian"


def socket_path(home: Path) -> Path:
    primary = primary_socket_path(home)
    if len(os.fsencode(primary)) <= MAX_SOCKET_PATH_BYTES:
        return primary
    import hashlib  # only for long homes: kept off the common path

    digest = hashlib.sha256(os.fsencode(home)).hexdigest()[:16]
    directory = fallback_socket_dir()
    if os.path.lexists(directory):  # the client too: never connect through a planted link
        refuse_unless_private(directory)
    return directory / f"{digest}.sock"


def ensure_private_dir(directory: Path) -> None:
    """Create `directory` 0700, and refuse a link, or a folder another user owns or may enter."""
    with contextlib.suppress(FileExistsError):  # a link or a file in the way is refused just below
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
    refuse_unless_private(directory)


def refuse_unless_private(directory: Path, others_may_read: bool = False) -> None:
    """Refuse `directory` unless it is a real folder (lstat: a symlink is not followed) of this
    user that no other user may write to (nor enter, unless `others_may_read`)."""
    info = os.lstat(directory)
    problem = _privacy_problem(info, 0o022 if others_may_read else 0o077)
    if problem is not None:
        mode = f"{stat.S_IMODE(info.st_mode):04o}"
        raise _not_private(directory, f"it {problem}", {"owner_uid": info.st_uid, "mode": mode})


def _privacy_problem(info: os.stat_result, forbidden_bits: int) -> str | None:
    if stat.S_ISLNK(info.st_mode):
        return "is a symbolic link"
    if not stat.S_ISDIR(info.st_mode):
        return "is not a folder"
    if info.st_uid != os.getuid():
        return f"belongs to uid {info.st_uid}"
    if info.st_mode & forbidden_bits:
        return f"has mode {stat.S_IMODE(info.st_mode):04o}"
    return None


def _not_private(
    directory: Path, reason: str, details: dict[str, object] | None = None, hint: str | None = None
) -> WardianError:
    return WardianError(
        "unauthorized",
        f"{directory} is not a private folder of this user: {reason}",
        hint or f"Remove {directory} (another user may have planted it), or make it a folder of yours, mode 0700.",
        {"path": str(directory), "uid": os.getuid(), **(details or {})},
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
