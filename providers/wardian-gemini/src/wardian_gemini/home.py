"""The per-agent Gemini home: `GEMINI_CLI_HOME=<agent_dir>/habitat`, projected from the user's.

Gemini CLI keeps everything under `$GEMINI_CLI_HOME/.gemini` (else `~/.gemini`). Each agent
gets its own, so Wardian's hooks live in an extension of the agent's and never in the user's
folder, and its sessions (`tmp/<project>/chats`) stay apart from the user's and other agents'. From
the user's Gemini folder: sign-in and identity files are linked (one sign-in), `GEMINI.md`
is linked (the user's global instructions), `settings.json` is the user's with the memory of
include directories on. Trust decisions are not copied: every agent reads and writes the
user's own file (trust.py).

Wardian's hooks are an extension's (`extensions/wardian/hooks/hooks.json`): Gemini 0.61 runs
the hooks of settings files only in a trusted folder — it takes them all, the user's too, for
project hooks — and an extension's in any folder, so an agent in a folder the user refused to
trust is still seen. (A system-defaults file would be skipped under a group- or
world-writable folder such as /tmp.)
"""

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from wardian_core.provider import HomePlan, SpawnContext, hookimpl
from wardian_core.provider.home import assigned_skills, install_recorder, link, link_skills, write_if_changed
from wardian_gemini import mcp
from wardian_gemini.trust import carry_to_worktree, trust_wardian_folders, users_trust_file

HOOKS_SOURCE = "gemini-hooks"
# Linked from the user's Gemini folder: sign-in, identity, global instructions.
SHARED_FILES = (
    "oauth_creds.json",
    "google_accounts.json",
    "mcp-oauth-tokens.json",
    "installation_id",
    "user_id",
    "GEMINI.md",
)
# Tool events take a matcher ("*": every tool); lifecycle events ignore it.
TOOL_HOOK_EVENTS = ("BeforeTool", "AfterTool", "Notification")
OTHER_HOOK_EVENTS = ("SessionStart", "BeforeAgent", "AfterAgent", "SessionEnd")
HOOK_NAME = "wardian"
EXTENSION = "wardian"


def user_gemini_dir(env: Mapping[str, str] | None = None) -> Path:
    configured = (os.environ if env is None else env).get("GEMINI_CLI_HOME", "").strip()
    return (Path(configured).expanduser() if configured else Path.home()) / ".gemini"


def agent_home(ctx: SpawnContext) -> Path:
    """What `GEMINI_CLI_HOME` names for this agent; Gemini's own folder is `.gemini` in it."""
    return ctx.agent_dir / "habitat"


def wardian_dir(ctx: SpawnContext) -> Path:
    return ctx.agent_dir / "gemini"


def hooks_file(ctx: SpawnContext) -> Path:
    return wardian_dir(ctx) / "hooks.jsonl"


def debug_log(ctx: SpawnContext) -> Path:
    """Where Gemini writes its debug log (`GEMINI_DEBUG_LOG_FILE`): its own retries are told there."""
    return wardian_dir(ctx) / "debug.log"


def extension_dir(ctx: SpawnContext) -> Path:
    return agent_home(ctx) / ".gemini" / "extensions" / EXTENSION


def install_hooks(directory: Path, command: str) -> None:
    """Wardian's hooks as the extension in `directory`, each running `command`."""
    manifest = {"name": EXTENSION, "version": "1.0.0", "description": "Wardian's status hooks"}
    (directory / "hooks").mkdir(parents=True, exist_ok=True)
    write_if_changed(directory / "gemini-extension.json", json.dumps(manifest, indent=2) + "\n")
    write_if_changed(directory / "hooks" / "hooks.json", json.dumps({"hooks": _hook_groups(command)}, indent=2) + "\n")


def _hook_groups(command: str) -> dict[str, list[dict[str, Any]]]:
    handler = {"type": "command", "command": command, "name": HOOK_NAME}
    groups: dict[str, list[dict[str, Any]]] = {}
    for event in TOOL_HOOK_EVENTS:
        groups[event] = [{"matcher": "*", "hooks": [handler]}]
    for event in OTHER_HOOK_EVENTS:
        groups[event] = [{"hooks": [handler]}]
    return groups


def merged_settings(user_settings: dict[str, Any]) -> dict[str, Any]:
    """The user's settings, the memory of include directories on (their GEMINI.md is read only then)."""
    context = dict(user_settings.get("context") or {}) if isinstance(user_settings.get("context"), dict) else {}
    return user_settings | {"context": context | {"loadMemoryFromIncludeDirectories": True}}


def _read_json(path: Path) -> dict[str, Any]:
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


@hookimpl(specname="prepare_home")
def prepare(ctx: SpawnContext, env: Mapping[str, str] | None = None) -> HomePlan:
    env = os.environ if env is None else env
    user_dir = user_gemini_dir(env)
    gemini_dir = agent_home(ctx) / ".gemini"
    gemini_dir.mkdir(parents=True, exist_ok=True)
    if user_dir.resolve() != gemini_dir.resolve():
        for name in SHARED_FILES:
            if (user_dir / name).exists():
                link(user_dir / name, gemini_dir / name)
    command = install_recorder(wardian_dir(ctx), hooks_file(ctx), fresh_log=ctx.mode == "interactive")
    install_hooks(extension_dir(ctx), command)
    settings = mcp.with_server(merged_settings(_read_json(user_dir / "settings.json")), ctx.mcp)
    write_if_changed(gemini_dir / "settings.json", json.dumps(settings, indent=2) + "\n")
    link_skills(assigned_skills(ctx.include_roots), gemini_dir / "skills")
    trust_file = users_trust_file(user_dir, env)
    trust_wardian_folders(trust_file, ctx.wardian_home)
    carry_to_worktree(trust_file, ctx.workspace)
    # Without it Gemini would keep decisions in the agent's own home, asked again per agent.
    return HomePlan(env={"GEMINI_CLI_HOME": str(agent_home(ctx)), "GEMINI_CLI_TRUSTED_FOLDERS_PATH": str(trust_file)})
