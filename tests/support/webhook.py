"""A local webhook for Apprise's `json://` addresses: every notice it receives, in order."""

import http.server
import json
import threading
from typing import Any


class Webhook:
    def __init__(self) -> None:
        self.received: list[dict[str, Any]] = []
        self._arrived = threading.Condition()
        hook = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # the name http.server calls
                body = self.rfile.read(int(self.headers["Content-Length"]))
                with hook._arrived:
                    hook.received.append(json.loads(body))
                    hook._arrived.notify_all()
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.address = f"json://127.0.0.1:{self.port}/hook"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def wait_for(self, count: int, timeout: float = 30) -> list[dict[str, Any]]:
        """The first `count` notices (or more), once they arrived; fails after `timeout` seconds."""
        with self._arrived:
            assert self._arrived.wait_for(lambda: len(self.received) >= count, timeout), self.received
            return list(self.received)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
