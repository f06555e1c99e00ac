"""A stand-in for a home's host that answers every control request at once.

What a CLI command costs in itself (its start-up, its imports) is measured against it: a
real host would add its own work to the figure. It proves the CLI's plumbing only.
"""

import json
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from wardian_core.control import endpoint
from wardian_core.control.protocol import encode, ok_frame


def _answer(server: socket.socket, result: dict[str, Any]) -> None:
    while True:
        try:
            conn, _ = server.accept()
        except OSError:  # the server was closed: the stand-in's life is over
            return
        with conn, conn.makefile("rb") as reader:
            line = reader.readline()
            if line:
                conn.sendall(encode(ok_frame(json.loads(line)["id"], result)))


@contextmanager
def answering_host(home: Path, result: dict[str, Any]) -> Iterator[None]:
    """Serve `home`'s control socket, answering each request with `result`, until the block ends."""
    path = endpoint.socket_path(home)
    endpoint.ensure_private_dir(path.parent)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen()
    thread = threading.Thread(target=_answer, args=(server, result), daemon=True)
    thread.start()
    try:
        yield
    finally:
        server.shutdown(socket.SHUT_RDWR)
        server.close()
        thread.join()
        path.unlink(missing_ok=True)
