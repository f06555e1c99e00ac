"""The stop race's launch lines (tests/support/stop_race.py): how a round learns that the host
launched an agent must not itself end an agent, or state.db rightly calls it `error`."""

import contextlib
import os
from pathlib import Path

from stop_race import launch_lines


def test_an_agent_writing_its_launch_line_after_the_first_was_seen_lives_on(tmp_path: Path) -> None:
    """CI, round 1: `{'a3': 'error'}`. a3's shell opened the FIFO while the round waited for the
    first line and wrote once the round had closed it: it died of SIGPIPE (it ignores only HUP
    and TERM). Here the agents' shells are two descriptors, the second written between."""
    launched = tmp_path / "launched"
    os.mkfifo(launched)
    with launch_lines(launched) as first_agent_launched, contextlib.ExitStack() as writers:
        first = os.open(launched, os.O_WRONLY)
        writers.callback(os.close, first)
        late = os.open(launched, os.O_WRONLY)  # the next agent, preempted between its open and its write
        writers.callback(os.close, late)
        os.write(first, b"up\n")
        first_agent_launched()

        # A reader gone: BrokenPipeError here (Python ignores SIGPIPE), death for the agent's shell.
        assert os.write(late, b"up\n") == 3
