"""Which of this machine's processes still live with a variable set: what a test asserts is gone."""

import os

import psutil


def living_with(variable: str, value: str) -> list[int]:
    """Living processes but this one (a zombie is dead) whose environment sets `variable` to `value`."""
    found = []
    for process in psutil.process_iter():
        try:
            if (
                process.pid != os.getpid()
                and process.environ().get(variable) == value
                and process.status() != psutil.STATUS_ZOMBIE
            ):
                found.append(process.pid)
        except psutil.Error:
            continue
    return found


def carrying(agent_uuid: str) -> list[int]:
    """Living processes whose environment names the agent."""
    return living_with("WARDIAN_SESSION_ID", agent_uuid)
