"""Where the control endpoint of a home lives, and the peer-credential checks.

A Unix socket under `<home>/run/`. When that path is too long for a socket address
(108 bytes on Linux, 104 on macOS and the BSDs), a short path under `wardian/` in the user's runtime directory
(platformdirs: `$XDG_RUNTIME_DIR`, else `/run/user/<uid>`, else a private folder of
the temp directory) is used instead — never an abstract socket, which would be
private to a network namespace. That folder depends on the host's environment, so the
host records the path it bound in the home (`socket_record`) and every other process
reads it there. Every folder on the way is checked with lstat (a
planted symlink is refused, not followed) and for its owner, and the client checks
the server's uid as well.

Who is at the other end of a connection, the kernel says: SO_PEERCRED on Linux,
LOCAL_PEERCRED (with LOCAL_PEERPID on macOS) on macOS and FreeBSD; elsewhere the host
does not start (`not_supported`).
"""

import contextlib
import os
import socket
import stat
import struct
import sys
from pathlib import Path
from typing import Literal, cast, get_args

from wardian_core import paths
from wardian_core.errors import WardianError

SOCKET_NAME = "control.sock"


def max_socket_path_bytes() -> int:
    """sun_path's size less its terminating NUL: 108 bytes on Linux, 104 on macOS and the BSDs."""
    return 107 if sys.platform.startswith("linux") else 103


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
    """Where this home's host listens: `run/control.sock`, or for a long home the path its host
    recorded (`socket_record`), the same for every process whatever its environment."""
    primary = primary_socket_path(home)
    if _fits(primary):
        return primary
    from wardian_core.control import socket_record  # only for long homes: kept off the common path

    path = socket_record.read(home) or runtime_socket_path(home)
    if os.path.lexists(path.parent):  # the client too: never connect through a planted link
        refuse_unless_private(path.parent)
    return path


def serving_socket_path(home: Path) -> Path:
    """Where a host starting now listens: `run/control.sock`, or for a long home a short path in
    this process's runtime folder (which the host then records for the others)."""
    primary = primary_socket_path(home)
    if _fits(primary):
        return primary
    path = runtime_socket_path(home)
    if not _fits(path):  # bind() would fail inside the host with a bare OSError
        raise WardianError(
            "not_supported",
            f"no socket address fits this home: {path} is longer than the {max_socket_path_bytes()} bytes "
            "a socket address holds",
            "Give WARDIAN_HOME a shorter path, or set XDG_RUNTIME_DIR to a short folder of yours (mode 0700).",
            {"path": str(path)},
        )
    return path


def runtime_socket_path(home: Path) -> Path:
    directory = fallback_socket_dir()
    if os.path.lexists(directory):
        refuse_unless_private(directory)
    return directory / f"{home_digest(home)}.sock"


def home_digest(home: Path) -> str:
    """A short name for `home`, for a socket a long home's own folder cannot hold."""
    import hashlib  # only for long homes: kept off the common path (it maps OpenSSL's libcrypto)

    return hashlib.sha256(os.fsencode(home)).hexdigest()[:16]


def _fits(path: Path) -> bool:
    return len(os.fsencode(path)) <= max_socket_path_bytes()


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


# The peer's credentials, as each kernel reports them. Only Linux's path runs here: the
# macOS and FreeBSD ones cannot run on Linux, so tests prove their decoding on bytes laid
# out as those kernels write them (tests/test_peer_processes.py).
LINUX_UCRED = struct.Struct("3i")  # struct ucred { pid_t pid; uid_t uid; gid_t gid; }
# sys/un.h of macOS and FreeBSD; Python's socket module names none of them on macOS.
SOL_LOCAL = 0
LOCAL_PEERCRED = 0x001  # struct xucred, kept from connect() on: readable after the peer left
LOCAL_PEERPID = 0x002  # macOS: pid_t, only while the peer is connected
XUCRED_VERSION = 0
# struct xucred { u_int cr_version; uid_t cr_uid; short cr_ngroups; gid_t cr_groups[16]; }
# (sys/ucred.h; cr_groups[0] is the effective gid). Native alignment pads cr_ngroups to 4
# bytes as the C compiler does: 76 bytes.
XUCRED = struct.Struct("@IIh16I")
# FreeBSD appends `union { void *_cr_unused1; pid_t cr_pid; }`, aligned as a pointer (88
# bytes on 64-bit systems); kernels before FreeBSD 13 leave cr_pid 0.
FREEBSD_XUCRED_SIZE = struct.calcsize("@IIh16IP")
FREEBSD_PID_OFFSET = FREEBSD_XUCRED_SIZE - struct.calcsize("@P")
PID = struct.Struct("@i")
CredentialMeans = Literal["linux", "darwin", "freebsd"]


