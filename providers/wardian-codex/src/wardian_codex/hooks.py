"""Codex's hooks (0.169.0): `hooks.json` in the agent's Codex home, trusted by Wardian.

Codex runs hooks found next to its config (`$CODEX_HOME/hooks.json`) only once they are
trusted: `[hooks.state."<hooks.json path>:<event label>:<group>:<handler>"] trusted_hash`
in `config.toml`, where the hash is Codex's fingerprint of the hook's normalized definition
(sha256 of its canonical JSON: keys sorted, no spaces, `async` and `timeout` always present).
A hook with no or a wrong hash is skipped without a word, so the real-CLI tests prove these
fire. Every hook runs Wardian's recorder, which appends the payload to `hooks.jsonl` in
`<agent_dir>/codex/`, the file the host follows as the `codex-hooks` source.
"""

import hashlib
import json
from pathlib import Path
from typing import Any

from wardian_core.provider import SpawnContext
from wardian_core.provider.home import install_recorder, write_if_changed

HOOKS_SOURCE = "codex-hooks"
HOOKS_CONFIG = "hooks.json"
# Event → the label Codex uses in trust keys and hashes.
HOOK_EVENTS = {
    "SessionStart": "session_start",
    "UserPromptSubmit": "user_prompt_submit",
    "PreToolUse": "pre_tool_use",
    "PermissionRequest": "permission_request",
    "PostToolUse": "post_tool_use",
    "Stop": "stop",
    "SessionEnd": "session_end",
}
HOOK_TIMEOUT_SECONDS = 10
# Codex clamps a SessionEnd hook's timeout to 1-3 s (and hashes the clamped value).
SESSION_END_TIMEOUT_SECONDS = 3


def wardian_dir(ctx: SpawnContext) -> Path:
    return ctx.agent_dir / "codex"


def hooks_file(ctx: SpawnContext) -> Path:
    """The JSONL the hooks append to."""
    return wardian_dir(ctx) / "hooks.jsonl"


def _handler(event_name: str, command: str) -> dict[str, Any]:
    timeout = SESSION_END_TIMEOUT_SECONDS if event_name == "SessionEnd" else HOOK_TIMEOUT_SECONDS
    return {"type": "command", "command": command, "timeout": timeout}


def hooks_config(command: str) -> dict[str, Any]:
    """`hooks.json`: every event runs `command`, for every tool (no matcher)."""
    return {"hooks": {name: [{"hooks": [_handler(name, command)]}] for name in HOOK_EVENTS}}


def trusted_hash(label: str, handler: dict[str, Any], matcher: str | None = None) -> str:
    """Codex's fingerprint of one normalized hook (codex-rs `command_hook_hash`)."""
    identity: dict[str, Any] = {"event_name": label, "hooks": [{"async": False, **handler}]}
    if matcher is not None:
        identity["matcher"] = matcher
    canonical = json.dumps(identity, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def trust_entries(config_path: Path, command: str) -> dict[str, Any]:
    """The `hooks.state` table that trusts each hook of `hooks_config(command)` at `config_path`.

    Keyed by the path Codex is given and, where different, the same path with its links
    resolved, in case Codex keys by the real path."""
    paths = dict.fromkeys([str(config_path), str(config_path.resolve())])
    state = {
        f"{path}:{label}:0:0": {"trusted_hash": trusted_hash(label, _handler(name, command))}
        for path in paths
        for name, label in HOOK_EVENTS.items()
    }
    return {"hooks": {"state": state}}


def install(ctx: SpawnContext, codex_home: Path) -> dict[str, Any]:
    """Write the recorder and `hooks.json`; the config entries that trust them."""
    command = install_recorder(wardian_dir(ctx), hooks_file(ctx), fresh_log=ctx.mode == "interactive")
    config_path = codex_home / HOOKS_CONFIG
    write_if_changed(config_path, json.dumps(hooks_config(command), indent=2) + "\n")
    return trust_entries(config_path, command)
