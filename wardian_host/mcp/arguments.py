"""A tool call's name and arguments, checked before anything runs: an unknown tool is
`not_found`, an argument its model does not take (or lacks, or of the wrong type) `invalid_field`,
each with the envelope a bad flag gets on the CLI."""

from typing import Any

from pydantic import ValidationError

from wardian_core.errors import WardianError
from wardian_host.mcp.catalog import TOOLS, McpTool
from wardian_host.mcp.params import ToolParams


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
