"""Wardian's Codex hooks: written and trusted in the agent's home, their log parsed.

The payloads are those Codex 0.169.0 gave the recorder in a real TUI session (a prompt, an
escalated command approved, the turn's end); the real-CLI suite proves the hooks fire.
"""

import hashlib
import json
import subprocess
import tomllib
import tracemalloc
from pathlib import Path
from unittest.mock import ANY

import tomli_w

from wardian_codex import hooks, hooks_log, parser, plugin
from wardian_core.provider import OutputSource, ParseResult, SpawnContext
from wardian_core.provider.home import CLI_PID_FIELD
from wardian_core.provider.testing import rests_of

FIXTURE = Path(__file__).parent / "fixtures" / "codex-hooks-tui-approval.jsonl"
THREAD = "01a20592-21a7-7ad2-8ece-818c8e21955b"
HOOKS_SOURCE = OutputSource(name="codex-hooks", kind="file", path=Path("/unused"))


def config_of(ctx) -> dict:
    return tomllib.loads((ctx.agent_dir / "habitat" / ".codex" / "config.toml").read_text())


def test_the_trust_hash_is_codexs_fingerprint_of_the_normalized_hook() -> None:
    handler = {"type": "command", "command": "echo hi", "timeout": 10}
    # sha256 of {"event_name":"stop","hooks":[{"async":false,"command":"echo hi","timeout":10,"type":"command"}]}
    canonical = b'{"event_name":"stop","hooks":[{"async":false,"command":"echo hi","timeout":10,"type":"command"}]}'
    assert hooks.trusted_hash("stop", handler) == "sha256:" + hashlib.sha256(canonical).hexdigest()
    assert hooks.trusted_hash("stop", handler, matcher="Bash") != hooks.trusted_hash("stop", handler)


def test_every_hook_is_written_and_trusted_in_the_agents_home(make_ctx) -> None:
    ctx = make_ctx()
    plugin.prepare_home(ctx=ctx)
    codex_home = ctx.agent_dir / "habitat" / ".codex"
    written = json.loads((codex_home / "hooks.json").read_text())["hooks"]
    assert set(written) == set(hooks.HOOK_EVENTS)
    state = config_of(ctx)["hooks"]["state"]
    for name, label in hooks.HOOK_EVENTS.items():
        [group] = written[name]
        [handler] = group["hooks"]
        assert "matcher" not in group
        key = f"{codex_home / 'hooks.json'}:{label}:0:0"
        assert state[key]["trusted_hash"] == hooks.trusted_hash(label, handler), name
    assert written["SessionEnd"][0]["hooks"][0]["timeout"] == 3  # what Codex clamps it to


def test_the_hook_command_appends_each_payload_as_one_line(make_ctx) -> None:
    ctx = make_ctx()
    plugin.prepare_home(ctx=ctx)
    command = json.loads((ctx.agent_dir / "habitat" / ".codex" / "hooks.json").read_text())
    command = command["hooks"]["PermissionRequest"][0]["hooks"][0]["command"]
    payload = {"session_id": THREAD, "hook_event_name": "PermissionRequest", "tool_input": {"command": "a\nb"}}
    for _ in range(2):
        subprocess.run(command, shell=True, input=json.dumps(payload, indent=2).encode(), check=True)
    lines = hooks.hooks_file(ctx).read_text().splitlines()
    assert [json.loads(line) for line in lines] == [payload | {CLI_PID_FIELD: ANY}] * 2


def test_an_interactive_launch_starts_an_empty_log_and_keeps_others_trust(make_ctx) -> None:
    ctx = make_ctx()
    plugin.prepare_home(ctx=ctx)
    hooks.hooks_file(ctx).write_text('{"hook_event_name":"Stop"}\n')
    config_file = ctx.agent_dir / "habitat" / ".codex" / "config.toml"
    hooks_json = ctx.agent_dir / "habitat" / ".codex" / "hooks.json"
    # A trust entry of an older recorder command (another interpreter), and one of the user's own.
    config = config_of(ctx)
    config["hooks"]["state"][f"{hooks_json}:stop:0:1"] = {"trusted_hash": "sha256:old"}
    config["hooks"]["state"]["/home/u/.codex/hooks.json:stop:0:0"] = {"trusted_hash": "sha256:user"}
    config_file.write_text(tomli_w.dumps(config))

    plugin.prepare_home(ctx=ctx.model_copy(update={"session_mode": "resume"}))
    assert hooks.hooks_file(ctx).read_text() == ""
    state = config_of(ctx)["hooks"]["state"]
    assert f"{hooks_json}:stop:0:1" not in state
    assert state["/home/u/.codex/hooks.json:stop:0:0"] == {"trusted_hash": "sha256:user"}
    assert len([key for key in state if key.startswith(str(hooks_json))]) == len(hooks.HOOK_EVENTS)


