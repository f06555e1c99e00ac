"""`wardian mcp` through the SDK's own client: every tool answers what its CLI command prints,
every failure is the envelope, a waiting call reports progress, and who calls is the host's to
say (the process tree), so a reply from another agent is refused as on the CLI.

The host runs in the test's process (`running_host`); the MCP client runs on its loop, and the
`wardian mcp` it starts talks to that host over its socket as any `wardian` would.
"""

import asyncio
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from in_process_agents import read_state, spawn, wait_until
from mcp_client import call, mcp_session
from workflow_shapes import chained_workflow

from wardian_core.asks import is_request_id
from wardian_core.control.models import ReplyParams
from wardian_core.db import requests as request_rows
from wardian_core.mcp_tools import TOOL_NAMES
from wardian_core.message_reading import MESSAGE_MAX_BYTES
from wardian_host.testing.answering_agent import READY_PROMPT
from wardian_host.testing.in_process import InProcessHost

SUPPORT = Path(__file__).parent / "support"
WARDIAN = str(Path(sys.executable).parent / "wardian")
# Arguments each tool needs to get as far as the host: a bad one is then the only thing wrong.
REQUIRED: dict[str, dict[str, Any]] = {
    "show_agent": {},
    "agent_screen": {"agent": "x"},
    "reply": {"request_id": "x", "status": "done"},
    "send": {"to": "x"},
    "ask": {"agent": "x"},
    "wait_for_agent": {"agent": "x", "until": "idle"},
    "show_request": {"request_id": "x"},
    "watch_output": {"agent": "x"},
    "spawn_agent": {"provider": "generic", "class": "Coder"},
    "kill_agent": {"agent": "x"},
    "pause_agent": {"agent": "x"},
    "resume_agent": {"agent": "x"},
    "show_workflow": {"workflow_id": "x"},
    "run_workflow": {"workflow_id": "x"},
    "workflow_run_status": {"workflow_id": "x", "run_id": "x"},
}


def answering_agent(host: InProcessHost, workspace: Path, name: str) -> None:
    """A scripted agent that answers each question with its own `wardian reply` (or stays SILENT)."""
    command = (sys.executable, "-m", "wardian_host.testing.answering_agent")
    spawn(host, workspace, name, *command, settings={"prompt_pattern": f"{READY_PROMPT.strip()} $"})
    wait_until(host, name, "idle")


def in_session(host: InProcessHost, steps: Callable[..., Awaitable[Any]], **env: str) -> Any:
    """`steps(session)` on the host's loop, with a `wardian mcp` of this process (a person's)."""

    async def run() -> Any:
        async with mcp_session(**env) as session:
            return await steps(session)

    return host.call(run())


async def cli_json(*args: str) -> dict[str, Any]:
    """What `wardian ARGS` prints, run beside the host's loop (it must keep serving)."""
    process = await asyncio.create_subprocess_exec(WARDIAN, *args, stdout=asyncio.subprocess.PIPE)
    out, _ = await process.communicate()
    assert process.returncode == 0
    answer: dict[str, Any] = json.loads(out)
    return answer


def test_every_tool_is_listed_with_its_commands_flags_as_its_input_schema(running_host: InProcessHost) -> None:
    async def listed(session: Any) -> Any:
        return (await session.list_tools()).tools

    tools = {tool.name: tool for tool in in_session(running_host, listed)}

    assert tuple(tools) == TOOL_NAMES
    assert all(tool.input_schema["type"] == "object" for tool in tools.values())
    assert all(tool.input_schema["additionalProperties"] is False for tool in tools.values())
    ask = tools["ask"].input_schema
    assert set(ask["properties"]) == {"agent", "message", "file", "timeout", "until", "no_wait"}
    assert ask["required"] == ["agent"] and ask["properties"]["timeout"]["type"] == "string"
    assert set(tools["list_agents"].input_schema["properties"]) >= {"scope", "status", "class", "workspace", "fields"}
    assert tools["list_agents"].annotations is not None and tools["list_agents"].annotations.read_only_hint


def test_an_argument_a_tool_does_not_take_is_invalid_field_for_every_tool(running_host: InProcessHost) -> None:
    async def called(session: Any) -> dict[str, tuple[bool, dict[str, Any]]]:
        return {tool: await call(session, tool, REQUIRED.get(tool, {}) | {"bogus": 1}) for tool in TOOL_NAMES}

    answers = in_session(running_host, called)

    for tool, (is_error, answer) in answers.items():
        assert is_error, tool
        assert answer["error"]["code"] == "invalid_field", tool
        assert answer["error"]["details"]["errors"] == [{"field": "bogus", "problem": "Extra inputs are not permitted"}]
        assert answer["error"]["hint"]


