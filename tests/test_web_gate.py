"""Who may use the web view: one-time logins, the host's sessions, and the Host/Origin/cookie gate."""

import time
from pathlib import Path

import pytest

from wardian_host.web.auth import COOKIE_NAME, LOGIN_SECONDS, Gate, allowed_hosts
from wardian_host.web.login_pages import write_login_page
from wardian_host.web.sessions import digest, read_sessions, sessions_path, write_sessions

PORT = 8765
HOST = f"127.0.0.1:{PORT}"


IDLE = 600.0


@pytest.fixture
def gate() -> Gate:
    return Gate(allowed_hosts("127.0.0.1", PORT), IDLE)


def _cookie(gate: Gate) -> dict[str, str]:
    value = gate.redeem(gate.new_login())
    assert value is not None
    return {COOKIE_NAME: value}


def test_each_session_is_a_random_token_of_the_host_that_ends_when_unused_or_revoked(
    gate: Gate, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = _cookie(gate), _cookie(gate)
    assert first != second  # not one value any file could derive
    assert gate.refusal("GET", {"Host": HOST}, first) is None
    now = time.monotonic()
    monkeypatch.setattr(time, "monotonic", lambda: now + IDLE / 2)
    assert gate.refusal("GET", {"Host": HOST}, second) is None  # in use: its idle time starts again
    monkeypatch.setattr(time, "monotonic", lambda: now + IDLE + 1)
    assert gate.refusal("GET", {"Host": HOST}, first) == "cookie"  # unused for the idle limit
    assert gate.refusal("GET", {"Host": HOST}, second) is None
    assert gate.revoke_all() == 1
    assert gate.refusal("GET", {"Host": HOST}, second) == "cookie"


def test_a_login_page_is_owner_only_and_goes_with_its_login(gate: Gate, wardian_home: Path) -> None:
    assert LOGIN_SECONDS <= 60
    pages = [gate.new_login_page(lambda login: write_login_page(wardian_home, "http://127.0.0.1:1", login))]
    page = pages[0]
    assert page.stat().st_mode & 0o777 == 0o600
    login = page.read_text().split('name="login" value="')[1].split('"')[0]
    assert gate.redeem(login) is not None and not page.exists()  # used: gone
    unused = gate.new_login_page(lambda login: write_login_page(wardian_home, "http://127.0.0.1:1", login))
    gate.revoke_all()
    assert not unused.exists()


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


def test_a_session_goes_on_with_the_next_host_and_its_file_holds_no_cookie(wardian_home: Path) -> None:
    kept: list[dict[str, float]] = []
    keeping = Gate(allowed_hosts("127.0.0.1", PORT), IDLE, keep=lambda sessions: kept.append(dict(sessions)))
    cookie = _cookie(keeping)
    write_sessions(wardian_home, kept[-1])
    assert cookie[COOKIE_NAME] not in sessions_path(wardian_home).read_text()  # only its digest
    assert sessions_path(wardian_home).stat().st_mode & 0o777 == 0o600
    next_host = Gate(allowed_hosts("127.0.0.1", PORT), IDLE, read_sessions(wardian_home))
    assert next_host.refusal("GET", {"Host": HOST}, cookie) is None
    # One unused for the idle limit is not taken up again; revoking all keeps none.
    stale = {digest(cookie[COOKIE_NAME]): time.time() - IDLE - 1}
    assert Gate(allowed_hosts("127.0.0.1", PORT), IDLE, stale).refusal("GET", {"Host": HOST}, cookie) == "cookie"
    keeping.revoke_all()
    assert kept[-1] == {}
