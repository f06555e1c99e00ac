"""A send refused for bad input types nothing into the agent: checked against its real terminal."""

from pathlib import Path


def test_a_refused_send_types_nothing_into_the_agent(spawn, wait_status, run_wardian, tmp_path: Path) -> None:
    spawn("shell", "bash", "--norc")
    wait_status("shell", "idle")
    too_long = run_wardian(
        "send", "echo too-long-$((6*7))", "--to", "shell", "--wait-until", "idle", "--timeout", "99999999999"
    )
    assert too_long.returncode == 1 and too_long.error()["code"] == "usage"
    latin1 = tmp_path / "latin1.txt"
    latin1.write_bytes(b"echo not-utf8-$((6*7)) \xe9\n")
    not_text = run_wardian("send", "--file", str(latin1), "--to", "shell")
    assert not_text.returncode == 1 and not_text.error()["code"] == "usage"
    marker = run_wardian("send", "echo marker-$((1+1))", "--to", "shell", "--wait-until", "idle", "--timeout", "20s")
    assert marker.returncode == 0, marker.stderr
    output = run_wardian("agent", "watch", "shell").json()["watch"]["output"]
    assert "marker-2" in output
    assert "too-long" not in output and "not-utf8" not in output
