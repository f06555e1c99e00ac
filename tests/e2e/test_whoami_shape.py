"""`host whoami` shows the calling agent as `agent show` does, not as a raw database row."""

import json
import sys
from pathlib import Path

WARDIAN = str(Path(sys.executable).parent / "wardian")


def test_whoami_gives_the_agent_in_the_shape_of_agent_show(spawn, wait_status, run_wardian, workspace) -> None:
    spawn("asker", "bash", "-c", f"{WARDIAN} host whoami > whoami.json; echo asked; exec sleep 600")
    wait_status("asker", "idle")
    caller = json.loads((workspace / "whoami.json").read_text())["caller"]
    shown = run_wardian("agent", "show", "asker").json()["agent"]
    assert list(caller["agent"]) == list(shown)
    assert {key: caller["agent"][key] for key in shown if key != "status"} == {
        key: value for key, value in shown.items() if key != "status"
    }
    assert "is_off" not in caller["agent"] and "launch_config" not in caller["agent"]
