"""A send to a real Gemini CLI agent is confirmed by its BeforeAgent hook, through `wardian`;
its model uses Wardian's MCP tools (tests/support/mcp_checks.py)."""

import os

import pytest
from delivery_checks import assert_a_send_is_confirmed_once
from mcp_checks import assert_the_agent_uses_wardians_tools
from pty_reading import read_until
from ptyprocess import PtyProcess
from wardian_cli import WARDIAN, WardianCli

from wardian_gemini.profile import INPUT_PROFILE
from wardian_host.agents.confirming import waits_in_box
from wardian_host.agents.typing_input import PASTE_END, PASTE_START

pytestmark = pytest.mark.real_cli


def test_a_send_is_confirmed_by_the_before_agent_hook(wardian: WardianCli) -> None:
    assert_a_send_is_confirmed_once(wardian, "gem", {"hook BeforeAgent"})


def test_the_agent_lists_agents_and_answers_an_ask_through_wardians_tools(wardian: WardianCli) -> None:
    assert_the_agent_uses_wardians_tools(wardian, "gm-mcp")


def test_a_paste_read_with_its_enter_waits_in_the_box_as_the_profiles_placeholder(wardian: WardianCli) -> None:
    """Under load Gemini can read a paste and the submit key after it in one read; it then takes
    the key as part of the paste. The send's check reads the box for the profile's placeholder
    (a second submit follows): proven here on Gemini's own drawing, the key sent with the paste."""
    wardian.spawn("gm")
    wardian.wait("gm", "idle", "ready")
    text = "count the words " * 40  # over 500 characters: Gemini draws it as a placeholder
    attached = PtyProcess.spawn([WARDIAN, "agent", "attach", "gm"], env=dict(os.environ), dimensions=(40, 120))
    try:
        read_until(attached, b"no sandbox")  # the screen replayed: the attach is taking keys
        attached.write(PASTE_START + text.encode() + PASTE_END + b"\r")
        wardian.output_shows("gm", "[Pasted Text:", timeout=30)
        attached.write(b"\x1cd")  # Ctrl-\ then d
        read_until(attached, b"detached")
    finally:
        attached.close(force=True)

    rows = wardian("agent", "screen", "gm")["screen"]["rows"]
    assert waits_in_box(rows, ">", text, INPUT_PROFILE.paste_placeholder), rows
    assert not waits_in_box(rows, ">", text), "the paste's own words are not what the box shows"
    assert wardian.show("gm")["status"] == "idle", "the Enter read with the paste started a turn"
