"""Headless contract cases for every CLI: one turn and its session resumed, a shell tool call, an API error."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.real_cli


def test_a_headless_turn_replies_with_the_echoed_token_and_its_resume_sends_it_to_the_model(cli, contract, recorder):
    """One turn, then its session resumed (the turn's run is the resume's first: a start saved)."""
    first = cli.run(*contract.turn_args("hello ECHO:tok1"))
    recorder.save(f"{cli.name}-headless.jsonl", first.stdout)

    assert first.returncode == 0, first.stderr
    assert contract.reply_text(contract.events(first.stdout)) == "MOCK-REPLY tok1"
    session = contract.session_id(contract.events(first.stdout))
    requests_before = len(cli.server.requests)

    second = cli.run(*contract.resume_args(session, "second ECHO:tok2"))
    recorder.save(f"{cli.name}-headless-resume.jsonl", second.stdout)

    assert second.returncode == 0, second.stderr
    events = contract.events(second.stdout)
    assert contract.session_id(events) == session
    assert contract.reply_text(events) == "MOCK-REPLY tok2"
    resumed = [
        r for r in cli.server.requests[requests_before:] if r.reply_kind == "text" and "ECHO:tok2" in r.body_text()
    ]
    assert resumed, "the resumed turn never reached the model server"
    assert "ECHO:tok1" in resumed[-1].body_text() and "MOCK-REPLY tok1" in resumed[-1].body_text()
    cli.assert_only_model_server_was_called()


def test_shell_tool_call_runs_in_the_workspace(cli, contract, recorder):
    completed = cli.run(*contract.tool_args(f"run MOCK_TOOL:touch {cli.name}_tool.txt ECHO:tok3"))
    recorder.save(f"{cli.name}-headless-tool.jsonl", completed.stdout)

    assert completed.returncode == 0, completed.stderr
    assert (cli.workspace / f"{cli.name}_tool.txt").exists(), completed.stdout[-2000:]
    assert contract.reply_text(contract.events(completed.stdout)).endswith("MOCK-REPLY tool-done tok3")
    assert [r.reply_kind for r in cli.server.model_requests()].count("tool_call") == 1
    cli.assert_only_model_server_was_called()


def test_api_error_is_reported_by_the_cli(cli, contract, recorder):
    completed = cli.run(*contract.turn_args("fail please MOCK_HTTP_ERROR:400"))
    recorder.save(f"{cli.name}-headless-api-error400.jsonl", completed.stdout)

    assert "mock error 400 requested" in contract.error_text(contract.events(completed.stdout))
    assert any(r.reply_status == 400 for r in cli.server.requests)
    cli.assert_only_model_server_was_called()
