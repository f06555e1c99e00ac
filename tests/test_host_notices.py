"""What a read served from state.db says of the host, and what it advises: never a step that ends
the agents when the host alone needs mending."""

from pathlib import Path

from wardian_host.answers.agents import persisted_notice
from wardian_host.daemon.host_lock import HostLock

PERSISTED = {"name": "a1", "status": "idle", "status_source": "persisted", "host_gone": True}


def test_a_host_not_answering_is_mended_by_a_restart_that_keeps_the_agents(wardian_home: Path) -> None:
    lock = HostLock(wardian_home)  # a host runs (holds the lock) but did not answer
    lock.acquire()
    try:
        notice = persisted_notice(wardian_home, [PERSISTED])
    finally:
        lock.release()

    assert notice is not None and notice["reason"] == "host_not_answering"
    assert "`wardian host restart`" in notice["hint"]
    assert "host stop" not in notice["hint"], "`host stop` ends every agent"


def test_a_gone_host_is_followed_by_one_that_adopts_the_agents_live(wardian_home: Path) -> None:
    notice = persisted_notice(wardian_home, [PERSISTED])

    assert notice is not None and notice["reason"] == "host_gone"
    assert "adopts" in notice["hint"] and "live" in notice["hint"]
