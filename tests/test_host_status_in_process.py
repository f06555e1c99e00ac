"""What `host status` says of the host's parts, on the in-process host (`running_host`)."""

import psutil

from wardian_host.testing.in_process import InProcessHost


def test_host_status_stops_naming_a_terminal_server_that_died(running_host: InProcessHost) -> None:
    described = running_host.host._describe().wire()["terminal_server"]
    assert described is not None
    server = psutil.Process(described["pid"])

    server.kill()
    server.wait(timeout=20)  # a bound for a hang: the kernel lets its lock go as it dies

    assert running_host.host._describe().wire()["terminal_server"] is None


def test_a_stopped_host_is_gone_only_after_its_terminal_server(running_host: InProcessHost) -> None:
    described = running_host.host._describe().wire()["terminal_server"]
    assert described is not None

    running_host.close()  # as `wardian host stop` does, its agents not kept

    assert not psutil.pid_exists(described["pid"]) or psutil.Process(described["pid"]).status() == "zombie"