def _placeholder(schema: dict[str, Any]) -> Any:
    """A value of the property's type that names nothing that exists."""
    if "enum" in schema:
        return schema["enum"][0]
    return {"string": "x", "boolean": False, "integer": 0, "array": []}[schema["type"]]


def _explained(schema: dict[str, Any], arguments: dict[str, Any], error: dict[str, Any]) -> bool:
    """Whether the input schema explains a refusal of exactly its required arguments: an unknown
    name it was given (`not_found`), no calling agent where its description says the caller is
    meant, or a rule a property's description states ("Required unless ...")."""
    described = {name: prop.get("description", "") for name, prop in schema["properties"].items()}
    if error["code"] == "not_found":
        return "x" in arguments.values() or "x" in error["message"]
    if error["code"] == "not_in_session":
        return "calling agent" in described.get("agent", "")
    if error["code"] == "invalid_field":
        problems = " ".join(item["problem"] for item in error["details"]["errors"])
        return any(f"`{name}`" in problems and "Required unless" in text for name, text in described.items())
    return False


def test_every_tool_called_with_its_schemas_required_arguments_works_or_is_refused_as_the_schema_says(
    running_host: InProcessHost,
) -> None:
    async def called(session: Any) -> list[tuple[str, dict[str, Any], dict[str, Any], bool, dict[str, Any]]]:
        answers = []
        for tool in (await session.list_tools()).tools:
            schema = tool.input_schema
            arguments = {name: _placeholder(schema["properties"][name]) for name in schema.get("required", [])}
            is_error, answer = await call(session, tool.name, arguments)
            answers.append((tool.name, schema, arguments, is_error, answer))
        return answers

    unexplained = [
        (name, arguments, answer["error"])
        for name, schema, arguments, is_error, answer in in_session(running_host, called)
        if is_error and not _explained(schema, arguments, answer["error"])
    ]

    assert unexplained == []


def test_failures_are_the_clis_envelopes(running_host: InProcessHost) -> None:
    cases = [
        ("no_such_tool", {}, "not_found"),
        ("wait_for_agent", {"agent": "x", "until": "sleeping"}, "invalid_field"),
        ("reply", {"request_id": "x"}, "invalid_field"),  # no status
        ("reply", {"request_id": "x", "status": "done"}, "invalid_field"),  # no message: the schema says so
        ("ask", {"agent": "x"}, "invalid_field"),  # no message
        ("ask", {"agent": "x", "message": "hi", "timeout": "soon"}, "usage"),
        ("send", {"to": "x", "message": "hi", "approval": "accept"}, "usage"),
        ("reply", {"request_id": "x", "status": "done", "message": "a" * 70_000}, "message_too_large"),
        # Read up to the message limit and refused there: never read whole (it has no end).
        ("send", {"to": "x", "file": "/dev/zero"}, "message_too_large"),
        ("ask", {"agent": "x", "file": "/dev/zero"}, "message_too_large"),
        ("send", {"to": "x", "message": "a" * (MESSAGE_MAX_BYTES + 1)}, "message_too_large"),
        ("show_agent", {"agent": "nobody"}, "not_found"),
        ("agent_screen", {"agent": "nobody"}, "not_found"),
    ]

    async def called(session: Any) -> list[tuple[bool, str]]:
        answers = [await call(session, tool, arguments) for tool, arguments, _ in cases]
        return [(is_error, answer["error"]["code"]) for is_error, answer in answers]

    assert in_session(running_host, called) == [(True, code) for _, _, code in cases]


def test_without_a_host_the_relay_says_at_once_to_start_one() -> None:
    async def initialize() -> str:
        with pytest.raises(Exception) as refused:  # the SDK's MCPError, inside its task groups
            async with mcp_session():
                pass
        return str(refused.value) + repr(refused.value.__dict__) + "".join(map(str, _leaves(refused.value)))

    assert "wardian host start" in anyio.run(initialize)


def _leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in _leaves(inner)]
    return [error]


