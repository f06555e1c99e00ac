"""What a prompt asks of the fake model, and what it decides to answer (no network)."""

import json
import time

from model_server import anthropic, gemini, openai_chat, openai_responses
from model_server.directives import parse_directives
from model_server.gemini import example_for_schema
from model_server.turn import Conversation, DeclaredTool, decide
from model_server.wire import HttpReply

BASH = DeclaredTool("Bash", {"properties": {"command": {"type": "string"}, "description": {"type": "string"}}})
EXEC_COMMAND = DeclaredTool(
    "exec_command",
    {
        "properties": {
            "cmd": {"type": "string"},
            "sandbox_permissions": {"type": "string"},
            "justification": {"type": "string"},
        }
    },
)
ARGV_SHELL = DeclaredTool("shell", {"properties": {"command": {"type": "array"}}})


def test_tool_command_stops_where_the_next_directive_starts():
    directives = parse_directives("run MOCK_TOOL:echo hi > out.txt ECHO:tok3")

    assert directives.tool_command == "echo hi > out.txt"
    assert directives.echo_token == "tok3"


def test_echo_token_excludes_trailing_punctuation_a_client_adds():
    # OpenCode 1.18 quotes the prompt in its title request: `"hello ECHO:t1"`.
    assert parse_directives('"hello ECHO:t1"').echo_token == "t1"


def test_both_spellings_of_the_error_directive_give_the_status():
    assert parse_directives("MOCK_HTTP_ERROR:429").error_status == 429
    assert parse_directives("fail MOCK_ERROR:400").error_status == 400


def test_tool_directive_calls_the_declared_shell_tool_with_its_own_schema():
    answer = decide(Conversation("MOCK_TOOL:touch a.txt", False, (BASH,)))

    assert answer.tool_call is not None
    assert answer.tool_call.name == "Bash"
    assert answer.tool_call.arguments == {"command": "touch a.txt", "description": "mock tool call"}


def test_argv_shaped_shell_tool_gets_a_bash_invocation():
    answer = decide(Conversation("MOCK_TOOL:touch a.txt", False, (ARGV_SHELL,)))

    assert answer.tool_call is not None
    assert answer.tool_call.arguments == {"command": ["bash", "-lc", "touch a.txt"]}


def test_escalate_asks_codex_for_an_escalated_sandbox():
    answer = decide(Conversation("MOCK_ESCALATE MOCK_TOOL:touch a.txt", False, (EXEC_COMMAND,)))

    assert answer.tool_call is not None
    assert answer.tool_call.arguments["cmd"] == "touch a.txt"
    assert answer.tool_call.arguments["sandbox_permissions"] == "require_escalated"
    assert answer.tool_call.arguments["justification"]


def test_request_without_a_shell_tool_is_answered_with_text():
    # Title and summary side requests repeat the prompt but declare no tools.
    answer = decide(Conversation("MOCK_TOOL:touch a.txt ECHO:t", False, ()))

    assert answer.tool_call is None
    assert answer.text == "MOCK-REPLY t"


def test_after_the_tool_result_the_turn_ends_with_text():
    answer = decide(Conversation("MOCK_TOOL:touch a.txt ECHO:t", True, (BASH,)))

    assert answer.tool_call is None
    assert answer.text == "MOCK-REPLY tool-done t"


def test_schema_example_honours_enums_and_minimums():
    schema = {
        "type": "OBJECT",
        "properties": {
            "complexity_reasoning": {"type": "STRING"},
            "complexity_score": {"type": "INTEGER", "minimum": 1},
            "next_speaker": {"type": "string", "enum": ["model", "user"]},
        },
        "required": ["complexity_reasoning", "complexity_score", "next_speaker"],
    }

    assert example_for_schema(schema) == {"complexity_reasoning": "mock", "complexity_score": 1, "next_speaker": "user"}


ASK_ID = "ask_0123456789abcdef"
ASK_PROMPT = (
    "what is six times seven? MOCK_TOOL:echo 42 | wardian reply ASK_REQUEST_ID --status done --stdin\n\n"
    f"When you are done, run: wardian reply {ASK_ID} --status done --stdin"
)


def test_request_id_placeholder_takes_the_id_on_a_later_line_of_the_prompt():
    answer = decide(Conversation(ASK_PROMPT, False, (BASH,)))

    assert answer.tool_call is not None
    assert answer.tool_call.arguments["command"] == f"echo 42 | wardian reply {ASK_ID} --status done --stdin"


def test_request_id_placeholder_fills_every_schema_shape():
    answer = decide(Conversation(ASK_PROMPT, False, (ARGV_SHELL,)))

    assert answer.tool_call is not None
    assert answer.tool_call.arguments["command"][-1] == f"echo 42 | wardian reply {ASK_ID} --status done --stdin"


def test_prompt_without_a_request_id_is_answered_with_text_and_runs_nothing():
    prompt = "MOCK_ESCALATE MOCK_TOOL:wardian reply ASK_REQUEST_ID --status done ECHO:t"

    answer = decide(Conversation(prompt, False, (EXEC_COMMAND,)))

    assert answer.tool_call is None
    assert answer.text == "MOCK-REPLY no-request-id"


