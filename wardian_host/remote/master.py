"""A stale ControlMaster: its socket still accepts, its master no longer answers, and every
ssh multiplexed through it would wait forever (ConnectTimeout and ServerAlive do not reach
the mux client). Asked first, with a deadline, only when the user's config has a socket."""

import subprocess
from pathlib import Path

from wardian_core.errors import WardianError
from wardian_host.remote.options import Remote, ssh_options

MASTER_CHECK_SECONDS = 5.0


def check_master(remote: Remote) -> None:
    """Nothing when no master socket is configured or it answers (or is gone: ssh then connects
    directly); `remote_unreachable` when it hangs."""
    socket = control_path(remote)
    if socket is None or not socket.exists():
        return
    try:
        subprocess.run(
            [*ssh_options(remote), "-O", "check", remote.settings.ssh],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=MASTER_CHECK_SECONDS,
        )
    except subprocess.TimeoutExpired:
        raise WardianError(
            "remote_unreachable",
            f"the ssh ControlMaster for remote {remote.name} ({socket}) does not answer",
            f"Close it with `ssh -O exit {remote.settings.ssh}` (or remove {socket}), then run the command again.",
            {"remote": remote.name, "ssh": remote.settings.ssh, "control_path": str(socket)},
        ) from None


def control_path(remote: Remote) -> Path | None:
    """The ControlPath ssh would use for this remote, as its config resolves it (`ssh -G`: no connection)."""
    resolved = subprocess.run(
        [*ssh_options(remote), "-G", remote.settings.ssh], capture_output=True, text=True, stdin=subprocess.DEVNULL
    )
    for line in resolved.stdout.splitlines():
        key, _, value = line.partition(" ")
        if key == "controlpath" and value and value != "none":
            return Path(value)
    return None
