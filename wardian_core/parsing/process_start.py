"""Whether a process started after a moment the parser noted: a CLI that relaunches itself in
the same terminal (Gemini CLI 0.61.0 after a trust answer) runs as a new process, and the hooks
tell which process fired them (`hook_recorder.CLI_PID_FIELD`)."""

import sys
import time


def process_clock() -> float:
    """Now, on the clock `started_after` compares with."""
    if sys.platform == "linux":
        # psutil's start time there is ticks since boot plus /proc/stat's boot time, a whole
        # second: against the wall clock it can be up to 1 s early. Since boot, both agree.
        return time.clock_gettime(time.CLOCK_BOOTTIME)
    return time.time()


def started_after(pid: int, moment: float) -> bool | None:
    """Whether the live process `pid` started after `moment` (a `process_clock` reading): False
    when it is gone or a zombie, None when the system will not tell (no access)."""
    import psutil  # only the host's parsers use it: not paid by every `wardian` command

    try:
        process = psutil.Process(pid)
        if process.status() == psutil.STATUS_ZOMBIE:
            return False
        started = process.create_time()
        if sys.platform == "linux":
            started -= psutil.boot_time()
    except psutil.NoSuchProcess:
        return False
    except psutil.Error:
        return None
    return started > moment
