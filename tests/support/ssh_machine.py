"""A "remote machine" on this one: another local user with its own WARDIAN_HOME, reached through a
real OpenSSH server on 127.0.0.1 with keys made for the test.

Loopback with a test-only sshd_config rather than a network namespace: both homes' hosts and
the sshd must share one loopback, and `ListenAddress 127.0.0.1` already keeps the server off
every other interface; the keys and the user exist only for the test.
"""

import os
import pwd
import secrets
import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

SSHD = "/usr/sbin/sshd"
WARDIAN = str(Path(sys.executable).parent / "wardian")


@dataclass
class Machine:
    user: str
    home: Path  # the remote user's WARDIAN_HOME
    port: int
    identity: Path
    client_config: Path
    server: subprocess.Popen[bytes]

    def settings_table(self, name: str, **extra: str) -> str:
        lines = [
            f"[remotes.{name}]",
            f'ssh = "{self.user}@127.0.0.1"',
            f"port = {self.port}",
            f'identity_file = "{self.identity}"',
            f'ssh_config = "{self.client_config}"',
            f'home = "{self.home}"',
            f'command = "{WARDIAN}"',
        ]
        return "\n".join(lines + [f'{key} = "{value}"' for key, value in extra.items()]) + "\n"


def require_root() -> None:
    """Skip where the remote machine cannot be made: it is another local user, and creating one
    needs root (CI runs as root, so CI never skips); fail where root lacks what dev.py installs."""
    import pytest

    if os.geteuid() != 0:
        pytest.skip("the remote machine is another local user: creating it needs root (CI runs as root)")
    assert Path(SSHD).exists() and shutil.which("useradd"), "scripts/dev.py installs openssh-server"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def make_user() -> tuple[str, Path]:
    user = f"wr{secrets.token_hex(4)}"
    subprocess.run(["useradd", "--create-home", "--shell", "/bin/sh", user], check=True)
    subprocess.run(["usermod", "-p", "*", user], check=True)  # unlocked, yet no password logs in
    return user, Path(pwd.getpwnam(user).pw_dir)


def authorize(user: str, user_dir: Path, public_key: str) -> None:
    ssh_dir = user_dir / ".ssh"
    ssh_dir.mkdir(mode=0o700)
    (ssh_dir / "authorized_keys").write_text(public_key)
    entry = pwd.getpwnam(user)
    for path in (ssh_dir, ssh_dir / "authorized_keys"):
        os.chown(path, entry.pw_uid, entry.pw_gid)
    (ssh_dir / "authorized_keys").chmod(0o600)


def keygen(path: Path) -> None:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True)


def start_sshd(folder: Path, port: int) -> subprocess.Popen[bytes]:
    keygen(folder / "host_key")
    config = folder / "sshd_config"
    config.write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {folder / 'host_key'}\nPidFile none\n"
        "UsePAM no\nPasswordAuthentication no\nKbdInteractiveAuthentication no\nPubkeyAuthentication yes\n"
        "PermitRootLogin no\nStrictModes yes\nAcceptEnv none\nLogLevel ERROR\n"
    )
    Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # sshd's privilege-separation folder
    with open(folder / "sshd.log", "wb") as log:
        server = subprocess.Popen([SSHD, "-D", "-e", "-f", str(config)], stderr=log)
    _await_listening(port, server)
    return server


def _await_listening(port: int, server: subprocess.Popen[bytes]) -> None:
    """Poll the port until sshd accepts; there is no readiness signal on stdout to await."""
    for _ in range(500):
        if server.poll() is not None:
            raise RuntimeError(f"sshd ended with {server.returncode}")
        with socket.socket() as probe:
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return
        subprocess.run(["sleep", "0.02"], check=True)
    raise RuntimeError("sshd did not listen")


def client_config(folder: Path) -> Path:
    """The client side's ssh_config: the test's own known_hosts, never the user's."""
    path = folder / "ssh_config"
    path.write_text(f"Host *\n  StrictHostKeyChecking accept-new\n  UserKnownHostsFile {folder / 'known_hosts'}\n")
    return path


def start_machine(folder: Path) -> Machine:
    user, user_dir = make_user()
    keygen(folder / "client_key")
    authorize(user, user_dir, (folder / "client_key.pub").read_text())
    port = free_port()
    server = start_sshd(folder, port)
    return Machine(user, user_dir / "wardian-home", port, folder / "client_key", client_config(folder), server)


def stop_machine(machine: Machine) -> None:
    machine.server.terminate()
    machine.server.wait(timeout=30)
    subprocess.run(["pkill", "-KILL", "-u", machine.user], check=False)  # only the test user's processes
    subprocess.run(["userdel", "--remove", machine.user], check=False, capture_output=True)
    shutil.rmtree(machine.home, ignore_errors=True)
