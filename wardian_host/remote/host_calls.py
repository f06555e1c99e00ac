"""A command run on another machine from inside the host (a workflow node's ask): the same ssh
command line and failure rules as `wardian --remote`, as a subprocess the host's loop awaits
and can end."""

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable
from pathlib import Path

from wardian_host.remote.master import check_master
from wardian_host.remote.options import Remote
from wardian_host.remote.settings import remote_named
from wardian_host.remote.ssh import Ran, checked, no_ssh, ssh_argv


def remote_of(home: Path, name: str) -> Remote:
    """The remote `name` as `home`'s settings.toml configures it (`not_found` otherwise)."""
    return Remote(name, remote_named(home, name))


async def run_on(remote: Remote, args: list[str], stdin: bytes, on_started: Callable[[int], None]) -> Ran:
    """`args` run by `remote`'s `wardian`, fed `stdin`; ssh's own failures are raised as
    `remote_unreachable`. Cancelled, ssh's process group ends, and with the link the remote
    command (`remote-run` leaves when its session closes)."""
    await asyncio.to_thread(check_master, remote)  # bounded, yet a blocking subprocess
    try:
        process = await asyncio.create_subprocess_exec(
            *ssh_argv(remote, args),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            start_new_session=True,  # its own group: a host that died is followed by one that ends it
        )
    except FileNotFoundError:
        raise no_ssh() from None
    on_started(process.pid)
    try:
        stdout, stderr = await process.communicate(stdin)
    except asyncio.CancelledError:
        _end_group(process.pid)
        raise
    returncode = await process.wait()  # ended already: its streams closed
    return checked(remote, Ran(returncode, stdout.decode(errors="replace"), stderr.decode(errors="replace")))


def _end_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError):  # it ended by itself meanwhile
        os.killpg(pid, signal.SIGKILL)
