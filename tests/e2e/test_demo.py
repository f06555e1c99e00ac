"""The README's main job (`scripts/demo.py`, run by `dev.py demo`): a real shell agent whose
command's end is told by the shell's own mark, and a second run that finds the same agent."""

import json
import os
from pathlib import Path

import pytest
from script_modules import load_script

FINISHED = "'rule': 'shell mark D (command finished)', 'message': 'exit code 0'"


def test_the_main_job_runs_a_shell_agent_and_a_second_run_finds_it(
    wardian_home: Path, run_wardian, capfd: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    demo = load_script("demo")
    monkeypatch.setattr(demo, "HOME", wardian_home)  # not the repository's .cache/demo-home
    monkeypatch.setattr(demo, "ENV", dict(os.environ))

    assert demo.main() == 0
    first = capfd.readouterr().out
    assert demo.main() == 0
    again = capfd.readouterr().out

    assert "$ wardian agent spawn --provider generic" in first and "agent spawn" not in again
    for printed in (first, again):
        assert (
            f"demo-shell ran it and is idle again because: {{'source': 'pty', 'event': 'turn_completed', {FINISHED}}}"
            in printed
        )
        # It ends with how to open the web view on the demo agent, in the demo's own home.
        assert printed.rstrip().splitlines()[-2:] == [
            f"Web view: WARDIAN_HOME={wardian_home} {demo.WARDIAN} web --open",
            "  opens your browser on the live page; click the demo-shell tile to type into its terminal",
        ]
    agents = json.loads(run_wardian("agent", "list").stdout)["agents"]
    assert [(agent["name"], agent["status"]) for agent in agents] == [("demo-shell", "idle")]
    output = json.loads(run_wardian("agent", "watch", "demo-shell").stdout)["watch"]["output"]
    assert output.count("hello from a Wardian agent") >= 4, "each run's command, typed and printed"
