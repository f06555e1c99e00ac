"""Who waits for the next host: a command that met none while the agents go on in the terminal
server (a restart or a crash), never one after `host stop` or one whose request a host took."""

import os
from pathlib import Path

from wardian_core.control.client import CLOSED_REASON, app_not_running
from wardian_core.process_locks import take_exclusive
from wardian_host.cli.host_return import between_hosts
from wardian_host.terminal.server.process import lock_path


def test_no_host_while_the_terminal_server_runs_is_between_hosts(wardian_home: Path) -> None:
    refused = app_not_running(wardian_home, "no socket")
    assert not between_hosts(refused)  # stopped: no server either, nobody to wait for

    held = take_exclusive(lock_path(wardian_home))  # this process stands for the server
    assert isinstance(held, int)
    try:
        assert between_hosts(refused)
        # A host that took the request and went away may have done it: not to be given again.
        assert not between_hosts(app_not_running(wardian_home, CLOSED_REASON))
    finally:
        os.close(held)
