"""The ask/reply contract and its pieces: ids, the instruction, the stored requests, token matching."""

from pathlib import Path

import pytest

from wardian_core.asks import (
    REQUEST_ID_PATTERN,
    is_request_id,
    new_request_id,
    prompt_with_instruction,
    reply_instruction,
)
from wardian_core.db import open_writer
from wardian_core.db import requests as request_rows
from wardian_core.db.agents import insert_agent
from wardian_core.models import AskRecord
from wardian_host.output.token_match import TokenMatcher

ROOT = Path(__file__).resolve().parents[1]


def test_request_ids_are_ask_and_sixteen_hex_digits_and_do_not_repeat() -> None:
    ids = {new_request_id() for _ in range(200)}

    assert len(ids) == 200
    assert all(is_request_id(request_id) for request_id in ids)
    assert not is_request_id("ask_0123456789ABCDEF") and not is_request_id("ask_0123")


def test_the_instruction_names_the_reply_command_with_the_id_after_the_question() -> None:
    typed = prompt_with_instruction("What is 6*7?\n", "ask_0123456789abcdef")

    question, blank, instruction = typed.split("\n")
    assert (question, blank) == ("What is 6*7?", "")
    assert "`wardian reply ask_0123456789abcdef --status done --stdin`" in instruction
    assert REQUEST_ID_PATTERN.findall(typed) == ["ask_0123456789abcdef"] * 2


def test_an_agent_with_the_mcp_server_is_told_its_reply_tool_and_the_command() -> None:
    typed = prompt_with_instruction("What is 6*7?", "ask_0123456789abcdef", "wardian")

    instruction = typed.split("\n")[2]
    assert "the `reply` tool of your `wardian` MCP server with request_id ask_0123456789abcdef" in instruction
    assert "`wardian reply ask_0123456789abcdef --status done --stdin`" in instruction
    assert REQUEST_ID_PATTERN.findall(typed) == ["ask_0123456789abcdef"] * 3


def test_docs_quote_the_instruction_as_the_code_types_it() -> None:
    cli_docs = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")

    assert reply_instruction("<request-id>") in cli_docs
    assert reply_instruction("<request-id>", "wardian") in cli_docs


@pytest.fixture
def conn(tmp_path: Path):
    connection = open_writer(tmp_path / "home")
    insert_agent(connection, agent_uuid="u1", name="coder", class_name="Coder", provider="generic", workspace=None)
    yield connection
    connection.close()


def _ask(conn, request_id: str = "ask_0123456789abcdef", **fields) -> dict:
    values = {
        "agent_uuid": "u1",
        "agent_name": "coder",
        "message": "q?",
        "until": None,
        "asker": None,
        "asker_verified": None,
    }
    return request_rows.insert_request(conn, request_id=request_id, **(values | fields))


def test_one_reply_lands_and_a_second_finds_it_taken(conn) -> None:
    _ask(conn)
    first = {"status": "done", "body": "42", "source": "agent", "at": "t1", "caller_pid": 7, "caller_agent": "coder"}

    assert request_rows.record_reply(conn, "ask_0123456789abcdef", first) is True
    assert request_rows.record_reply(conn, "ask_0123456789abcdef", first | {"body": "43"}) is False
    stored = AskRecord.model_validate(request_rows.get_request(conn, "ask_0123456789abcdef"))
    assert (stored.status, stored.reply and stored.reply.body) == ("done", "42")


def test_an_undelivered_request_takes_no_reply(conn) -> None:
    _ask(conn)
    request_rows.record_delivery(conn, "ask_0123456789abcdef", {"result": "failed"}, delivered=False)

    taken = request_rows.record_reply(conn, "ask_0123456789abcdef", {"status": "done"})

    assert taken is False
    stored = request_rows.get_request(conn, "ask_0123456789abcdef")
    assert stored is not None and stored["status"] == "undelivered"


def test_requests_list_newest_first_and_go_with_their_agent(conn) -> None:
    _ask(conn, "ask_000000000000000a")
    _ask(conn, "ask_000000000000000b", asker="lead", asker_verified=True)

    listed = request_rows.list_requests(conn, agent_uuid="u1", status="pending")
    assert [r["request_id"] for r in listed] == ["ask_000000000000000b", "ask_000000000000000a"]
    assert (listed[0]["asker"], listed[0]["asker_verified"]) == ("lead", True)
    conn.execute("DELETE FROM agents WHERE uuid = 'u1'")
    assert request_rows.list_requests(conn) == []


def _fed(matcher: TokenMatcher, *chunks: str) -> bool:
    # Every chunk is fed, as the host feeds them, even after one has matched.
    matched = [matcher.feed(chunk) for chunk in chunks]
    return any(matched)


def test_the_echo_of_the_prompt_is_not_the_token() -> None:
    prompt = "please print DONE-7 when finished"

    assert not _fed(TokenMatcher("DONE-7", prompt), "$ please print DONE-7 when finished\r\n")
    # A TUI repaints the prompt wrapped in a box: still the echo.
    assert not _fed(TokenMatcher("DONE-7", prompt), "│ please print DO", "NE-7 when │\r\n│ finished │")
    assert _fed(TokenMatcher("DONE-7", prompt), "please print DONE-7 when finished\r\n", "ok: DONE-7\r\n")


def test_a_token_split_across_chunks_or_spaced_by_cursor_moves_is_found() -> None:
    assert _fed(TokenMatcher("MOCK-REPLY t1"), "MOCK-RE", "PLY", "t1")
    assert not _fed(TokenMatcher("MOCK-REPLY t1"), "MOCK-REPLY", " t2")


def test_a_prompt_that_starts_with_the_token_is_told_apart_by_what_follows() -> None:
    matcher = TokenMatcher("TOK", "TOK is the word")

    assert matcher.feed("TOK") is False  # undecided until the next text
    assert matcher.feed(" is the word\r\n") is False
    assert matcher.feed("TOK\r\n$ ") is True
