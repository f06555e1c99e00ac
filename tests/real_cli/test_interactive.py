"""Interactive contract cases for every CLI, through a 120x40 pseudo-terminal.

The prompt is typed, then Enter is sent once the typed text shows on screen: sending both in
one write makes some TUIs take the Enter as part of a paste. Every wait reads the terminal
until a marker appears or a deadline passes; the one pause is Codex's approval dialog, which
ignores keys for a moment after it is drawn (see `approval_settle_seconds`).
"""

from __future__ import annotations

import time

import pytest

pytestmark = pytest.mark.real_cli

# Gemini's node TUI needs a few seconds to start on a 2-core machine; these are ceilings.
READY_TIMEOUT = 90
REPLY_TIMEOUT = 60


def type_prompt(session, prompt: str, settle_seconds: float) -> int:
    """Type `prompt`, wait until it is drawn (and the CLI's settle time), press Enter; return
    where the answer starts."""
    start = len(session.raw)
    session.send(prompt)
    session.expect(prompt.split()[-1], timeout=REPLY_TIMEOUT, start=start)
    time.sleep(settle_seconds)  # no screen change tells when the CLI takes an Enter as a submit
    session.send("\r")
    return start


def test_the_tui_reaches_its_ready_prompt_and_a_typed_prompt_is_answered_on_screen(cli, contract, recorder):
    session = cli.spawn(*contract.interactive_args)
    session.expect(contract.ready_marker, timeout=READY_TIMEOUT)
    recorder.save(f"{cli.name}-tui-ready.raw", session.raw)

    start = type_prompt(session, "hello ECHO:tui1", contract.submit_settle_seconds)
    session.expect("MOCK-REPLY tui1", timeout=REPLY_TIMEOUT, start=start)

    recorder.save(f"{cli.name}-tui.raw", session.raw)
    recorder.save(f"{cli.name}-tui.txt", session.text())
    cli.assert_only_model_server_was_called()


def test_approval_dialog_is_shown_and_answered(cli, contract, recorder):
    contract.require_approval(cli)
    session = cli.spawn(*contract.interactive_args)
    session.expect(contract.ready_marker, timeout=READY_TIMEOUT)
    marker_file = cli.workspace / f"{cli.name}_approved.txt"

    start = type_prompt(
        session, f"run {contract.approval_directive}:touch {marker_file.name} ECHO:tui2", contract.submit_settle_seconds
    )
    session.expect(contract.approval_marker, timeout=REPLY_TIMEOUT, start=start)
    assert not marker_file.exists(), "the command ran before it was approved"
    time.sleep(contract.approval_settle_seconds)
    session.send(contract.approve_keys)
    session.expect("MOCK-REPLY tool-done tui2", timeout=REPLY_TIMEOUT, start=start)

    recorder.save(f"{cli.name}-tui-approval.raw", session.raw)
    recorder.save(f"{cli.name}-tui-approval.txt", session.text())
    assert marker_file.exists()
    cli.assert_only_model_server_was_called()
