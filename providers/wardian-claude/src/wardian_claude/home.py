"""Projection and bootstrap for Claude Code: per-agent hook settings and skill links.

Claude keeps its own home (`CLAUDE_CONFIG_DIR`, else `~/.claude`) so the user's sign-in and
trust decisions stay theirs; Wardian adds, per agent under `agents/<uuid>/claude/`, a
settings file passed with `--settings` whose hooks append every payload to `hooks.jsonl`,
the file the host tails through `approval_source`.
"""

import json
import os
import shlex
import sys
from pathlib import Path

from wardian_claude.trust import claude_config_file, trust_folder
from wardian_core.provider_homes import SKILLS_FOLDER, link
from wardian_core.provider_models import HomePlan, SpawnContext

HOOKS_SOURCE_NAME = "claude-hooks"
# Every hook event the parser reads (plus Notification and the failure variants, kept for
# whoever inspects the file). Tool events take a matcher; the others ignore it.
TOOL_HOOK_EVENTS = ("PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure")
OTHER_HOOK_EVENTS = ("SessionStart", "UserPromptSubmit", "Notification", "Stop", "StopFailure", "SessionEnd")
HOOK_TIMEOUT_SECONDS = 10

# Appends the payload Claude writes to stdin as one JSON line, in one write, so hooks that
# run at the same time cannot interleave their lines.
RECORD_HOOK_SCRIPT = '''\
"""Written by wardian-claude: appends one Claude hook payload to the JSONL file in argv[1]."""
import json, os, sys
data = sys.stdin.buffer.read()
try:
    record = json.loads(data)
except ValueError:
    record = {"hook_event_name": "unreadable", "raw": data.decode("utf-8", "replace")[:2000]}
line = json.dumps(record, separators=(",", ":")).encode() + b"\\n"
fd = os.open(sys.argv[1], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
try:
    os.write(fd, line)
finally:
    os.close(fd)
'''


def claude_dir(ctx: SpawnContext) -> Path:
    return ctx.agent_dir / "claude"


def hooks_file(ctx: SpawnContext) -> Path:
    return claude_dir(ctx) / "hooks.jsonl"


def settings_file(ctx: SpawnContext) -> Path:
    return claude_dir(ctx) / "settings.json"


def hook_settings(ctx: SpawnContext) -> dict[str, object]:
    script = claude_dir(ctx) / "record_hook.py"
    # -I -S: no site packages or user environment to load, so each hook costs a bare interpreter.
    command = " ".join(shlex.quote(part) for part in (sys.executable, "-I", "-S", str(script), str(hooks_file(ctx))))
    handler = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECONDS}
    hooks: dict[str, list[dict[str, object]]] = {}
    for event in TOOL_HOOK_EVENTS:
        hooks[event] = [{"matcher": "*", "hooks": [handler]}]
    for event in OTHER_HOOK_EVENTS:
        hooks[event] = [{"hooks": [handler]}]
    return {"hooks": hooks}


def _write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def link_skills(root: Path) -> None:
    """Claude discovers skills under `.claude/skills` of each --add-dir root; Wardian keeps them
    in `.agents/skills` there: one link, relative, so the root can move."""
    if (root / SKILLS_FOLDER).is_dir():
        link(Path("..") / SKILLS_FOLDER, root / ".claude" / "skills")


def prepare(ctx: SpawnContext) -> HomePlan:
    directory = claude_dir(ctx)
    directory.mkdir(parents=True, exist_ok=True)
    _write_if_changed(directory / "record_hook.py", RECORD_HOOK_SCRIPT)
    _write_if_changed(settings_file(ctx), json.dumps(hook_settings(ctx), indent=2) + "\n")
    if ctx.mode == "interactive":
        # The host reads the hook file from its start: a new launch (resumed sessions keep
        # their id) must not replay the last one's Stop or SessionEnd.
        hooks_file(ctx).write_bytes(b"")
        os.chmod(hooks_file(ctx), 0o600)
    for root in ctx.include_roots:
        if root.is_dir():
            link_skills(root)
    if ctx.mode == "interactive":
        trust_folder(claude_config_file(os.environ), ctx.wardian_home)
    # Claude reads CLAUDE.md from --add-dir roots only with this set (2.1.197).
    return HomePlan(env={"CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD": "1"})