def test_each_tool_answers_what_its_command_prints(running_host: InProcessHost, tmp_path: Path) -> None:
    answering_agent(running_host, tmp_path, "oracle")
    spawn(running_host, tmp_path, "sleeper", "sleep", "600")
    workflows = Path(os.environ["WARDIAN_HOME"]) / "workflows"
    workflows.mkdir()
    (workflows / "chain.json").write_text(json.dumps(chained_workflow(2)))

    async def steps(session: Any) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for tool, arguments in [
            ("list_agents", {"scope": "all", "fields": "name,provider"}),
            ("show_agent", {"agent": "oracle", "fields": "name,class"}),
            ("list_workflows", {}),
            ("show_workflow", {"workflow_id": "chain"}),
        ]:
            found[tool] = (await call(session, tool, arguments))[1]
        found["cli"] = await cli_json("agent", "list", "--scope", "all", "--fields", "name,provider")
        found["cli_workflows"] = await cli_json("workflow", "list")
        actions: list[tuple[str, dict[str, Any]]] = [  # arguments of every kind: text, numbers, flags, lists
            ("whoami", {}),
            ("agent_screen", {"agent": "oracle"}),
            ("send", {"to": "sleeper", "message": "hello"}),
            ("ask", {"agent": "oracle", "message": "what is six times seven?", "timeout": "20s"}),
            ("wait_for_agent", {"agent": "oracle", "until": "idle", "timeout": "20s"}),
            ("watch_output", {"agent": "oracle", "since": 0}),
            ("pause_agent", {"agent": "sleeper"}),
            ("resume_agent", {"agent": "sleeper"}),
            ("kill_agent", {"agent": "sleeper"}),
            ("spawn_agent", {"provider": "generic", "class": "Helper", "name": "third", "args": ["sleep", "600"]}),
            ("run_workflow", {"workflow_id": "chain", "wait": True, "timeout": "20s"}),
        ]
        for tool, arguments in actions:
            is_error, found[tool] = await call(session, tool, arguments)
            assert not is_error, (tool, found[tool])
        request_id = found["ask"]["request_id"]
        found["show_request"] = (await call(session, "show_request", {"request_id": request_id}))[1]
        run = {"workflow_id": "chain", "run_id": found["run_workflow"]["run"]["run_id"]}
        found["workflow_run_status"] = (await call(session, "workflow_run_status", run))[1]
        return found

    found = in_session(running_host, steps)

    assert found["list_agents"] == found["cli"]
    assert {agent["name"] for agent in found["list_agents"]["agents"]} == {"oracle", "sleeper"}
    assert found["show_agent"] == {"schema": 1, "agent": {"name": "oracle", "class": "Coder"}}
    assert found["list_workflows"] == found["cli_workflows"]
    assert [node["id"] for node in found["show_workflow"]["workflow"]["nodes"]] == ["n0", "n1"]
    assert found["whoami"]["caller"]["verification"] == "none"  # the test is a person
    assert READY_PROMPT.strip() in "\n".join(found["agent_screen"]["screen"]["rows"])
    assert found["send"]["schema"] == 1 and "sleeper" in json.dumps(found["send"])
    assert (found["ask"]["status"], found["ask"]["reply"]["body"]) == ("done", "answered: what is six times seven?")
    assert found["show_request"]["request"]["status"] == "done" and is_request_id(found["ask"]["request_id"])
    assert found["wait_for_agent"]["agent"]["status"] == "idle"
    assert found["watch_output"]["watch"]["cursor"] > 0
    assert found["pause_agent"]["agent"]["status"] == "off"
    assert found["resume_agent"]["agent"]["name"] == "sleeper"
    assert found["kill_agent"]["agent"]["status"] == "off"
    assert (found["spawn_agent"]["agent"]["name"], found["spawn_agent"]["agent"]["class"]) == ("third", "Helper")
    assert found["run_workflow"]["run"]["status"] == "completed"
    assert found["workflow_run_status"]["run"]["run_id"] == found["run_workflow"]["run"]["run_id"]


