"""`wardian agent screen` through the real command, a real host and a real PTY."""


def test_screen_shows_cursor_movement_as_spaces_and_draws_it_with_pretty(spawn, wait_status, run_wardian) -> None:
    spawn("shell", "bash", "--norc")
    wait_status("shell", "idle")
    # printf moves the cursor one cell right between the words, as TUIs do.
    sent = run_wardian("send", r"printf 'Trust\033[1Cthis\033[1Cfolder?\n'", "--to", "shell", "--wait-until", "idle")
    assert sent.returncode == 0, sent.stderr
    answer = run_wardian("agent", "screen", "shell")
    assert answer.returncode == 0, answer.stderr
    screen = answer.json()["screen"]
    assert "Trust this folder?" in screen["rows"]
    assert screen["size"] == {"rows": 40, "cols": 120}
    assert screen["agent"] == "shell" and screen["status"] == "idle"
    assert 0 <= screen["cursor"]["row"] < 40
    raw = run_wardian("agent", "watch", "shell").json()["watch"]["output"]
    assert "Trust this folder?" not in raw  # watch keeps the stream; only the screen lays it out
    pretty = run_wardian("agent", "screen", "shell", "--pretty")
    assert pretty.returncode == 0, pretty.stderr
    framed = [line for line in pretty.stdout.splitlines() if "Trust this folder?" in line]
    assert framed and framed[0].startswith("│Trust this folder?") and framed[0].endswith("│")
    assert len(framed[0]) == 122


def test_screen_of_an_agent_that_is_not_live_is_refused_with_not_live(spawn, run_wardian) -> None:
    spawn("gone", "bash", "-c", "exit 0")
    assert run_wardian("agent", "wait", "gone", "--until", "off", "--timeout", "20s").returncode == 0
    refused = run_wardian("agent", "screen", "gone")
    assert refused.returncode == 1
    assert refused.error()["code"] == "not_live"
    assert refused.error()["details"] == {"agent": "gone", "status": "off"}
    unknown = run_wardian("agent", "screen", "nobody")
    assert unknown.returncode == 2 and unknown.error()["code"] == "not_found"


def test_screen_without_a_host_is_not_live_for_a_known_agent(spawn, wait_status, run_wardian) -> None:
    spawn("sleeper", "bash", "--norc")
    wait_status("sleeper", "idle")
    assert run_wardian("host", "stop").returncode == 0
    refused = run_wardian("agent", "screen", "sleeper")
    assert refused.returncode == 1, refused.stderr
    assert refused.error()["code"] == "not_live"
    assert run_wardian("agent", "screen", "nobody").error()["code"] == "not_found"
