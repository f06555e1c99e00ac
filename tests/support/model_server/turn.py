"""What the fake model does next, decided the same way for every wire protocol.

Each protocol module reduces its request to a `Conversation` (the latest human prompt, whether
the turn's last message is a tool result, the declared tools) and renders the `Answer` back in
its own wire format.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from .directives import ESCALATION_JUSTIFICATION, TOOL_PREAMBLE, Directives, parse_directives

# Names the four CLIs give their shell tool (Claude `Bash`, Codex `shell`/`shell_command`/
# `exec_command`, Gemini `run_shell_command`, OpenCode `bash`), best match first.
SHELL_TOOL_NAMES = (
    "Bash",
    "shell_command",
    "shell",
    "exec_command",
    "run_shell_command",
    "bash",
    "local_shell",
)


@dataclass(frozen=True)
class DeclaredTool:
    name: str
    parameters: dict[str, Any]
    namespace: str | None = None  # the group it was declared in (OpenAI Responses namespaces)


@dataclass(frozen=True)
class Conversation:
    prompt: str
    after_tool_result: bool
    tools: tuple[DeclaredTool, ...] = ()


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any]
    namespace: str | None = None

    def arguments_json(self) -> str:
        return json.dumps(self.arguments)


@dataclass(frozen=True)
class UsageLimit:
    """A usage limit the fake vendor enforces (MOCK_LIMIT): its name and reset, epoch seconds."""

    name: str
    resets_at: int
    retry_after: int | None = None  # MOCK_RETRY_AFTER: what `retry-after` says, not the time left

    def seconds_left(self) -> int:
        return max(0, self.resets_at - int(time.time()))

    def retry_after_seconds(self) -> int:
        return self.seconds_left() if self.retry_after is None else self.retry_after


@dataclass(frozen=True)
class Answer:
    text: str | None = None
    tool_call: ToolCall | None = None
    error_status: int | None = None
    limit: UsageLimit | None = None
    directives: Directives = field(default_factory=Directives)


def decide(conversation: Conversation) -> Answer:
    directives = parse_directives(conversation.prompt)
    # Until the reset every call is refused, as the vendor does; a retry after it goes through.
    if directives.limit_name and directives.limit_resets_at and directives.limit_resets_at > time.time():
        limit = UsageLimit(directives.limit_name, directives.limit_resets_at, directives.limit_retry_after)
        return Answer(limit=limit, directives=directives)
    if directives.error_status is not None:
        return Answer(error_status=directives.error_status, directives=directives)
    if conversation.after_tool_result:
        return Answer(text=directives.tool_done_text(), directives=directives)
    mcp_call = find_mcp_call(conversation.tools, directives)
    if mcp_call is not None:
        return Answer(text=TOOL_PREAMBLE, tool_call=mcp_call, directives=directives)
    command = directives.tool_command
    if command is None and directives.escalate and not directives.missing_request_id:
        command = "true"
    shell = find_shell_tool(conversation.tools)
    # Side requests (titles, summaries, routing) declare no shell tool: answer them with text.
    if command is not None and shell is not None:
        call = ToolCall(shell.name, shell_arguments(shell, command, directives.escalate))
        return Answer(text=TOOL_PREAMBLE, tool_call=call, directives=directives)
    return Answer(text=directives.reply_text(), directives=directives)


def find_mcp_call(tools: tuple[DeclaredTool, ...], directives: Directives) -> ToolCall | None:
    """The call `MOCK_MCP` asks for, to the declared tool of that name under any server prefix."""
    wanted = directives.mcp_tool
    if wanted is None or directives.mcp_arguments is None:
        return None
    for tool in tools:
        if tool.name == wanted or tool.name.endswith("_" + wanted):
            return ToolCall(tool.name, json.loads(directives.mcp_arguments), tool.namespace)
    return None


def find_shell_tool(tools: tuple[DeclaredTool, ...]) -> DeclaredTool | None:
    by_name = {tool.name: tool for tool in tools}
    for name in SHELL_TOOL_NAMES:
        if name in by_name:
            return by_name[name]
    return None


def shell_arguments(tool: DeclaredTool, command: str, escalate: bool) -> dict[str, Any]:
    """Fill the tool's own parameter schema: a string or an argv array, plus optional fields."""
    properties = tool.parameters.get("properties", {}) or {}
    command_key = "cmd" if "cmd" in properties and "command" not in properties else "command"
    command_schema = properties.get(command_key, {})
    if command_schema.get("type") == "array":
        arguments: dict[str, Any] = {command_key: ["bash", "-lc", command]}
    else:
        arguments = {command_key: command}
    if "description" in properties:
        arguments["description"] = "mock tool call"
    if escalate:
        if "sandbox_permissions" in properties:
            arguments["sandbox_permissions"] = "require_escalated"
        elif "with_escalated_permissions" in properties:
            arguments["with_escalated_permissions"] = True
        if "justification" in properties:
            arguments["justification"] = ESCALATION_JUSTIFICATION
    return arguments


def is_context_wrapper(text: str) -> bool:
    """Blocks the CLIs inject as user messages (`<environment_context>`, `<system-reminder>`)."""
    stripped = text.strip()
    return stripped.startswith("<") and stripped.endswith(">")


def chunk_text(text: str, size: int = 8) -> list[str]:
    """Split a reply into small deltas so clients exercise their streaming paths."""
    return [text[index : index + size] for index in range(0, len(text), size)] or [""]
