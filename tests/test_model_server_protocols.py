"""The fake model server over HTTP on 127.0.0.1, for each wire protocol (no CLI needed)."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from typing import Any

import pytest
from model_server import ModelServer


@pytest.fixture
def server() -> Iterator[ModelServer]:
    with ModelServer() as running:
        yield running


def post(server: ModelServer, path: str, body: dict[str, Any]) -> tuple[int, str]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    try:
        connection.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        reply = connection.getresponse()
        return reply.status, reply.read().decode()
    finally:
        connection.close()


def sse_payloads(text: str) -> list[dict[str, Any]]:
    return [json.loads(line[6:]) for line in text.splitlines() if line.startswith("data: ") and line != "data: [DONE]"]


def test_anthropic_json_reply_echoes_the_token(server):
    status, text = post(
        server, "/v1/messages?beta=true", {"model": "m", "messages": [{"role": "user", "content": "hi ECHO:a1"}]}
    )

    assert status == 200
    assert json.loads(text)["content"] == [{"type": "text", "text": "MOCK-REPLY a1"}]


def test_anthropic_stream_calls_the_bash_tool_then_answers_after_its_result(server):
    tools = [{"name": "Bash", "input_schema": {"properties": {"command": {"type": "string"}}}}]
    prompt = {
        "role": "user",
        "content": [
            {"type": "text", "text": "<system-reminder>x</system-reminder>"},
            {"type": "text", "text": "MOCK_TOOL:touch a ECHO:a2"},
        ],
    }
    _, first = post(server, "/v1/messages", {"model": "m", "stream": True, "tools": tools, "messages": [prompt]})
    tool_use = next(
        e["content_block"]
        for e in sse_payloads(first)
        if e["type"] == "content_block_start" and e["content_block"]["type"] == "tool_use"
    )
    result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_use["id"], "content": ""}]}
    _, second = post(
        server,
        "/v1/messages",
        {
            "model": "m",
            "stream": True,
            "tools": tools,
            "messages": [prompt, {"role": "assistant", "content": [tool_use]}, result],
        },
    )

    partial = "".join(
        e["delta"].get("partial_json", "") for e in sse_payloads(first) if e["type"] == "content_block_delta"
    )
    assert json.loads(partial) == {"command": "touch a"}
    text = "".join(e["delta"].get("text", "") for e in sse_payloads(second) if e["type"] == "content_block_delta")
    assert text == "MOCK-REPLY tool-done a2"


def test_responses_stream_completes_with_the_echoed_text(server):
    _, text = post(
        server,
        "/v1/responses",
        {
            "model": "mock-model",
            "stream": True,
            "input": [
                {
                    "type": "message",
                    "role": "user",
                    "content": [{"type": "input_text", "text": "<environment_context/>"}],
                },
                {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "go ECHO:c1"}]},
            ],
        },
    )

    events = sse_payloads(text)
    assert "".join(e["delta"] for e in events if e["type"] == "response.output_text.delta") == "MOCK-REPLY c1"
    assert events[-1]["type"] == "response.completed"


def test_chat_completions_stream_calls_the_tool_and_ends_with_done(server):
    tools = [
        {
            "type": "function",
            "function": {"name": "bash", "parameters": {"properties": {"command": {"type": "string"}}}},
        }
    ]
    _, text = post(
        server,
        "/v1/chat/completions",
        {"model": "m", "stream": True, "tools": tools, "messages": [{"role": "user", "content": "MOCK_TOOL:ls"}]},
    )

    calls = [c for e in sse_payloads(text) if e["choices"] for c in e["choices"][0]["delta"].get("tool_calls", [])]
    assert [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in calls] == [
        ("bash", {"command": "ls"})
    ]
    assert text.rstrip().endswith("data: [DONE]")


def test_gemini_router_request_gets_a_schema_object_even_when_the_prompt_asks_for_an_error(server):
    schema = {
        "type": "object",
        "properties": {"complexity_score": {"type": "integer", "minimum": 1}},
        "required": ["complexity_score"],
    }
    _, text = post(
        server,
        "/v1beta/models/flash:generateContent",
        {
            "contents": [{"role": "user", "parts": [{"text": "MOCK_HTTP_ERROR:500"}]}],
            "generationConfig": {"responseJsonSchema": schema},
        },
    )

    answer = json.loads(text)["candidates"][0]["content"]["parts"][0]["text"]
    assert json.loads(answer) == {"complexity_score": 1}


def test_gemini_stream_splits_the_reply_into_chunks(server):
    _, text = post(
        server,
        "/v1beta/models/pro:streamGenerateContent?alt=sse",
        {"contents": [{"role": "user", "parts": [{"text": "ECHO:g1"}]}]},
    )

    chunks = [e["candidates"][0]["content"]["parts"][0]["text"] for e in sse_payloads(text)]
    assert len(chunks) > 1 and "".join(chunks) == "MOCK-REPLY g1"


@pytest.mark.parametrize(
    ("path", "body", "message_of"),
    [
        (
            "/v1/messages",
            {"messages": [{"role": "user", "content": "MOCK_HTTP_ERROR:400"}]},
            lambda reply: reply["error"]["message"],
        ),
        (
            "/v1/responses",
            {"input": [{"role": "user", "content": "MOCK_HTTP_ERROR:400"}]},
            lambda reply: reply["error"]["message"],
        ),
        (
            "/v1/chat/completions",
            {"messages": [{"role": "user", "content": "MOCK_HTTP_ERROR:400"}]},
            lambda reply: reply["error"]["message"],
        ),
        (
            "/v1beta/models/pro:streamGenerateContent?alt=sse",
            {"contents": [{"role": "user", "parts": [{"text": "MOCK_HTTP_ERROR:400"}]}]},
            lambda reply: reply["error"]["message"],
        ),
    ],
)
def test_error_directive_answers_with_the_status_in_each_protocol(server, path, body, message_of):
    status, text = post(server, path, body)

    assert status == 400
    assert message_of(json.loads(text)) == "mock error 400 requested"
    assert server.requests[-1].reply_kind == "error"


def test_every_request_is_recorded_with_method_path_headers_and_body(server):
    post(server, "/v1/messages?beta=true", {"messages": [{"role": "user", "content": "ECHO:r"}]})

    (recorded,) = server.requests
    assert (recorded.method, recorded.path, recorded.route) == ("POST", "/v1/messages?beta=true", "/v1/messages")
    assert recorded.headers["Content-Type"] == "application/json"
    assert recorded.json()["messages"][0]["content"] == "ECHO:r"


def test_chunked_request_bodies_are_read_whole(server):
    # Node's fetch sends a streamed body with chunked transfer encoding.
    body = json.dumps({"messages": [{"role": "user", "content": "ECHO:chunked"}]}).encode()
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.request(
        "POST",
        "/v1/messages",
        iter([body[:10], body[10:]]),
        encode_chunked=True,
        headers={"Transfer-Encoding": "chunked"},
    )
    reply = json.loads(connection.getresponse().read())
    connection.close()

    assert reply["content"][0]["text"] == "MOCK-REPLY chunked"


def test_wait_for_returns_once_a_matching_request_arrives_and_times_out_otherwise(server):
    post(server, "/v1/messages", {"messages": [{"role": "user", "content": "ECHO:w"}]})

    assert len(server.wait_for(lambda r: r.route == "/v1/messages", timeout=1)) == 1
    with pytest.raises(TimeoutError):
        server.wait_for(lambda r: r.route == "/v1/responses", timeout=0.1)


def test_unknown_endpoints_are_logged_as_unanswered():
    with ModelServer() as server:
        status, _ = post(server, "/v2/somewhere-else", {})
    assert status == 404
    assert server.requests[-1].reply_status == 404


def test_stopped_server_refuses_connections():
    with ModelServer() as server:
        port = server.port
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    with pytest.raises(ConnectionRefusedError):
        connection.request("HEAD", "/")


def test_every_protocol_reports_the_chosen_usage_in_its_own_words() -> None:
    from model_server.usage import REPORTED

    assert (REPORTED.anthropic()["input_tokens"], REPORTED.anthropic()["cache_read_input_tokens"]) == (1200, 300)
    # OpenAI and Gemini count the cached input inside the input, Gemini the thoughts apart from the output.
    assert REPORTED.openai_responses()["input_tokens"] == REPORTED.openai_chat()["prompt_tokens"] == 1500
    assert REPORTED.gemini()["candidatesTokenCount"] + REPORTED.gemini()["thoughtsTokenCount"] == REPORTED.output
    figures = [REPORTED.fresh_input, REPORTED.cache_read, REPORTED.cache_write, REPORTED.output, REPORTED.reasoning]
    assert len(set(figures)) == len(figures) and 0 not in figures


def test_each_request_is_stamped_when_read_and_when_answered_after_its_delay(server):
    import time

    before = time.monotonic()
    post(server, "/v1/messages", {"model": "m", "messages": [{"role": "user", "content": "x MOCK_DELAY_MS:50 ECHO:d"}]})
    post(server, "/v1/messages", {"model": "m", "messages": [{"role": "user", "content": "no delay ECHO:e"}]})
    delayed, prompt = server.wait_for(lambda request: request.answered_at > 0, timeout=10, count=2)
    after = time.monotonic()

    # Each stamp within the test's own span, read before answered (the first's `answered` may be
    # stamped after the second arrived: its thread writes the answer, then stamps it).
    for request in (delayed, prompt):
        assert before <= request.received_at <= request.answered_at <= after
    assert delayed.received_at < prompt.received_at
    # The delay lies between the two stamps of the request that asked for it (a lower bound, not a timing).
    assert delayed.answered_at - delayed.received_at >= 0.05


def test_a_held_answer_goes_out_only_once_released_and_later_ones_pass(server: ModelServer) -> None:
    import threading

    held = {"model": "m", "messages": [{"role": "user", "content": "x MOCK_HOLD:gate ECHO:h"}]}
    answers: list[tuple[int, str]] = []
    asking = threading.Thread(target=lambda: answers.append(post(server, "/v1/messages", held)))
    asking.start()
    # Another request, unheld, is answered while the first waits: the gate holds only its own.
    assert (
        "MOCK-REPLY e"
        in post(server, "/v1/messages", {"model": "m", "messages": [{"role": "user", "content": "ECHO:e"}]})[1]
    )
    first = server.wait_for(lambda request: b"MOCK_HOLD" in request.body, timeout=10)[0]
    assert first.answered_at == 0.0 and not answers

    server.release("gate")
    asking.join(timeout=10)

    assert answers and answers[0][0] == 200 and "MOCK-REPLY h" in answers[0][1]
    # A later request naming the released gate (a conversation's history does) is not held.
    assert "MOCK-REPLY h" in post(server, "/v1/messages", held)[1]
