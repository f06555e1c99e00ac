"""What `host status` says of the host's parts, on the in-process host (`running_host`)."""

import psutil

from wardian_host.testing.in_process import InProcessHost


def test_host_status_stops_naming_a_terminal_server_that_died(running_host: InProcessHost) -> None:
    described = running_host.host._describe()["terminal_server"]
    assert described is not None
    server = psutil.Process(described["pid"])

    server.kill()
    server.wait(timeout=20)  # a bound for a hang: the kernel lets its lock go as it dies

    assert running_host.host._describe()["terminal_server"] is None
