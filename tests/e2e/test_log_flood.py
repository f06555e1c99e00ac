"""A flood of one-frame connections logs a bounded number of lines (issue 30, item 12)."""

import json
import socket
from pathlib import Path

from wardian_core.control import endpoint
from wardian_host.daemon.log_throttle import LINES_PER_PEER


def test_a_flood_of_one_frame_connections_logs_a_few_lines(run_wardian, wardian_home: Path) -> None:
    """Each connection's bad frame would log a line: 30,000 of them rotated the log history away."""
    started = run_wardian("host", "start")
    assert started.returncode == 0, started.stderr
    log = wardian_home / "logs" / "host.log"
    for _ in range(500):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
            client.connect(str(endpoint.socket_path(wardian_home)))
            client.sendall(b"not json\n")
            assert json.loads(client.makefile("rb").readline())["error"]["code"] == "bad_request"
    assert run_wardian("host", "status").returncode == 0  # served after the flood
    bad_frame_lines = [line for line in log.read_text().splitlines() if "sent a bad frame" in line]
    assert len(bad_frame_lines) == LINES_PER_PEER, bad_frame_lines
