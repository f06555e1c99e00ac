"""How `ssh` is called for a remote: the user's own client, with limits a dead link cannot stretch:
BatchMode (a password prompt would hang a script), ConnectTimeout, and ServerAlive probes that
end a session whose peer went silent."""

from pathlib import Path
from typing import NamedTuple

from wardian_host.remote.settings import RemoteSettings

SERVER_ALIVE_SECONDS = 5
SERVER_ALIVE_COUNT = 3


class Remote(NamedTuple):
    name: str
    settings: RemoteSettings


def ssh_options(remote: Remote) -> list[str]:
    """`ssh` and every option this remote is reached with, before the destination."""
    settings = remote.settings
    # LogLevel=ERROR: ssh's warnings (a newly known host) would spoil the JSON envelope on stderr.
    argv = ["ssh", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR"]
    argv += ["-o", f"ConnectTimeout={settings.connect_timeout_seconds}"]
    argv += ["-o", f"ServerAliveInterval={SERVER_ALIVE_SECONDS}", "-o", f"ServerAliveCountMax={SERVER_ALIVE_COUNT}"]
    if settings.ssh_config:
        argv += ["-F", str(Path(settings.ssh_config).expanduser())]
    if settings.port:
        argv += ["-p", str(settings.port)]
    if settings.identity_file:
        argv += ["-i", str(Path(settings.identity_file).expanduser()), "-o", "IdentitiesOnly=yes"]
    for option in settings.options:
        argv += ["-o", option]
    return argv
