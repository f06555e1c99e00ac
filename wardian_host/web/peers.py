"""Which local process is at the other end of a web view connection (Linux).

The web view is TCP, so the kernel names no peer process as it does for the control
socket. The connecting socket is found by its four addresses, exactly: one netlink
sock_diag query (microseconds, whatever the number of sockets; it gives the socket's
owner uid and inode), or, where the kernel offers no sock_diag, a read of
/proc/net/tcp{,6}. The process holding that inode is then looked for among that uid's
processes' descriptors, the way `ss -p` does; that look costs a scan, so it is made once
per connection, and only for a connection that passed the gate.
"""

import ipaddress
import os
import socket
import struct
from pathlib import Path
from typing import NamedTuple

NETLINK_SOCK_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
NLM_F_REQUEST = 1
NLMSG_ERROR = 2
NO_COOKIE = 0xFFFFFFFF
HEADER = struct.Struct("=IHHII")  # nlmsghdr
REQUEST = struct.Struct("=BBBBI2s2s16s16sIII")  # inet_diag_req_v2 with its inet_diag_sockid
ANSWER_UID_INODE = struct.Struct("=II")
ANSWER_UID_OFFSET = HEADER.size + 4 + 48 + 12  # family..retrans, the sockid, expires, rqueue, wqueue


class SocketOwner(NamedTuple):
    uid: int
    inode: int


Address = tuple[str, int]


def socket_owner(peer: Address, local: Address) -> SocketOwner | None:
    """The owner of the socket that connected from `peer` to our `local` address; None when
    it is not on this machine (or this network namespace), or when nothing can tell."""
    if not hasattr(socket, "AF_NETLINK"):  # macOS and the BSDs: neither sock_diag nor /proc
        return None
    try:
        return _diag_owner(peer, local)
    except OSError:  # a kernel without sock_diag for TCP
        return _proc_owner(peer, local)


def _packed(address: str) -> tuple[int, bytes]:
    parsed = ipaddress.ip_address(address)
    if parsed.version == 4:
        return socket.AF_INET, parsed.packed.ljust(16, b"\0")
    return socket.AF_INET6, parsed.packed


def _diag_owner(peer: Address, local: Address) -> SocketOwner | None:
    family, source = _packed(peer[0])
    _, destination = _packed(local[0])
    if family == socket.AF_INET6 and ipaddress.ip_address(local[0]).version == 4:
        return None  # a v6 socket answered on a v4 listener cannot be
    body = REQUEST.pack(
        family,
        socket.IPPROTO_TCP,
        0,
        0,
        0xFFFFFFFF,  # any state
        struct.pack("!H", peer[1]),
        struct.pack("!H", local[1]),
        source,
        destination,
        0,
        NO_COOKIE,
        NO_COOKIE,
    )
    with socket.socket(socket.AF_NETLINK, socket.SOCK_DGRAM, NETLINK_SOCK_DIAG) as diag:
        diag.settimeout(1.0)
        diag.send(HEADER.pack(HEADER.size + len(body), SOCK_DIAG_BY_FAMILY, NLM_F_REQUEST, 1, 0) + body)
        answer = diag.recv(8192)
    _, kind, _, _, _ = HEADER.unpack_from(answer)
    if kind == NLMSG_ERROR:
        (error,) = struct.unpack_from("=i", answer, HEADER.size)
        if error in (0, -2):  # ENOENT: no such socket here
            return None
        raise OSError(-error, os.strerror(-error))
    uid, inode = ANSWER_UID_INODE.unpack_from(answer, ANSWER_UID_OFFSET)
    return SocketOwner(uid, inode)


def _proc_address(address: Address) -> str:
    """An address as /proc/net/tcp{,6} writes it: each 32-bit word in the host's byte order."""
    packed = ipaddress.ip_address(address[0]).packed
    words = struct.unpack(f"={len(packed) // 4}I", packed)
    return "".join(f"{word:08X}" for word in words) + f":{address[1]:04X}"


def _proc_owner(peer: Address, local: Address) -> SocketOwner | None:
    table = "tcp6" if ipaddress.ip_address(peer[0]).version == 6 else "tcp"
    wanted = (_proc_address(peer), _proc_address(local))
    try:
        lines = Path(f"/proc/net/{table}").read_text().splitlines()[1:]
    except OSError:
        return None
    for line in lines:
        fields = line.split()
        if (fields[1], fields[2]) == wanted:
            return SocketOwner(int(fields[7]), int(fields[9]))
    return None


def holder_of(owner: SocketOwner) -> int | None:
    """A process of the socket's owner that holds it; None when none does any more."""
    link = f"socket:[{owner.inode}]"
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid != owner.uid:
                continue
            for descriptor in os.scandir(f"/proc/{entry.name}/fd"):
                if os.readlink(descriptor.path) == link:
                    return int(entry.name)
        except OSError:  # gone meanwhile, or not ours to read
            continue
    return None
