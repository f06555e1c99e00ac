"""WARDIAN_TRACE_PLUGINS=1 in a host: its hook and parser calls are in the host's log."""

import re
from collections.abc import Callable
from pathlib import Path

TRACED = re.compile(r"plugin call: provider=(\S+) call=(\S+) ms=\d+\.\d{3} (?:ok|raised \w+)")


def test_the_host_traces_to_its_log(
    run_wardian, generic_spawn_args: Callable[..., list[str]], wait_status, wardian_home: Path
) -> None:
    traced = {"WARDIAN_TRACE_PLUGINS": "1", "WARDIAN_PLUGINS": "generic"}
    spawned = run_wardian(*generic_spawn_args("traced", "--", "bash", "--norc"), env=traced)
    assert spawned.returncode == 0, spawned.stderr
    wait_status("traced", "idle")  # the parser has read the shell's prompt
    assert run_wardian("host", "stop").returncode == 0
    calls = set(TRACED.findall((wardian_home / "logs" / "host.log").read_text()))
    assert {("generic", "prepare_home"), ("generic", "build_argv"), ("generic", "parser.feed")} <= calls
