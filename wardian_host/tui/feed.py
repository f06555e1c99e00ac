"""Status changes as they happen: each live agent of this machine followed on the host's event
stream (`agent watch --follow`), one connection and one thread each, from the end of its output.

Output items are not kept: they only tell that the agent's screen moved (the preview redraws
the selected agent's). A stream that ends (the agent stopped, the host restarted) is started
again by `follow` when the roster is next read and shows the agent at another status.
"""

import contextlib
import socket
import threading
from collections.abc import Callable
from typing import Any

from wardian_core.errors import WardianError

# A cursor from the future starts a follower at the end of what the agent printed: the host
# clamps it to the end (agents/output_cursor), so nothing already printed is sent again.
FROM_THE_END = 2**62

StatusHeard = Callable[[str, dict[str, Any]], None]  # agent name, the `status` event
OutputHeard = Callable[[str], None]  # agent name


class _Follower:
    def __init__(self, name: str, status: str) -> None:
        self.name = name
        self.status = status  # the status the roster showed when it was started
        self.sock: socket.socket | None = None
        self.stopped = False
        self.ended = False
        self.host_lost = False  # ended because the host went away: the next host is followed again

    def restart_for(self, status: str) -> bool:
        return self.ended and (self.host_lost or status != self.status)


class StatusFeed:
    """Call `follow` with the roster's live agents each time it is read; `close` at the end."""

    def __init__(self, on_status: StatusHeard, on_output: OutputHeard) -> None:
        self._on_status = on_status
        self._on_output = on_output
        self._followers: dict[str, _Follower] = {}
        self._lock = threading.Lock()

    def follow(self, agents: dict[str, str]) -> None:
        """`agents`: each local agent's name and the status the roster shows. One with no stream
        gets one, unless its stream already ended at that same status (a paused or off agent
        has none to give) with the host still there; one no longer listed is let go."""
        with self._lock:
            for name in set(self._followers) - set(agents):
                self._stop(self._followers.pop(name))
            for name, status in agents.items():
                current = self._followers.get(name)
                if current is not None and not current.restart_for(status):
                    continue
                follower = _Follower(name, status)
                self._followers[name] = follower
                threading.Thread(target=self._run, args=(follower,), name=f"tui-follow-{name}", daemon=True).start()

    def following(self) -> list[str]:
        with self._lock:
            return sorted(name for name, follower in self._followers.items() if not follower.ended)

    def close(self) -> None:
        with self._lock:
            for follower in self._followers.values():
                self._stop(follower)
            self._followers.clear()

    @staticmethod
    def _stop(follower: _Follower) -> None:
        follower.stopped = True
        if follower.sock is not None:
            with contextlib.suppress(OSError):  # already closed by its thread
                follower.sock.shutdown(socket.SHUT_RDWR)  # wakes the thread's blocking read

    def _run(self, follower: _Follower) -> None:
        from wardian_core.control.client import lost_host
        from wardian_host.answers.connection import connect

        params = {"target": follower.name, "since": FROM_THE_END, "follow": True}
        try:
            with connect() as client:
                follower.sock = getattr(client, "raw_socket", lambda: None)()
                if follower.stopped:
                    return
                for item in _items(client.exchange("agent.watch", params, None)):
                    if follower.stopped:
                        return
                    self._heard(follower.name, item)
        except WardianError as error:
            # Not live (paused, off): followed again once the roster shows another status.
            follower.host_lost = lost_host(error)
        except OSError:
            pass
        finally:
            follower.ended = True

    def _heard(self, name: str, item: dict[str, Any]) -> None:
        event = item.get("event")
        if event is not None and event.get("kind") == "status":
            self._on_status(name, event)
        elif item.get("output"):
            self._on_output(name)


def _items(exchange: Any) -> Any:
    while True:
        try:
            yield next(exchange)
        except StopIteration:
            return
