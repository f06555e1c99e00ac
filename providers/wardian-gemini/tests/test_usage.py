"""Gemini's usage: the headless result's stats and the interactive session log's tokens, to the token."""

import json
from pathlib import Path

from wardian_core.provider import HEADLESS_SOURCE, OutputSource
from wardian_gemini import plugin, usage

RECORDINGS = Path(__file__).parents[3] / "tests" / "real_cli" / "recordings" / "gemini"
SESSION_LOG = OutputSource(name=usage.SESSION_LOG_SOURCE, kind="file", path=Path("session.jsonl"))


def reports(ctx, source: OutputSource, lines: list[bytes]) -> list:
    parser = plugin.parse_output(ctx=ctx, source=source)
    return [event.usage for line in lines for event in parser.feed(line).events if event.usage]


def test_a_headless_run_reports_its_stats_with_the_routers_call(make_ctx) -> None:
    # Recorded from Gemini CLI 0.61.0 against the model server: two calls (router, main), each
    # 1500 prompt tokens of which 300 cached, 61 candidates and 9 thoughts.
    lines = (RECORDINGS / "gemini-headless.jsonl").read_bytes().splitlines()
    [report] = reports(make_ctx(mode="headless", prompt="x"), HEADLESS_SOURCE, lines)
    assert (report.input_tokens, report.cache_read_tokens, report.output_tokens) == (2400, 600, 122)
    # The stats count no thoughts, no cache writes, no cost, no context: all unknown.
    assert (report.reasoning_tokens, report.cache_write_tokens, report.cost_usd, report.context_window) == (
        None,
        None,
        None,
        None,
    )
    assert report.model == "gemini-3.5-flash-lite,gemini-3.8-flash"
    assert report.recorded_at == "2026-11-25T22:09:31.085Z"  # the result's own time


def test_a_session_log_message_reports_its_tokens_once_they_are_known(make_ctx) -> None:
    message = {"id": "m-1", "type": "gemini", "content": "MOCK-REPLY", "model": "gemini-3.8-flash"}
    message["timestamp"] = "2026-11-25T22:10:00.250Z"
    tokens = {"input": 1500, "output": 61, "cached": 300, "thoughts": 9, "tool": 0, "total": 1570}
    lines = [
        json.dumps({"sessionId": "s", "projectHash": "h"}).encode(),
        json.dumps({"id": "u-1", "type": "user", "content": "hi"}).encode(),
        json.dumps(message).encode(),  # appended before the call ended: no tokens yet
        json.dumps(message | {"tokens": tokens}).encode(),
    ]
    [report] = reports(make_ctx(), SESSION_LOG, lines)
    assert report.turn_key == "m-1"
    assert (report.input_tokens, report.cache_read_tokens, report.output_tokens, report.reasoning_tokens) == (
        1200,
        300,
        70,
        9,
    )
    assert (report.model, report.context_used, report.cost_usd) == ("gemini-3.8-flash", 1500, None)
    assert report.recorded_at == "2026-11-25T22:10:00.250Z"


def test_the_session_log_is_followed_once_it_appears(make_ctx) -> None:
    ctx = make_ctx(provider_session_id="0123abcd-0000-4000-8000-000000000000")
    assert [source.name for source in usage.telemetry_sources(ctx)] == [usage.CHATS_SOURCE]
    log = usage.temp_dir(ctx) / "proj" / "chats" / "session-2026-11-25T22-10-0123abcd.jsonl"
    log.parent.mkdir(parents=True)
    log.write_text("")
    chats = plugin.parse_output(ctx=ctx, source=usage.telemetry_sources(ctx)[0])
    assert chats.feed(b"proj/chats/" + log.name.encode()).sources_changed
    assert [(source.name, source.path) for source in usage.telemetry_sources(ctx)][1] == (usage.SESSION_LOG_SOURCE, log)
