"""Who may use the web view: the home's secret, one-time logins, and the Host/Origin/cookie gate."""

import time
from pathlib import Path

import pytest

from wardian_core import paths
from wardian_host.web.auth import COOKIE_NAME, LOGIN_SECONDS, Gate, allowed_hosts, load_secret

PORT = 8765
HOST = f"127.0.0.1:{PORT}"


@pytest.fixture
def gate(wardian_home: Path) -> Gate:
    return Gate(load_secret(wardian_home), allowed_hosts("127.0.0.1", PORT))


def _cookie(gate: Gate) -> dict[str, str]:
    value = gate.redeem(gate.new_login())
    assert value is not None
    return {COOKIE_NAME: value}


def test_the_secret_is_owner_only_kept_and_a_truncated_one_replaced(wardian_home: Path) -> None:
    secret = load_secret(wardian_home)
    path = paths.run_dir(wardian_home) / "web.secret"
    assert path.stat().st_mode & 0o777 == 0o600
    assert load_secret(wardian_home) == secret and len(secret) == 64
    path.write_text("short")
    assert load_secret(wardian_home) not in (b"short", secret)


def test_a_login_works_once_and_not_after_it_expired(gate: Gate, monkeypatch: pytest.MonkeyPatch) -> None:
    login = gate.new_login()
    cookie = gate.redeem(login)
    assert cookie is not None and login not in cookie
    assert gate.redeem(login) is None
    late = gate.new_login()
    now = time.monotonic()
    monkeypatch.setattr(time, "monotonic", lambda: now + LOGIN_SECONDS + 1)
    assert gate.redeem(late) is None
    assert gate.redeem("made-up") is None


def test_every_request_needs_the_cookie_and_this_views_host(gate: Gate) -> None:
    cookie = _cookie(gate)
    assert gate.refusal("GET", {"Host": HOST}, cookie) is None
    assert gate.refusal("GET", {"Host": f"localhost:{PORT}"}, cookie) is None
    assert gate.refusal("GET", {"Host": HOST}, {}) == "cookie"
    assert gate.refusal("GET", {"Host": HOST}, {COOKIE_NAME: "0" * 64}) == "cookie"
    assert gate.refusal("GET", {"Host": f"rebound.example:{PORT}"}, cookie) == "host"
    assert gate.refusal("GET", {"Host": "127.0.0.1:1"}, cookie) == "host"


def test_what_can_change_something_must_come_from_this_views_page(gate: Gate) -> None:
    cookie = _cookie(gate)
    page = {"Host": HOST, "Origin": f"http://{HOST}"}
    assert gate.refusal("POST", page, cookie) is None
    assert gate.refusal("POST", {"Host": HOST}, cookie) == "origin"
    assert gate.refusal("POST", page | {"Origin": "http://evil.example"}, cookie) == "origin"
    upgrade = {"Host": HOST, "Upgrade": "websocket"}
    assert gate.refusal("GET", upgrade, cookie) == "origin"
    assert gate.refusal("GET", upgrade | {"Origin": f"http://{HOST}"}, cookie) is None
    assert gate.refusal("GET", {"Host": HOST, "Origin": "http://evil.example"}, cookie) == "origin"


def test_listening_beyond_loopback_answers_to_that_address_too() -> None:
    assert allowed_hosts("192.168.1.20", 80) == {
        "127.0.0.1:80",
        "localhost:80",
        "[::1]:80",
        "192.168.1.20:80",
    }
    assert "[fd00::1]:80" in allowed_hosts("fd00::1", 80)
