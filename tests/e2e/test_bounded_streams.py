"""Large outputs and many rows through a real host: answers fit a frame, a stalled follower costs nothing."""

import json
from pathlib import Path
from typing import Any, BinaryIO

from wardian_core.control.client import ControlClient
from wardian_core.control.protocol import MAX_FRAME_BYTES, encode, request_frame

FLOOD_BYTES = 5_000_000


def _spawn_direct(home: Path, workspace: Path, name: str, command: list[str], description: str | None = None) -> None:
    """Spawn through the control endpoint: a description this long exceeds what argv can carry."""
    params: dict[str, Any] = {
        "provider": "generic",
        "class": "Coder",
        "name": name,
        "workspace": str(workspace),
        "launch_config": {"extra_args": command},
    }
    if description is not None:
        params["description"] = description
    with ControlClient.connect(home) as client:
        client.request("agent.spawn", params, timeout=60)


def test_agent_list_answers_when_rows_add_up_past_the_frame_limit(
    wardian_home: Path, workspace: Path, run_wardian
) -> None:
    # Each row is within its own bounds (a description of 4096 characters, a launch configuration
    # under 64 KiB); together they are past what one frame carries, so the host pages them.
    assert run_wardian("host", "start").returncode == 0
    arguments = {f"wide-{index}": f"{index}" + "a" * 60_000 for index in range(145)}  # 8.7 MB together
    for name, argument in arguments.items():
        _spawn_direct(wardian_home, workspace, name, ["true", argument], "d" * 4096)
    listed = run_wardian("agent", "list", "--scope", "all", "--fields", "name,launch_config,status_source")
    assert listed.returncode == 0, listed.stderr[:2000]
    agents = listed.json()["agents"]
    assert {agent["name"]: agent["launch_config"]["extra_args"][1] for agent in agents} == arguments
    assert {agent["status_source"] for agent in agents} == {"live"} and len(listed.stdout) > MAX_FRAME_BYTES


def test_agent_watch_on_a_16_mib_buffer_answers_in_pages(spawn, wait_status, run_wardian) -> None:
    assert run_wardian("settings", "set", "host.output_buffer_bytes", str(16 * 1024 * 1024)).returncode == 0
    # Coloured lines: in JSON each escape byte takes six, so the raw buffer is a ~27 MB answer.
    spawn("colours", "bash", "-c", "yes $'\\e[31mred\\e[0m' | head -c 16000000; exit 0")
    wait_status("colours", "off", "60s")
    first = run_wardian("agent", "watch", "colours", "--raw")
    assert first.returncode == 0, first.stderr[:2000]
    page = first.json()["watch"]
    assert page["more"] is True and page["output"].endswith("\n")
    assert len(first.stdout) < MAX_FRAME_BYTES
    second = run_wardian("agent", "watch", "colours", "--raw", "--since", str(page["cursor"])).json()["watch"]
    assert second["since"] == page["cursor"] and second["output"].startswith("\x1b[31mred")


def _read_items(stream: BinaryIO, until_cursor: int) -> tuple[list[dict[str, Any]], int]:
    """Stream items until output reaches `until_cursor`, and how many bytes that took."""
    items: list[dict[str, Any]] = []
    received = 0
    while not items or items[-1].get("cursor") != until_cursor:
        line = stream.readline()
        assert line, "the host closed the follow"
        received += len(line)
        items.append(json.loads(line)["stream"])
    return items, received


def test_a_follower_that_stopped_reading_gets_lagged_instead_of_every_byte(
    wardian_home: Path, spawn, wait_status, run_wardian
) -> None:
    assert run_wardian("settings", "set", "host.output_buffer_bytes", "65536").returncode == 0
    spawn("flood", "bash", "-c", f"read go; head -c {FLOOD_BYTES} /dev/zero | tr '\\0' 'z'; echo; exit 0")
    wait_status("flood", "idle")
    follower = ControlClient.connect(wardian_home).raw_socket()
    follower.settimeout(60)
    follower.sendall(encode(request_frame(1, "agent.watch", {"target": "flood", "follow": True, "raw": True})))
    stream = follower.makefile("rb")
    first = json.loads(stream.readline())["stream"]  # subscribed; from now on it reads nothing
    assert first["cursor"] == len(first["output"])
    assert run_wardian("send", "go", "--to", "flood").returncode == 0
    wait_status("flood", "off", "60s")
    end = run_wardian("agent", "watch", "flood").json()["watch"]["cursor"]
    assert end > FLOOD_BYTES
    items, received = _read_items(stream, end)
    stream.close()
    follower.close()
    lagged = [item["lagged"] for item in items if "lagged" in item]
    assert lagged and sum(lag["dropped_bytes"] for lag in lagged) > FLOOD_BYTES - 1_000_000
    # Every byte is accounted for: delivered (raw, so one character a byte) or reported dropped.
    delivered = sum(len(item.get("output", "")) for item in items)
    assert delivered + sum(lag["dropped_bytes"] for lag in lagged) == end - first["cursor"]
    assert received < 1_000_000  # what the host kept for it: its buffer, one page, the socket's
