"""Each agent's own cgroup, and a caller classified by it (issue 30, item 8), proven on a fake
/proc and cgroup tree: the system's own cgroups are the end-to-end tests' (tests/e2e/test_callers.py)."""

import os
import subprocess
from pathlib import Path
from typing import Any, cast

import pytest

from wardian_host.agents.live_agent import LiveAgent
from wardian_host.daemon.caller_identity import PeerProcess, classify_caller
from wardian_host.terminal import agent_cgroups
from wardian_host.terminal.agent_cgroups import (
    AgentCgroups,
    CgroupSupport,
    cgroup2_mount,
    cgroup2_path,
    entering,
    probe,
)

HYBRID_MOUNTINFO = (
    "35 25 0:30 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
)
UNIFIED_MOUNTINFO = "29 23 0:26 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"
SERVICE = "/user.slice/user-1000.slice/user@1000.service/app.slice/wardian.service"
AGENT_UUID = "0b7e6f3c-1111-4222-8333-444455556666"


def test_the_cgroup2_mount_is_found_on_unified_and_hybrid_systems_and_not_on_v1_only_ones() -> None:
    assert cgroup2_mount(UNIFIED_MOUNTINFO) == Path("/sys/fs/cgroup")
    assert cgroup2_mount(HYBRID_MOUNTINFO) == Path("/sys/fs/cgroup/unified")
    assert cgroup2_mount(HYBRID_MOUNTINFO.splitlines()[0]) is None


def test_a_processs_cgroup2_path_is_its_0_line() -> None:
    assert cgroup2_path(f"4:memory:/x\n0::{SERVICE}\n") == SERVICE
    assert cgroup2_path("4:memory:/x\n") is None


def _fake_proc(tmp_path: Path, own: str = SERVICE, mountinfo: str | None = None) -> tuple[Path, Path]:
    """A /proc whose `self` lives in cgroup `own` of a cgroup2 tree mounted at tmp_path/cgroup."""
    proc, mount = tmp_path / "proc", tmp_path / "cgroup"
    (proc / "self").mkdir(parents=True)
    (proc / "self" / "mountinfo").write_text(mountinfo or f"41 31 0:38 / {mount} rw - cgroup2 cgroup2 rw\n")
    (proc / "self" / "cgroup").write_text(f"0::{own}\n")
    return proc, mount


def _delegated(mount: Path, own: str = SERVICE) -> Path:
    parent = mount / own.lstrip("/")
    parent.mkdir(parents=True)
    (parent / "cgroup.procs").write_text("")
    return parent


def test_a_host_that_may_write_its_own_cgroup_makes_agents_cgroups_below_it(tmp_path: Path) -> None:
    proc, mount = _fake_proc(tmp_path)
    parent = _delegated(mount)
    support = probe(tmp_path / "home", proc)
    assert support.folder is not None and support.folder.parent == parent
    assert support.folder.name.startswith("wardian-") and not support.folder.exists()  # made at the first launch
    assert support.answer() == {"in_use": True, "folder": str(support.folder), "reason": None}


def test_no_cgroup2_or_no_right_to_write_says_why(tmp_path: Path) -> None:
    proc, _ = _fake_proc(tmp_path, mountinfo=HYBRID_MOUNTINFO.splitlines()[0] + "\n")
    assert probe(tmp_path / "home", proc) == CgroupSupport(None, "this system has no cgroup v2 hierarchy")
    proc, _mount = _fake_proc(tmp_path / "not-delegated")
    support = probe(tmp_path / "home", proc)
    assert support.folder is None and support.reason is not None and "may not make cgroups" in support.reason
    assert support.answer()["in_use"] is False


def test_a_launch_gets_its_agents_cgroup_and_the_empty_ones_of_ended_agents_go(tmp_path: Path) -> None:
    folder = tmp_path / "wardian-0123"
    (folder / "ended-agent").mkdir(parents=True)
    (folder / "agent-with-a-survivor").mkdir()
    (folder / "agent-with-a-survivor" / "cgroup.procs").write_text("4242\n")  # a real cgroup lists its processes
    cgroups = AgentCgroups(CgroupSupport(folder))
    assert cgroups.prepare(AGENT_UUID) == folder / AGENT_UUID / "cgroup.procs"
    assert sorted(child.name for child in folder.iterdir()) == sorted([AGENT_UUID, "agent-with-a-survivor"])
    assert AgentCgroups(CgroupSupport(None, "none here")).prepare(AGENT_UUID) is None


