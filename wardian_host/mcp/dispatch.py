"""One tool call: its arguments checked against the tool's model, the CLI's function run in a
worker thread, and, for a call that waits, progress reported until it answers."""

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

import anyio
import anyio.to_thread
from pydantic import ValidationError

from wardian_core.errors import WardianError
from wardian_host.mcp.catalog import TOOLS, McpTool
from wardian_host.mcp.params import ToolParams

Report = Callable[[float, float | None, str | None], Awaitable[None]]


def unknown_tool(name: str) -> WardianError:
    return WardianError(
        "not_found",
        f"no Wardian tool {name!r}",
        "List the tools (tools/list); docs/mcp.md describes each.",
        {"tool": name, "known": sorted(TOOLS)},
    )


def invalid_arguments(name: str, error: ValidationError) -> WardianError:
    problems = [
        {"field": ".".join(str(part) for part in item["loc"]) or "(arguments)", "problem": item["msg"]}
        for item in error.errors(include_url=False, include_input=False)
    ]
    first = problems[0]
    return WardianError(
        "invalid_field",
        f"invalid arguments for {name}: {first['field']}: {first['problem']}",
        f"Give the arguments the {name} tool's input schema names (as the CLI's flags).",
        {"tool": name, "errors": problems},
    )


def checked(tool: McpTool[Any], arguments: dict[str, Any]) -> ToolParams:
    try:
        params: ToolParams = tool.params.model_validate(arguments)
    except ValidationError as error:
        raise invalid_arguments(tool.name, error) from None
    return params


async def answer_call(name: str, arguments: dict[str, Any], report: Report, every: float) -> dict[str, Any]:
    tool = TOOLS.get(name)
    if tool is None:
        raise unknown_tool(name)
    params = checked(tool, arguments)
    work = partial(tool.run, params)
    if not tool.waits:
        return await _in_thread(work)
    return await _reporting(work, report, every, _waiting_for(name, params))


async def _in_thread(work: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """`work` run in a worker thread, which a cancelled call leaves behind rather than awaits (a
    thread cannot be stopped): the server is going, and its exit ends the thread (`command`)."""
    answer: dict[str, Any] = await anyio.to_thread.run_sync(work, abandon_on_cancel=True)
    return answer


def _waiting_for(name: str, params: ToolParams) -> str:
    agent = getattr(params, "agent", "the agent")
    if name == "ask":
        return f"waiting for {agent} to reply"
    return f"waiting for {agent} to become {getattr(params, 'until', '')}"


async def _reporting(work: Callable[[], dict[str, Any]], report: Report, every: float, what: str) -> dict[str, Any]:
    """`work`'s answer; meanwhile a progress notification every `every` seconds, so the client
    (and a person watching it) sees the call is alive, not hung."""
    answer: dict[str, Any] = {}

    async def beat() -> None:
        waited = 0.0
        while True:
            await anyio.sleep(every)
            waited += every
            await report(waited, None, f"{what} ({waited:g} s)")

    failure: WardianError | None = None
    async with anyio.create_task_group() as group:
        group.start_soon(beat)
        try:
            answer = await _in_thread(work)
        except WardianError as error:
            failure = error  # raised here it would leave the group wrapped in an ExceptionGroup
        group.cancel_scope.cancel()
    if failure is not None:
        raise failure
    return answer
