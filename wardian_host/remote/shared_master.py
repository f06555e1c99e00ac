"""One ssh master connection per remote, shared by many long-lived ssh sessions (the
dashboard's followers, one per remote agent): N sessions cost one TCP connection and one
handshake, and each new session starts in the time of a local socket's round trip.

The master is this process's own (a ControlPath in a private folder), whatever the user's
config says: the user's may set no master, or `ControlMaster=auto`, where N sessions started
at once each find no socket yet and each make their own connection. It is started once,
before the first session, and ended by `close`; should its owner die without closing it,
ControlPersist ends it once no session has used it for PERSIST_SECONDS.
"""

import contextlib
import hashlib
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

from wardian_host.remote.options import Remote, ssh_options
from wardian_host.remote.ssh import ssh_argv

PERSIST_SECONDS = 60
# Starting a master waits at most for ssh's own ConnectTimeout and the login; past that, the
# sessions connect on their own (and name the failure themselves).
START_SECONDS = 60.0


class SharedMasters:
    def __init__(self) -> None:
        self._folder: Path | None = None
        self._started: dict[str, Remote] = {}
        self._closed = False
        self._lock = threading.Lock()

    def argv(self, remote: Remote, args: list[str]) -> list[str]:
        """`ssh_argv(remote, args)` through `remote`'s master, started first when none runs."""
        socket = self._ensure(remote)
        ssh, *rest = ssh_argv(remote, args)
        return [ssh, *_through(socket, "no"), *rest]  # before the user's options, as `_before_options`

    def close(self) -> None:
        """End every master started (`ssh -O exit`), and remove their folder."""
        with self._lock:
            self._closed = True
            started, self._started = list(self._started.values()), {}
            folder, self._folder = self._folder, None
        for remote in started:
            socket = self._socket(folder, remote) if folder is not None else None
            if socket is not None and socket.exists():
                command = [*_before_options(remote, _through(socket, "no")), "-O", "exit", remote.settings.ssh]
                subprocess.run(command, capture_output=True, stdin=subprocess.DEVNULL, timeout=START_SECONDS)
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)

    def _ensure(self, remote: Remote) -> Path:
        """The master's socket; under the lock, so sessions started together make one master."""
        with self._lock:
            if self._closed:  # a session asked for as its owner closes: no master to outlive it
                raise OSError("the ssh masters were closed")
            if self._folder is None:
                # Short: a unix socket's path holds at most 104 bytes on some systems.
                self._folder = Path(tempfile.mkdtemp(prefix="wardian-ssh-"))
            socket = self._socket(self._folder, remote)
            if not socket.exists():
                self._started[remote.name] = remote
                # `-N -o ControlPersist`: ssh returns once the master is up, which then runs on
                # in the background until `-O exit` (or PERSIST_SECONDS without a session).
                master = [*_through(socket, "yes"), "-o", f"ControlPersist={PERSIST_SECONDS}"]
                command = [*_before_options(remote, master), "-N", remote.settings.ssh]
                # No master (timed out, refused): each session connects on its own and says why not.
                with contextlib.suppress(subprocess.TimeoutExpired):
                    subprocess.run(command, capture_output=True, stdin=subprocess.DEVNULL, timeout=START_SECONDS)
            return socket

    @staticmethod
    def _socket(folder: Path, remote: Remote) -> Path:
        return folder / hashlib.sha256(remote.name.encode()).hexdigest()[:12]


def _through(socket: Path, master: str) -> list[str]:
    return ["-o", f"ControlMaster={master}", "-o", f"ControlPath={socket}"]


def _before_options(remote: Remote, ours: list[str]) -> list[str]:
    """`ssh`, `ours`, then the remote's own options: ssh keeps the first value of each."""
    ssh, *options = ssh_options(remote)
    return [ssh, *ours, *options]
