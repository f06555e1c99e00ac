"""Projection and bootstrap for Claude Code: per-agent hook settings and skill links.

Claude keeps its own home (`CLAUDE_CONFIG_DIR`, else `~/.claude`) so the user's sign-in and
trust decisions stay theirs; Wardian adds, per agent under `agents/<uuid>/claude/`, a
settings file passed with `--settings` whose hooks append every payload to `hooks.jsonl`,
the file the host tails through `approval_source`.
"""

import json
import os
from pathlib import Path

from wardian_claude import mcp
from wardian_claude.trust import carry_to_worktree, claude_config_file, trust_folder
from wardian_claude.usage import TRANSCRIPT_SOURCE_NAME, transcript_file
from wardian_core.provider import HomePlan, OutputSource, SpawnContext, hookimpl
from wardian_core.provider.home import (
    SKILLS_FOLDER,
    HookTarget,
    hook_target,
    include_root_folders,
    install_recorder,
    link,
    write_if_changed,
)

HOOKS_SOURCE_NAME = "claude-hooks"
# Every hook event the parser reads (plus Notification and the failure variants, kept for
# whoever inspects the file). Tool events take a matcher; the others ignore it.
TOOL_HOOK_EVENTS = ("PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure")
OTHER_HOOK_EVENTS = ("SessionStart", "UserPromptSubmit", "Notification", "Stop", "StopFailure", "SessionEnd")
# Claude runs no HTTP hook for these (2.1.197, 2.1.330: "HTTP hooks are not supported for
# SessionStart"): the recorder keeps them.
COMMAND_ONLY_EVENTS = frozenset({"SessionStart"})
HOOK_TIMEOUT_SECONDS = 10


def claude_dir(ctx: SpawnContext) -> Path:
    return ctx.agent_dir / "claude"


def hooks_file(ctx: SpawnContext) -> Path:
    return claude_dir(ctx) / "hooks.jsonl"


def settings_file(ctx: SpawnContext) -> Path:
    return claude_dir(ctx) / "settings.json"


def hook_settings(command: str, target: HookTarget | None = None) -> dict[str, object]:
    """`command`: what each hook runs (the recorder appending to `hooks_file`). With `target`, the
    host's endpoint that appends to the same file, the hooks Claude can post over HTTP go there:
    no process per hook, most of the time from a turn's end to its `idle`."""
    recorder = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT_SECONDS}
    posted = recorder
    if target is not None:
        posted = {"type": "http", "url": target.url, "headers": target.headers, "timeout": HOOK_TIMEOUT_SECONDS}
    hooks: dict[str, list[dict[str, object]]] = {}
    for event in TOOL_HOOK_EVENTS:
        hooks[event] = [{"matcher": "*", "hooks": [posted]}]
    for event in OTHER_HOOK_EVENTS:
        hooks[event] = [{"hooks": [recorder if event in COMMAND_ONLY_EVENTS else posted]}]
    return {"hooks": hooks}


def link_skills(root: Path, home: Path) -> None:
    """Claude discovers skills under `.claude/skills` of each --add-dir root; Wardian keeps them
    in `.agents/skills` there: one link, relative, so the root can move. A `.claude` there that
    leads out of the Wardian `home` is refused: the link would be made outside it."""
    if (root / SKILLS_FOLDER).is_dir():
        link(Path("..") / SKILLS_FOLDER, root / ".claude" / "skills", inside=home)


@hookimpl(specname="prepare_home")
def prepare(ctx: SpawnContext) -> HomePlan:
    directory = claude_dir(ctx)
    directory.mkdir(parents=True, exist_ok=True)
    command = install_recorder(directory, hooks_file(ctx), fresh_log=ctx.mode == "interactive")
    # Headless runs report on stdout; an interactive one posts to the host when it serves hooks.
    target = hook_target(ctx.wardian_home, ctx.agent_uuid, hooks_file(ctx)) if ctx.interactive else None
    settings = hook_settings(command, target) | mcp.permissions(ctx)
    write_if_changed(settings_file(ctx), json.dumps(settings, indent=2) + "\n")
    settings_file(ctx).chmod(0o600)  # it holds the agent's hook token
    mcp.write_config(ctx)
    for root in ctx.include_roots:
        if root.is_dir():
            link_skills(root, ctx.wardian_home)
    if ctx.mode == "interactive":
        config_file = claude_config_file(os.environ)
        for folder in include_root_folders(ctx.wardian_home):
            trust_folder(config_file, folder)
        carry_to_worktree(config_file, ctx.workspace)
    # Claude reads CLAUDE.md from --add-dir roots only with this set (2.1.197).
    return HomePlan(env={"CLAUDE_CODE_ADDITIONAL_DIRECTORIES_CLAUDE_MD": "1"})


@hookimpl(specname="approval_source")
def telemetry_sources(ctx: SpawnContext) -> list[OutputSource]:
    if ctx.mode != "interactive":
        return []  # headless runs report everything on stdout
    hooks = OutputSource(name=HOOKS_SOURCE_NAME, kind="file", path=hooks_file(ctx))
    transcript = transcript_file(ctx, os.environ)
    if transcript is None:
        return [hooks]
    # Read from its start even on a resume: each message is counted once however often it is read.
    return [hooks, OutputSource(name=TRANSCRIPT_SOURCE_NAME, kind="file", path=transcript)]
