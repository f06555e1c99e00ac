"""Which agents' CLIs get `wardian mcp` (settings.toml's [mcp], the provider's capability), how it
is started, and what `providers show` says of it."""

import json
import sys
from pathlib import Path

import pytest
from in_process_agents import ask, spawn, wait_until
from mcp import ClientSession, StdioServerParameters, stdio_client

from wardian_core.control.models import AskParams
from wardian_core.mcp_registration import allowed_tools, mcp_registration, registered_or_why_not
from wardian_core.mcp_tools import COOPERATION_TOOLS, TOOL_NAMES
from wardian_core.provider_models import ProviderInfo
from wardian_core.settings.model import McpSettings
from wardian_host.daemon import host as host_module
from wardian_host.testing.answering_agent import READY_PROMPT
from wardian_host.testing.in_process import InProcessHost

CLAUDE = ProviderInfo(
    name="claude", display_name="Claude Code", contract_version=3, executable="claude",
    session_id_mode="assigned", capabilities=["interactive", "mcp_tools"],
)  # fmt: skip
GENERIC = CLAUDE.model_copy(update={"name": "generic", "display_name": "Generic", "capabilities": ["interactive"]})


def test_a_provider_registers_it_unless_settings_turn_it_off_or_it_cannot() -> None:
    assert registered_or_why_not(McpSettings(), CLAUDE)[0] is True
    assert registered_or_why_not(McpSettings(enabled=False), CLAUDE) == (
        False,
        "turned off in settings.toml (`[mcp] enabled = false`)",
    )
    assert registered_or_why_not(McpSettings(disabled_for="codex,claude"), CLAUDE)[0] is False
    assert registered_or_why_not(McpSettings(disabled_for="codex"), CLAUDE)[0] is True
    assert registered_or_why_not(McpSettings(), GENERIC)[0] is False
    assert mcp_registration(Path("/w"), "u", McpSettings(enabled=False), CLAUDE) is None


def test_the_cooperation_tools_are_allowed_and_settings_add_others() -> None:
    assert allowed_tools(McpSettings()) == list(COOPERATION_TOOLS)
    assert allowed_tools(McpSettings(allowed_tools="spawn_agent,reply")) == [*COOPERATION_TOOLS, "spawn_agent"]
    assert allowed_tools(McpSettings(allowed_tools="all")) == list(TOOL_NAMES)


def test_the_registered_command_starts_this_installations_relay_to_the_host(
    running_host: InProcessHost, wardian_home: Path
) -> None:
    registration = mcp_registration(wardian_home, "0b7e6f3c-1111-4222-8333-444455556666", McpSettings(), CLAUDE)
    assert registration is not None
    assert (registration.command, registration.args) == (sys.executable, ["-m", "wardian_host", "mcp"])
    assert registration.env == {
        "WARDIAN_HOME": str(wardian_home),
        "WARDIAN_SESSION_ID": registration.env["WARDIAN_SESSION_ID"],
    }

    async def server_name() -> str:
        # Only what the registration gives it: the CLIs pass a server little of their own environment.
        given = StdioServerParameters(command=registration.command, args=registration.args, env=registration.env)
        async with stdio_client(given) as (read, write), ClientSession(read, write) as session:
            return (await session.initialize()).server_info.name

    assert running_host.call(server_name()) == "wardian"


def test_providers_show_says_whether_each_registers_it(run_wardian, wardian_home: Path) -> None:
    (wardian_home / "settings.toml").write_text('[mcp]\ndisabled_for = "codex"\n')

    shown = {
        name: json.loads(run_wardian("providers", "show", name).stdout)["provider"]["mcp"]
        for name in ("claude", "codex", "generic")
    }

    assert shown["claude"]["registered"] is True
    assert shown["codex"] == {
        "registered": False,
        "why": "turned off for codex in settings.toml (`[mcp] disabled_for`)",
    }
    assert shown["generic"]["registered"] is False and "mcp_tools" in shown["generic"]["why"]


def test_a_question_to_an_agent_whose_cli_has_the_server_names_its_reply_tool(
    running_host: InProcessHost, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    command = (sys.executable, "-m", "wardian_host.testing.answering_agent")
    spawn(running_host, tmp_path, "oracle", *command, settings={"prompt_pattern": f"{READY_PROMPT.strip()} $"})
    wait_until(running_host, "oracle", "idle")
    # The generic provider registers no server; taken here as one that does.
    monkeypatch.setattr(host_module, "registered_or_why_not", lambda settings, info: (True, "as if"))

    answer = ask(running_host, AskParams(target="oracle", message="what is six times seven?", timeout=20))

    typed = "".join(answer["output"].split())
    assert "the`reply`toolofyour`wardian`MCPserverwithrequest_id" in typed
    assert answer["reply"]["body"] == "answered: what is six times seven?"  # the command still works