def test_a_long_ask_reports_progress_until_its_answer(
    running_host: InProcessHost, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WARDIAN_MCP_PROGRESS_SECONDS", "0.2")  # read by the host, which serves the tools
    answering_agent(running_host, tmp_path, "quiet")
    desk = running_host.host.desk
    reported_progress: list[tuple[float, str | None]] = []
    reported = asyncio.Event()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        reported_progress.append((progress, message))
        reported.set()

    async def steps(session: Any) -> tuple[bool, dict[str, Any]]:
        arguments = {"agent": "quiet", "message": "take your time SILENT", "timeout": "30s"}
        asking = asyncio.ensure_future(call(session, "ask", arguments, on_progress))
        await reported.wait()  # the call is waiting, and says so
        (request,) = read_state(running_host.host.home, request_rows.list_requests)
        desk.reply(ReplyParams(request_id=request["request_id"], status="done", body="42"), None, False, os.getpid())
        return await asking

    is_error, answer = in_session(running_host, steps)

    assert not is_error
    assert (answer["status"], answer["reply"]["body"], answer["reply"]["source"]) == ("done", "42", "human")
    assert (
        reported_progress[0][0] == pytest.approx(0.2)
        and reported_progress[0][1] == "waiting for quiet to reply (0.2 s)"
    )
    assert [done for done, _ in reported_progress] == sorted(done for done, _ in reported_progress)


def test_a_call_longer_than_the_budget_answers_what_to_call_next(
    running_host: InProcessHost, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WARDIAN_MCP_CALL_SECONDS", "1")
    answering_agent(running_host, tmp_path, "quiet")

    async def steps(session: Any) -> list[tuple[bool, dict[str, Any]]]:
        return [
            await call(session, "ask", {"agent": "quiet", "message": "later SILENT"}),
            await call(session, "wait_for_agent", {"agent": "quiet", "until": "error"}),
            await call(session, "ask", {"agent": "quiet", "message": "soon SILENT", "timeout": "500ms"}),
        ]

    (ask_error, asked), (wait_error, waited), (short_error, short) = in_session(running_host, steps)

    assert not ask_error and asked["status"] == "pending" and is_request_id(asked["request_id"])
    assert asked["next"]["tool"] == "show_request"
    assert asked["next"]["arguments"] == {"request_id": asked["request_id"]}
    assert not wait_error and waited["reached"] is False and waited["status"] == "idle"
    assert waited["next"] == {"tool": "wait_for_agent", "arguments": {"agent": "quiet", "until": "error"}} | {
        "why": waited["next"]["why"]
    }
    # A limit of the caller's own, shorter than the budget, ends as the CLI's does.
    assert short_error and short["error"]["code"] == "watch_timeout"


def test_a_reply_through_the_asked_agents_own_mcp_server_is_taken(running_host: InProcessHost, tmp_path: Path) -> None:
    out = tmp_path / "mcp-answers.jsonl"
    command = (sys.executable, str(SUPPORT / "mcp_answering.py"), str(out))
    spawn(running_host, tmp_path, "helper", *command, settings={"prompt_pattern": "mcp-answering> $"})
    wait_until(running_host, "helper", "idle")

    async def steps(session: Any) -> tuple[bool, dict[str, Any]]:
        return await call(session, "ask", {"agent": "helper", "message": "who are you?", "timeout": "60s"})

    is_error, answer = in_session(running_host, steps)
    whoami, replied = (json.loads(line) for line in out.read_text().splitlines())

    assert not is_error
    reply = answer["reply"]
    assert (reply["status"], reply["body"], reply["source"], reply["caller_agent"]) == (
        "done",
        "answered via mcp",
        "agent",
        "helper",
    )
    assert whoami["answer"]["caller"]["verification"] == "verified"
    assert whoami["answer"]["caller"]["agent"]["name"] == "helper"
    assert replied["is_error"] is False


def test_a_reply_from_another_agents_mcp_server_is_refused(running_host: InProcessHost, tmp_path: Path) -> None:
    answering_agent(running_host, tmp_path, "quiet")

    async def asked(session: Any) -> tuple[bool, dict[str, Any]]:
        return await call(session, "ask", {"agent": "quiet", "message": "hold on SILENT", "no_wait": True})

    _, question = in_session(running_host, asked)
    out = tmp_path / "meddler.jsonl"
    command = (sys.executable, str(SUPPORT / "mcp_answering.py"), str(out), question["request_id"])
    spawn(running_host, tmp_path, "meddler", *command)
    wait_until(running_host, "meddler", "off")
    whoami, replied = (json.loads(line) for line in out.read_text().splitlines())

    assert whoami["answer"]["caller"]["verification"] == "verified"
    assert whoami["answer"]["caller"]["agent"]["name"] == "meddler"
    assert replied["is_error"] is True
    error = replied["answer"]["error"]
    assert (error["code"], error["details"]["caller_agent"], error["details"]["verified"]) == (
        "unauthorized",
        "meddler",
        True,
    )


def test_the_relay_imports_neither_the_sdk_nor_pydantic_nor_click() -> None:
    # Each agent's CLI starts one relay: what it loads is paid by every agent.
    heavy = ("mcp", "pydantic", "click", "anyio", "wardian_host.cli", "wardian_host.mcp.catalog")
    code = f"import sys, wardian_host.mcp.relay; print(sorted(name for name in {heavy!r} if name in sys.modules))"

    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout

    assert loaded.strip() == "[]"


def test_the_host_serves_the_tools_without_the_sdk_or_the_clis_click_modules() -> None:
    # The host answers every agent's tools: the SDK is a test dependency only, and the answers
    # come from below the CLI (wardian_host.answers), not from its click commands.
    modules = "wardian_host.daemon.host, wardian_host.daemon.mcp_sessions, wardian_host.mcp.catalog"
    code = (
        f"import sys, {modules}; "
        "print(sorted(name for name in sys.modules if name.split('.')[0] in ('mcp', 'click', 'anyio') "
        "or name.startswith('wardian_host.cli')))"
    )

    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout

    assert loaded.strip() == "[]"


def test_a_host_starts_without_building_the_tools_catalogue() -> None:
    # Some twenty parameter models, built at the first MCP session: every host start (hundreds
    # in a test run) paid for them, with or without an MCP client.
    started = "wardian_host.daemon.process, wardian_host.daemon.host"
    code = f"import sys, {started}; print('wardian_host.mcp.catalog' in sys.modules)"

    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout

    assert loaded.strip() == "False"


def test_the_relay_exits_when_its_client_closes_stdin_even_during_a_call(
    running_host: InProcessHost, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A client that goes away (killed, or it just closes the pipe) must not leave its server
    # behind, still waiting on the host for a call nobody will read.
    spawn(running_host, tmp_path, "sleeper", "sleep", "600")
    monkeypatch.setenv("WARDIAN_MCP_CALL_SECONDS", "600")
    monkeypatch.setenv("WARDIAN_MCP_PROGRESS_SECONDS", "0.1")
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}
    waiting = {"agent": "sleeper", "until": "error", "timeout": "10m"}
    call_params = {"name": "wait_for_agent", "arguments": waiting, "_meta": {"progressToken": 1}}

    async def steps() -> int | None:
        server = await asyncio.create_subprocess_exec(
            WARDIAN,
            "mcp",
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert server.stdin is not None and server.stdout is not None

        def write(message: dict[str, Any]) -> None:
            assert server.stdin is not None
            server.stdin.write(json.dumps({"jsonrpc": "2.0"} | message).encode() + b"\n")

        write({"id": 1, "method": "initialize", "params": hello})
        assert json.loads(await server.stdout.readline())["id"] == 1
        write({"method": "notifications/initialized"})
        write({"id": 2, "method": "tools/call", "params": call_params})
        progress = json.loads(await server.stdout.readline())  # the call is under way, and waits
        assert progress["method"] == "notifications/progress", progress
        server.stdin.close()
        try:
            await asyncio.wait_for(server.wait(), 60)  # a limit for the test only: exit comes at once
        except TimeoutError:
            server.kill()
            await server.wait()
            return None
        return server.returncode

    assert running_host.call(steps()) == 0


def test_a_host_that_refuses_the_session_is_what_each_request_hears(wardian_home: Path) -> None:
    # A host of another version answers `mcp.session` with its refusal: the relay tells each
    # request why, at once, rather than holding the CLI's requests or retrying without end.
    from wardian_core.control import endpoint
    from wardian_core.control.protocol import encode, error_frame

    path = endpoint.serving_socket_path(wardian_home)
    path.parent.mkdir(parents=True, exist_ok=True)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen()
    refusal = {"code": "not_supported", "message": "unknown request kind 'mcp.session'", "hint": "Upgrade the host."}

    def old_host() -> None:
        while True:  # the relay looks for a new host now and then: each is refused the same
            try:
                connection, _ = listener.accept()
            except OSError:
                return  # the test closed the listener
            with connection, connection.makefile("rb") as lines:
                lines.readline()
                connection.sendall(encode(error_frame(1, refusal)))

    threading.Thread(target=old_host, daemon=True).start()
    relay = subprocess.Popen([WARDIAN, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert relay.stdin is not None and relay.stdout is not None
    hello = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "0"}}
    relay.stdin.write(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": hello}).encode() + b"\n")
    relay.stdin.flush()
    answer = json.loads(relay.stdout.readline())
    relay.stdin.close()
    assert relay.wait(timeout=30) == 0
    listener.close()

    assert answer["id"] == 1 and "not_supported" in answer["error"]["message"]
    assert "Upgrade the host." in answer["error"]["message"]