def test_a_launch_joins_the_cgroup_before_it_execs_the_agent(tmp_path: Path) -> None:
    procs = tmp_path / "cgroup.procs"
    procs.write_text("")
    ran = subprocess.run(entering(procs, "/bin/echo", ["the", "agent"]), capture_output=True, text=True)
    assert (ran.returncode, ran.stdout, procs.read_text()) == (0, "the agent\n", "0\n")  # 0: the writer itself
    gone = subprocess.run(entering(tmp_path / "gone" / "cgroup.procs", "/bin/echo", ["still"]), capture_output=True)
    assert (gone.returncode, gone.stdout, gone.stderr) == (0, b"still\n", b"")


class Agent:
    """What classification reads of a LiveAgent: its uuid, its row's pid, its launch's identity."""

    def __init__(self, uuid: str, pid: int | None) -> None:
        self.uuid = uuid
        self.row: dict[str, Any] = {"pid": pid}
        self.process_identity = None


def _cgroups_holding(tmp_path: Path, pid: int, path: str) -> AgentCgroups:
    proc = tmp_path / "proc"
    (proc / str(pid)).mkdir(parents=True)
    (proc / str(pid) / "cgroup").write_text(f"1:name=systemd:/\n0::{path}\n")
    return AgentCgroups(CgroupSupport(Path("/sys/fs/cgroup") / SERVICE.lstrip("/") / "wardian-0123"), proc)


@pytest.mark.parametrize("below", ["", "/a-cgroup-it-made"])
def test_the_agent_of_a_pid_is_read_from_its_cgroup(tmp_path: Path, below: str) -> None:
    cgroups = _cgroups_holding(tmp_path, 77, f"{SERVICE}/wardian-0123/{AGENT_UUID}{below}")
    assert cgroups.agent_of(77) == AGENT_UUID
    assert cgroups.agent_of(78) is None  # no such process


def test_a_pid_outside_every_agents_cgroup_belongs_to_no_agent(tmp_path: Path) -> None:
    assert _cgroups_holding(tmp_path, 77, SERVICE).agent_of(77) is None
    assert _cgroups_holding(tmp_path / "other", 77, f"{SERVICE}/wardian-0123").agent_of(77) is None


def test_with_no_agent_cgroups_a_callers_cgroup_file_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Asked for every request's caller: where cgroups are not in use it costs no read."""
    read: list[Path] = []
    monkeypatch.setattr(agent_cgroups, "_read", lambda path: read.append(path))
    assert AgentCgroups(CgroupSupport(None, "this system has no cgroup v2 hierarchy"), tmp_path).agent_of(77) is None
    assert read == []


def test_a_caller_in_an_agents_cgroup_is_verified_as_that_agent_with_no_tie_of_its_tree(tmp_path: Path) -> None:
    """This test's own process: no agent's descendant, session or terminal, nor its variable."""
    me = os.getpid()
    agents = [cast(LiveAgent, Agent("another-agent", None)), cast(LiveAgent, Agent(AGENT_UUID, None))]
    peer = PeerProcess.capture(me, os.getuid())
    try:
        assert classify_caller(peer, agents).verification == "none"
        cgroups = _cgroups_holding(tmp_path, me, f"{SERVICE}/wardian-0123/{AGENT_UUID}")
        caller = classify_caller(peer, agents, cgroups)
        assert (caller.verification, caller.tie, caller.agent) == ("verified", "cgroup", agents[1])
        assert caller.cgroups == cgroups.support
    finally:
        peer.close()


def test_releasing_removes_empty_cgroups_and_keeps_those_still_holding_a_process(tmp_path: Path) -> None:
    folder = tmp_path / "wardian-0123"
    for name in ("ended", "held", AGENT_UUID):
        (folder / name).mkdir(parents=True)
    (folder / "held" / "cgroup.procs").write_text("4242\n")  # rmdir refuses it, as the kernel would
    cgroups = AgentCgroups(CgroupSupport(folder))
    cgroups.release(AGENT_UUID)
    assert sorted(child.name for child in folder.iterdir()) == ["ended", "held"]
    cgroups.release(None)  # a host starting after one that died
    assert [child.name for child in folder.iterdir()] == ["held"]
    (folder / "held" / "cgroup.procs").unlink()
    cgroups.release("held")
    assert not folder.exists()  # the last one takes the home's folder with it
