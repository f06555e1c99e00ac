"""Telling a process started after a moment from one already running (a CLI relaunched as a
new process in the same terminal), on a clock that agrees with the process start times."""

import os
import subprocess
import sys

import psutil

from wardian_core.parsing.process_start import process_clock, started_after


def own_start() -> float:
    """This process's start on process_clock's clock: a moment every child comes after."""
    started = psutil.Process().create_time()
    return started - psutil.boot_time() if sys.platform == "linux" else started


def test_a_process_running_before_the_moment_did_not_start_after_it() -> None:
    assert started_after(psutil.Process().pid, process_clock()) is False


def test_a_process_started_later_started_after_the_moment() -> None:
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        assert started_after(child.pid, own_start()) is True
    finally:
        child.communicate(b"")


def test_a_process_gone_or_a_zombie_is_not_the_one_running() -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)  # exited, not reaped: a zombie
    assert psutil.Process(child.pid).status() == psutil.STATUS_ZOMBIE
    assert started_after(child.pid, own_start()) is False
    child.wait()
    assert started_after(child.pid, own_start()) is False


def test_a_process_started_right_after_the_moment_is_told_as_such() -> None:
    """Against the wall clock, Linux start times are up to a second early (a whole-second boot
    time): compared so, a process started just after the moment would look older."""
    moment = process_clock() - 0.01  # start times count in clock ticks
    child = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        assert started_after(child.pid, moment) is True
    finally:
        child.communicate(b"")