def test_only_sixteen_lowercase_hex_digits_make_a_request_id():
    for wrong in ("ask_0123456789ABCDEF", "ask_0123456789abcdef0", "ask_0123456789abcde", "task_0123456789abcdef"):
        directives = parse_directives(f"MOCK_TOOL:wardian reply ASK_REQUEST_ID\n\nreply to {wrong} now")

        assert directives.tool_command is None, wrong
        assert directives.reply_text() == "MOCK-REPLY no-request-id", wrong


def test_a_command_without_the_placeholder_is_left_as_written():
    directives = parse_directives(f"MOCK_TOOL:echo ASK_ID_LIKE\n\n{ASK_ID}")

    assert directives.tool_command == "echo ASK_ID_LIKE"
    assert not directives.missing_request_id


LIST_AGENTS = DeclaredTool("mcp__wardian__list_agents", {"properties": {"scope": {"type": "string"}}})
REPLY = DeclaredTool("wardian_reply", {"properties": {"request_id": {"type": "string"}}})


def test_mcp_directive_calls_the_declared_tool_under_its_servers_prefix():
    answer = decide(Conversation('MOCK_MCP:list_agents {"scope": "all"} ECHO:listed', False, (BASH, LIST_AGENTS)))

    assert answer.tool_call is not None
    assert (answer.tool_call.name, answer.tool_call.arguments) == ("mcp__wardian__list_agents", {"scope": "all"})
    assert decide(Conversation('MOCK_MCP:list_agents {"scope": "all"}', True, (LIST_AGENTS,))).text == (
        "MOCK-REPLY tool-done"
    )


def test_mcp_directive_fills_in_the_asks_request_id():
    prompt = (
        'MOCK_MCP:reply {"request_id": "ASK_REQUEST_ID", "status": "done"}\n\n[Wardian request ask_0123456789abcdef]'
    )

    answer = decide(Conversation(prompt, False, (REPLY,)))

    assert answer.tool_call is not None
    assert answer.tool_call.arguments == {"request_id": "ask_0123456789abcdef", "status": "done"}
    assert decide(Conversation(prompt.split("\n")[0], False, (REPLY,))).text == "MOCK-REPLY no-request-id"


def test_mcp_directive_without_such_a_tool_answers_text():
    answer = decide(Conversation("MOCK_MCP:list_agents {}", False, (BASH,)))

    assert (answer.tool_call, answer.text) == (None, "MOCK-REPLY")


def test_a_namespaced_mcp_tool_is_called_in_its_namespace():
    from model_server.openai_responses import conversation

    body = {
        "input": [{"type": "message", "role": "user", "content": "MOCK_MCP:list_agents {}"}],
        "tools": [
            {"type": "namespace", "name": "mcp__wardian", "tools": [{"type": "function", "name": "list_agents"}]}
        ],
    }

    call = decide(conversation(body)).tool_call

    assert call is not None and (call.name, call.namespace) == ("list_agents", "mcp__wardian")


def test_limit_directive_refuses_each_call_until_its_reset_and_then_answers():
    ahead, past = int(time.time()) + 3600, int(time.time()) - 1

    limited = decide(Conversation(f"go MOCK_LIMIT:five_hour:{ahead} ECHO:t", False, ()))
    after_reset = decide(Conversation(f"go MOCK_LIMIT:five_hour:{past} ECHO:t", False, ()))

    assert limited.limit is not None and (limited.limit.name, limited.limit.resets_at) == ("five_hour", ahead)
    assert after_reset.limit is None and after_reset.text == "MOCK-REPLY t"


def test_anthropic_limit_is_a_429_with_the_unified_rate_limit_headers():
    ahead = int(time.time()) + 600
    reply = anthropic.messages({"messages": [{"role": "user", "content": f"MOCK_LIMIT:seven_day:{ahead}"}]})

    assert (reply.status, reply.kind) == (429, "limit")
    assert json.loads(reply.body)["error"]["type"] == "rate_limit_error"
    assert reply.headers["anthropic-ratelimit-unified-status"] == "rejected"
    assert reply.headers["anthropic-ratelimit-unified-reset"] == str(ahead)
    assert reply.headers["anthropic-ratelimit-unified-representative-claim"] == "seven_day"
    assert reply.headers["anthropic-ratelimit-unified-7d-reset"] == str(ahead)
    assert 0 < int(reply.headers["retry-after"]) <= 600


def test_responses_limit_is_a_429_usage_limit_reached_with_the_codex_windows():
    ahead = int(time.time()) + 600
    body = {"input": [{"type": "message", "role": "user", "content": f"go MOCK_LIMIT:secondary:{ahead}"}]}

    reply = openai_responses.responses(body)

    assert (reply.status, reply.kind) == (429, "limit")
    error = json.loads(reply.body)["error"]
    assert (error["type"], error["plan_type"], error["resets_at"]) == ("usage_limit_reached", "plus", ahead)
    assert reply.headers["x-codex-active-limit"] == "codex"
    # The weekly window ran out at the test's reset; the 5-hour one is as every answer reports it.
    assert (reply.headers["x-codex-secondary-used-percent"], reply.headers["x-codex-secondary-reset-at"]) == (
        "100",
        str(ahead),
    )
    assert reply.headers["x-codex-primary-used-percent"] == "12.5"


