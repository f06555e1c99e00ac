"""Status changes as they happen: each live agent followed on its host's event stream
(`agent watch --follow`), one stream and one thread each, from the end of its output.

The feed does not know where a stream comes from: this machine's agents are read from the
control socket (`HostStreams`), a remote's from `agent watch --follow` run over ssh
(`tui.remote_feed`); each feed is handed what opens one for an agent's key.

Output items are not kept: they only tell that the agent's screen moved (the preview redraws
the selected agent's). A stream that ends (the agent stopped, the host restarted, the link
dropped) is started again by `follow` when the roster is next read and shows the agent at
another status, or at once when the far end went away.
"""

import contextlib
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from wardian_core.errors import WardianError

# A cursor from the future starts a follower at the end of what the agent printed: the host
# clamps it to the end (agents/output_cursor), so nothing already printed is sent again.
FROM_THE_END = 2**62

StatusHeard = Callable[[str, dict[str, Any]], None]  # agent key, the `status` event
OutputHeard = Callable[[str], None]  # agent key


class Stream(Protocol):
    """One agent's `agent watch --follow` items. Built without I/O; `items` connects and reads
    (raising WardianError or OSError when it fails); `close`, from any thread and at any time,
    ends `items` and releases what it holds (a socket, a process, reaped)."""

    def items(self) -> Iterator[dict[str, Any]]: ...

    def close(self) -> None: ...


class Streams(Protocol):
    def open(self, key: str) -> Stream:
        """The stream of the agent `key` names, not started yet: no I/O on the caller's thread."""
        ...

    def close(self) -> None:
        """Once every stream is closed: what they shared (a remote's master connection)."""
        ...


class HostStreams:
    """This machine's agents, each on its own connection to the host."""

    def open(self, key: str) -> Stream:
        return HostStream(key)

    def close(self) -> None:
        pass


class HostStream:
    """A local agent's stream on one control connection of this home's host."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._socket: socket.socket | None = None
        self._closed = False

    def items(self) -> Iterator[dict[str, Any]]:
        from wardian_host.answers.connection import connect

        params = {"target": self._name, "since": FROM_THE_END, "follow": True}
        with connect() as client:
            self._socket = getattr(client, "raw_socket", lambda: None)()
            if self._closed:  # closed while connecting: `close` saw no socket to shut
                return
            yield from _items(client.exchange("agent.watch", params, None))

    def close(self) -> None:
        self._closed = True
        if self._socket is not None:
            with contextlib.suppress(OSError):  # already closed by its thread
                self._socket.shutdown(socket.SHUT_RDWR)  # wakes the thread's blocking read


class _Follower:
    def __init__(self, key: str, status: str, stream: Stream) -> None:
        self.key = key
        self.status = status  # the status the roster showed when it was started
        self.stream = stream
        self.stopped = False
        self.heard = False  # its first item came: the host listens for it (it sends one at once)
        self.ended = False
        self.far_end_lost = False  # its host or link went away: followed again at the next read

    def restart_for(self, status: str) -> bool:
        return self.ended and (self.far_end_lost or status != self.status)


class StatusFeed:
    """Call `follow` with the roster's live agents each time it is read; `close` at the end."""

    def __init__(self, on_status: StatusHeard, on_output: OutputHeard, streams: Streams | None = None) -> None:
        self._on_status = on_status
        self._on_output = on_output
        self._streams: Streams = streams or HostStreams()
        self._followers: dict[str, _Follower] = {}
        self._lock = threading.Lock()

    def follow(self, agents: dict[str, str]) -> None:
        """`agents`: each agent's key and the status the roster shows. One with no stream gets
        one, unless its stream already ended at that same status (a paused or off agent has
        none to give) with its host still there; one no longer listed is let go."""
        with self._lock:
            for key in set(self._followers) - set(agents):
                self._stop(self._followers.pop(key))
            for key, status in agents.items():
                current = self._followers.get(key)
                if current is not None and not current.restart_for(status):
                    continue
                follower = _Follower(key, status, self._streams.open(key))
                self._followers[key] = follower
                threading.Thread(target=self._run, args=(follower,), name=f"tui-follow-{key}", daemon=True).start()

    def following(self) -> list[str]:
        """The agents whose stream is up: a change from now on reaches the dashboard."""
        with self._lock:
            return sorted(key for key, follower in self._followers.items() if follower.heard and not follower.ended)

    def close(self) -> None:
        """Every stream ended and released before it returns (a remote's ssh process reaped)."""
        with self._lock:
            followers = list(self._followers.values())
            self._followers.clear()
        for follower in followers:
            self._stop(follower)
        self._streams.close()

    @staticmethod
    def _stop(follower: _Follower) -> None:
        follower.stopped = True
        follower.stream.close()

    def _run(self, follower: _Follower) -> None:
        try:
            for item in follower.stream.items():
                if follower.stopped:
                    return
                follower.heard = True
                self._heard(follower.key, item)
        except WardianError as error:
            # Not live (paused, off): followed again once the roster shows another status.
            follower.far_end_lost = _far_end_lost(error)
        except OSError:
            pass
        finally:
            follower.stream.close()
            follower.ended = True

    def _heard(self, key: str, item: dict[str, Any]) -> None:
        event = item.get("event")
        if event is not None and event.get("kind") == "status":
            self._on_status(key, event)
        elif item.get("output"):
            self._on_output(key)


def _far_end_lost(error: WardianError) -> bool:
    from wardian_core.control.client import lost_host

    return lost_host(error) or error.code == "remote_unreachable"


def _items(exchange: Any) -> Iterator[dict[str, Any]]:
    while True:
        try:
            yield next(exchange)
        except StopIteration:
            return
