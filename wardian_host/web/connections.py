"""What web view connections may hold: how many in all and per peer, and for how long one may
stay without passing the gate.

Each connection is met before aiohttp sees it (a thin protocol in front of aiohttp's own),
so a flood is turned away at accept: 1,100 idle connections of another local user once
held every descriptor of the host, and `host status` timed out. A peer is the local user
owning the connecting socket (`peers.socket_owner`), or the remote address for a peer
beyond this machine: another user's connections never push out the owner's. At a cap the
oldest connection of that peer (or of anyone, at the overall cap) that has not passed the
gate makes room; only when none is left is the newcomer closed.
"""

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from wardian_host.web.peers import Address, SocketOwner, socket_owner

log = logging.getLogger(__name__)

# Browsers open six connections per origin and one WebSocket per tab; one peer's 64 serve a
# few tabs, and 128 in all stay far below the usual soft limit of 1024 descriptors, whose
# rest the control socket (256 connections, two descriptors each) and agents' terminals use.
MAX_CONNECTIONS = 128
MAX_PER_PEER = 64
# A connection that has not passed the gate (cookie, or a login) this long after it was
# made is closed: a browser sends its first request at once.
UNAUTHENTICATED_SECONDS = 10.0
REFUSAL_LOG_SECONDS = 60.0


@dataclass(eq=False)
class WebConnection:
    transport: asyncio.Transport
    peer: Address
    owner: SocketOwner | None  # None: not a socket of this machine
    made: float = field(default_factory=time.monotonic)
    authenticated: bool = False
    deadline: asyncio.TimerHandle | None = None
    verdict: str | None = None  # who the caller check found holding its other end, kept for its life

    @property
    def key(self) -> str:
        return f"uid {self.owner.uid}" if self.owner is not None else f"address {self.peer[0]}"


class WebConnections:
    def __init__(self, owner_of: Callable[[Address, Address], SocketOwner | None] = socket_owner) -> None:
        self._owner_of = owner_of
        self._open: dict[asyncio.BaseTransport, WebConnection] = {}
        self._refused = 0
        self._refusal_logged: float | None = None

    def admit(self, transport: asyncio.Transport) -> WebConnection | None:
        peer, local = transport.get_extra_info("peername"), transport.get_extra_info("sockname")
        if peer is None or local is None:
            return None
        connection = WebConnection(transport, peer[:2], self._owner_of(peer[:2], local[:2]))
        same_peer = [other for other in self._open.values() if other.key == connection.key]
        if len(same_peer) >= MAX_PER_PEER and not self._close_oldest_unauthenticated(same_peer):
            self._refuse(connection, f"{connection.key} holds {MAX_PER_PEER}")
            return None
        if len(self._open) >= MAX_CONNECTIONS and not self._close_oldest_unauthenticated(list(self._open.values())):
            self._refuse(connection, f"{MAX_CONNECTIONS} are open")
            return None
        connection.deadline = asyncio.get_running_loop().call_later(UNAUTHENTICATED_SECONDS, self._expire, connection)
        self._open[transport] = connection
        return connection

    def of(self, transport: asyncio.BaseTransport | None) -> WebConnection | None:
        return self._open.get(transport) if transport is not None else None

    def passed(self, connection: WebConnection) -> None:
        """The connection passed the gate: it is no longer closed for lingering, nor for room."""
        connection.authenticated = True
        if connection.deadline is not None:
            connection.deadline.cancel()
            connection.deadline = None

    def left(self, transport: asyncio.BaseTransport) -> None:
        connection = self._open.pop(transport, None)
        if connection is not None and connection.deadline is not None:
            connection.deadline.cancel()

    def close_authenticated(self) -> int:
        """Close every connection that passed the gate (its sessions were revoked)."""
        closing = [connection for connection in self._open.values() if connection.authenticated]
        for connection in closing:
            connection.transport.close()
        return len(closing)

    def count(self) -> int:
        return len(self._open)

    def _expire(self, connection: WebConnection) -> None:
        connection.deadline = None
        if not connection.authenticated:
            connection.transport.abort()

    def _close_oldest_unauthenticated(self, candidates: list[WebConnection]) -> bool:
        waiting = [connection for connection in candidates if not connection.authenticated]
        if not waiting:
            return False
        oldest = min(waiting, key=lambda connection: connection.made)
        self._open.pop(oldest.transport, None)
        if oldest.deadline is not None:
            oldest.deadline.cancel()
        oldest.transport.abort()
        return True

    def _refuse(self, connection: WebConnection, why: str) -> None:
        # One line a minute however long a flood lasts: each refused connection is counted.
        self._refused += 1
        now = time.monotonic()
        if self._refusal_logged is None or now - self._refusal_logged >= REFUSAL_LOG_SECONDS:
            log.warning("web view refusing connections (%s); %d refused so far", why, self._refused)
            self._refusal_logged = now
        connection.transport.abort()


class GuardedProtocol(asyncio.Protocol):
    """aiohttp's protocol for one connection, met by `WebConnections` first."""

    def __init__(self, inner: asyncio.Protocol, connections: WebConnections) -> None:
        self._inner = inner
        self._connections = connections
        self._admitted: asyncio.Transport | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        if self._connections.admit(transport) is not None:
            self._admitted = transport
            self._inner.connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        if self._admitted is not None:
            self._connections.left(self._admitted)
            self._inner.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        self._inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self._inner.eof_received()

    def pause_writing(self) -> None:
        self._inner.pause_writing()

    def resume_writing(self) -> None:
        self._inner.resume_writing()


class AcceptErrorsOncePerMinute(logging.Filter):
    """asyncio's accept() errors (EMFILE: out of descriptors), let through once a minute.

    asyncio logs each with its traceback and retries a second later, so a host out of
    descriptors once wrote a traceback a second and rotated host.log and its backups away.
    """

    def __init__(self) -> None:
        super().__init__()
        self._logged: float | None = None
        self._left_out = 0

    def filter(self, record: logging.LogRecord) -> bool:
        if not str(record.msg).startswith("socket.accept() out of system resource"):
            return True
        now = time.monotonic()
        if self._logged is not None and now - self._logged < REFUSAL_LOG_SECONDS:
            self._left_out += 1
            return False
        if self._left_out:
            record.msg = f"{record.msg} (and {self._left_out} more like it in the last minute)"
            self._left_out = 0
        self._logged = now
        return True