def peer_credential_means() -> CredentialMeans:
    """How this system names a Unix socket's peer; `not_supported` where Wardian knows no way."""
    means = next((name for name in get_args(CredentialMeans) if sys.platform.startswith(name)), None)
    if means is None:
        raise _credentials_unreadable("Wardian knows no way to ask this kernel for a socket's peer")
    return cast(CredentialMeans, means)


def peer_credentials(sock: socket.socket) -> tuple[int, int, int]:
    """(pid, uid, gid) of the process at the other end of a Unix socket."""
    means = peer_credential_means()
    if means == "linux":
        pid, uid, gid = LINUX_UCRED.unpack(sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, LINUX_UCRED.size))
        return pid, uid, gid
    if means == "darwin":
        uid, gid = decode_xucred(sock.getsockopt(SOL_LOCAL, LOCAL_PEERCRED, XUCRED.size))
        (pid,) = PID.unpack(sock.getsockopt(SOL_LOCAL, LOCAL_PEERPID, PID.size))
        return pid, uid, gid
    return decode_freebsd_xucred(sock.getsockopt(SOL_LOCAL, LOCAL_PEERCRED, FREEBSD_XUCRED_SIZE))


def peer_uid(sock: socket.socket) -> int:
    """The peer's uid alone, for a client checking its server: unlike macOS's pid, it can
    be read after the server closed the connection (a host at its connection limit)."""
    if peer_credential_means() == "linux":
        return peer_credentials(sock)[1]
    return decode_xucred(sock.getsockopt(SOL_LOCAL, LOCAL_PEERCRED, XUCRED.size))[0]


def decode_xucred(raw: bytes) -> tuple[int, int]:
    """(uid, gid) from a `struct xucred` (macOS, FreeBSD)."""
    if len(raw) < XUCRED.size:
        raise _credentials_unreadable(f"the kernel gave {len(raw)} bytes of a {XUCRED.size}-byte struct xucred")
    version, uid, group_count, *groups = XUCRED.unpack_from(raw)
    if version != XUCRED_VERSION or group_count < 1:
        raise _credentials_unreadable(f"a struct xucred of version {version} with {group_count} groups")
    return uid, groups[0]


def decode_freebsd_xucred(raw: bytes) -> tuple[int, int, int]:
    """(pid, uid, gid) from FreeBSD's `struct xucred`, whose cr_pid follows the groups."""
    uid, gid = decode_xucred(raw)
    if len(raw) < FREEBSD_XUCRED_SIZE:
        raise _credentials_unreadable(f"the kernel gave {len(raw)} bytes of a {FREEBSD_XUCRED_SIZE}-byte xucred")
    (pid,) = PID.unpack_from(raw, FREEBSD_PID_OFFSET)
    if pid <= 0:
        raise _credentials_unreadable("this FreeBSD reports no peer pid (cr_pid came with FreeBSD 13)")
    return pid, uid, gid


def _credentials_unreadable(reason: str) -> WardianError:
    return WardianError(
        "not_supported",
        f"Wardian cannot tell who connects to its control socket on {sys.platform}: {reason}",
        "Wardian's host runs on Linux, macOS and FreeBSD 13 or later; docs/platforms.md says what runs where.",
        {"platform": sys.platform, "reason": reason},
    )


def check_same_user(peer_uid: int, own_uid: int, who: str) -> None:
    if peer_uid != own_uid:
        raise WardianError(
            "unauthorized",
            f"the {who} runs as uid {peer_uid}, not as this user (uid {own_uid})",
            "Each user runs their own Wardian host; set WARDIAN_HOME to a home of yours.",
            {"peer_uid": peer_uid, "uid": own_uid},
        )