def test_chat_completions_limit_is_a_429_rate_limit_exceeded_with_retry_after_and_the_reset():
    ahead = int(time.time()) + 3700
    body = {
        "model": "mock-model",
        "stream": True,
        "messages": [{"role": "user", "content": f"MOCK_LIMIT:tokens:{ahead}"}],
    }

    reply = openai_chat.chat_completions(body)

    assert (reply.status, reply.kind) == (429, "limit")
    error = json.loads(reply.body)["error"]
    assert (error["type"], error["code"]) == ("tokens", "rate_limit_exceeded")
    assert "on tokens per day (TPD)" in error["message"] and "Please try again in 1h" in error["message"]
    assert 3690 < int(reply.headers["retry-after"]) <= 3700
    assert reply.headers["x-ratelimit-remaining-tokens"] == "0"
    assert reply.headers["x-ratelimit-reset-tokens"].startswith("1h1m")


def test_retry_after_directive_shortens_what_a_limit_says_to_wait_not_the_limit():
    ahead = int(time.time()) + 600
    content = f"MOCK_LIMIT:requests:{ahead} MOCK_RETRY_AFTER:1"

    reply = openai_chat.chat_completions({"messages": [{"role": "user", "content": content}]})

    assert (reply.status, reply.headers["retry-after"]) == (429, "1")
    assert reply.headers["x-ratelimit-reset-requests"].startswith(("9m", "10m0s"))
    assert [openai_chat.duration(s) for s in (9, 360, 3723)] == ["9s", "6m0s", "1h2m3s"]


def test_gemini_limit_is_a_429_resource_exhausted_with_code_assists_quota_and_retry_info():
    ahead = int(time.time()) + 600
    body = {"contents": [{"role": "user", "parts": [{"text": f"go MOCK_LIMIT:QUOTA_EXHAUSTED:{ahead}"}]}]}

    reply = gemini.generate_content(body, "gemini-2.5-pro", stream=True)

    assert (reply.status, reply.kind) == (429, "limit")
    error = json.loads(reply.body)["error"]
    assert (error["code"], error["status"]) == (429, "RESOURCE_EXHAUSTED")
    info, retry = error["details"]
    # What Gemini CLI 0.61.0 takes as a terminal quota with a reset: Code Assist's reason and domain.
    assert (info["reason"], info["domain"]) == ("QUOTA_EXHAUSTED", "cloudcode-pa.googleapis.com")
    assert info["@type"] == "type.googleapis.com/google.rpc.ErrorInfo"
    assert retry["@type"] == "type.googleapis.com/google.rpc.RetryInfo"
    assert 590 < int(retry["retryDelay"].removesuffix("s")) <= 600


def test_gemini_api_keys_daily_quota_is_a_quota_failure_and_the_router_is_still_answered():
    ahead = int(time.time()) + 600
    prompt = f"MOCK_LIMIT:GenerateRequestsPerDayPerProjectPerModel:{ahead}"
    body = {"contents": [{"role": "user", "parts": [{"text": prompt}]}]}
    router = body | {"generationConfig": {"responseJsonSchema": {"type": "object", "properties": {}}}}

    failure = json.loads(gemini.generate_content(body, "gemini-2.5-pro", stream=False).body)["error"]["details"][0]

    assert failure["@type"] == "type.googleapis.com/google.rpc.QuotaFailure"
    assert failure["violations"][0]["quotaId"] == "GenerateRequestsPerDayPerProjectPerModel"
    assert gemini.generate_content(router, "gemini-2.5-flash-lite", stream=False).status == 200


def test_gemini_per_minute_quota_is_a_short_retryable_429_then_a_normal_answer():
    """What Gemini CLI 0.61.0 retries by itself: no Code Assist reason, no `PerDay` quota, a
    `RetryInfo` of a few seconds; once the reset passed, the same prompt is answered."""
    quota = "GenerateRequestsPerMinutePerProjectPerModel"

    def answer(reset: int) -> HttpReply:
        body = {"contents": [{"role": "user", "parts": [{"text": f"again MOCK_LIMIT:{quota}:{reset} ECHO:r1"}]}]}
        return gemini.generate_content(body, "gemini-2.5-pro", stream=False)

    limited, after = answer(int(time.time()) + 3), answer(int(time.time()) - 1)

    error = json.loads(limited.body)["error"]
    failure, retry = error["details"]
    assert (limited.status, error["status"]) == (429, "RESOURCE_EXHAUSTED")
    assert failure["violations"][0]["quotaId"] == quota
    assert 1 <= int(retry["retryDelay"].removesuffix("s")) <= 3
    assert after.status == 200 and "MOCK-REPLY r1" in after.body.decode()