def test_a_headless_run_keeps_the_interactive_log(make_ctx) -> None:
    ctx = make_ctx()
    plugin.prepare_home(ctx=ctx)
    hooks.hooks_file(ctx).write_text('{"hook_event_name":"Stop"}\n')
    plugin.prepare_home(ctx=make_ctx(mode="headless", prompt="x"))
    assert hooks.hooks_file(ctx).read_text() == '{"hook_event_name":"Stop"}\n'


def parse_fixture(ctx: SpawnContext) -> list[ParseResult]:
    parser = hooks_log.CodexHooks(HOOKS_SOURCE, ctx)
    return [parser.feed(line) for line in FIXTURE.read_bytes().splitlines()]


def says_nothing(result: ParseResult) -> bool:
    return result.model_copy(update={"at_rest": False}) == ParseResult()


def test_the_payloads_of_a_turn_with_an_approved_command(make_ctx) -> None:
    results = parse_fixture(make_ctx(provider_session_id=THREAD))
    got = [[(e.kind, e.evidence.rule) for e in result.events] for result in results]
    assert got == [
        [("session_started", "hook SessionStart")],
        [("turn_started", "hook UserPromptSubmit")],
        [("generating", "hook PreToolUse")],
        [],  # PermissionRequest: the dialog on screen reports it
        [("generating", "hook PostToolUse")],
        [("turn_completed", "hook Stop")],
    ]
    assert results[0].events[0].session_id == THREAD and not results[0].sources_changed
    assert results[3].want_screen
    assert results[2].events[0].data["tool_input"] == {"command": "touch approved.txt"}
    assert results[5].events[0].message == "MOCK-REPLY tool-done a1"


def test_a_new_thread_asks_for_its_sources_and_another_threads_payloads_count_not(make_ctx) -> None:
    started = parse_fixture(make_ctx())[0]
    assert started.sources_changed, "the rollout of a thread Wardian did not know yet"
    parser = hooks_log.CodexHooks(HOOKS_SOURCE)
    parser.session_id = "01a20000-0000-7000-8000-000000000000"
    other = FIXTURE.read_bytes().splitlines()[5]  # the Stop of THREAD
    assert says_nothing(parser.feed(other))
    for junk in (b"", b"not json", b'{"no_event": 1}', b"[1, 2]"):
        assert says_nothing(hooks_log.CodexHooks(HOOKS_SOURCE, make_ctx(provider_session_id=THREAD)).feed(junk))


def test_a_permission_request_is_pending_until_its_command_ran(tmp_path: Path) -> None:
    lines = FIXTURE.read_bytes().splitlines(keepends=True)
    log = tmp_path / "hooks.jsonl"
    log.write_bytes(b"".join(lines[:4]))
    pending = hooks_log.pending_permission(log)
    assert pending is not None and pending["tool_input"]["command"] == "touch approved.txt"
    log.write_bytes(b"".join(lines[:5]))
    assert hooks_log.pending_permission(log) is None
    assert hooks_log.pending_permission(tmp_path / "missing.jsonl") is None
    assert hooks_log.pending_permission(None) is None


def test_a_pending_permission_is_found_without_reading_weeks_of_older_hooks(tmp_path: Path) -> None:
    lines = FIXTURE.read_bytes().splitlines(keepends=True)
    older = b"".join(lines[:6]) * (8 * 1024 * 1024 // len(b"".join(lines[:6])))  # 8 MB of finished turns
    log = tmp_path / "hooks.jsonl"
    log.write_bytes(older + b"".join(lines[:4]))
    tracemalloc.start()
    try:
        pending = hooks_log.pending_permission(log)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert pending is not None and pending["tool_input"]["command"] == "touch approved.txt"
    assert peak < 1024 * 1024, f"held {peak} bytes: the whole log was read"


def test_a_new_host_may_replay_the_hook_log_from_any_line_of_the_known_thread(make_ctx) -> None:
    """The hook parser holds only the thread: every line of the thread the host knows is a rest
    but a PermissionRequest, which asks for a look at the screen (its dialog, drawn later)
    that a replay must ask again (wardian_host.testing.rests checks each resume reads the same)."""
    lines = FIXTURE.read_bytes().splitlines() * 2
    known = make_ctx(provider_session_id=THREAD)
    rests = rests_of(lambda: parser.parser_for(known, HOOKS_SOURCE), lines)
    names = [json.loads(line)["hook_event_name"] for line in lines]
    assert [name for name, rest in zip(names, rests, strict=True) if not rest] == ["PermissionRequest"] * 2
    # A thread the host does not know yet is held: no rest until the host knows it.
    assert not any(rests_of(lambda: parser.parser_for(make_ctx(), HOOKS_SOURCE), lines))
