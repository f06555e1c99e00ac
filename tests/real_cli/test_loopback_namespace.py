"""The real-CLI tests run where nothing but loopback exists, so no CLI can reach its vendor."""

from __future__ import annotations

import errno
import socket
import time
import urllib.request

import pytest

pytestmark = pytest.mark.real_cli

# TEST-NET-1 (RFC 5737): never routed. Without a route the kernel refuses before any packet.
UNROUTABLE_ADDRESS = ("192.0.2.1", 53)


def test_only_the_loopback_interface_is_visible():
    assert [name for _, name in socket.if_nameindex()] == ["lo"]


def test_connecting_to_a_non_loopback_address_fails_at_once():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as connection:
        connection.settimeout(5)
        started = time.monotonic()
        with pytest.raises(OSError) as failure:
            connection.connect(UNROUTABLE_ADDRESS)

    assert failure.value.errno == errno.ENETUNREACH
    assert time.monotonic() - started < 1


def test_model_server_answers_on_loopback(model_server):
    with urllib.request.urlopen(urllib.request.Request(model_server.base_url, method="HEAD"), timeout=5) as reply:
        assert reply.status == 200
    assert [request.method for request in model_server.requests] == ["HEAD"]
