"""The per-agent OpenCode configuration: injected through OpenCode's own variables, never written
into the user's repository or their OpenCode folders.

- `OPENCODE_CONFIG` = `agents/<uuid>/opencode/opencode.json`: the user's own `OPENCODE_CONFIG`
  file when they set one (OpenCode replaces, not merges, that layer), plus Wardian's additions:
  the `AGENTS.md` of every include root appended to `instructions`, and the shell permission the
  agent's settings ask for. OpenCode still loads the user's global and project configuration.
- `OPENCODE_CONFIG_DIR` = `agents/<uuid>/opencode/config`: what the user's own config folder holds
  (linked), and the include roots' skills linked into `skills/<name>`, where OpenCode looks.
- The TUI's server (see `server.py`): a port and a password of the agent's, kept in its folder.
"""

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from wardian_core.provider import HomePlan, SpawnContext, WardianError, hookimpl
from wardian_core.provider.home import assigned_skills, link, link_skills, write_if_changed
from wardian_opencode import mcp, server
from wardian_opencode.config_files import read_config
from wardian_opencode.folder import wardian_dir

INSTRUCTION_FILE = "AGENTS.md"
SKILLS = "skills"
# OpenCode reads skills from `skill/` and `skills/` of a config folder: both are merged into ours.
USER_SKILL_FOLDERS = ("skill", "skills")


def config_file(ctx: SpawnContext) -> Path:
    return wardian_dir(ctx) / "opencode.json"


def config_dir(ctx: SpawnContext) -> Path:
    return wardian_dir(ctx) / "config"


def user_config(env: Mapping[str, str]) -> dict[str, Any]:
    """The user's own `OPENCODE_CONFIG` file, or nothing when they set none."""
    configured = env.get("OPENCODE_CONFIG", "").strip()
    if not configured:
        return {}
    path = Path(configured).expanduser()
    try:
        return read_config(path)
    except (OSError, ValueError) as error:
        raise WardianError(
            "request_failed",
            f"cannot read the OpenCode configuration OPENCODE_CONFIG names ({path}): {error}",
            "Fix or unset OPENCODE_CONFIG; Wardian adds its instructions to that file's settings.",
            {"path": str(path)},
        ) from None


def agent_config(ctx: SpawnContext, user: dict[str, Any]) -> dict[str, Any]:
    """The user's configuration with Wardian's additions (theirs first, nothing of theirs dropped)."""
    config = dict(user)
    instructions = [item for item in user.get("instructions") or [] if isinstance(item, str)]
    for root in ctx.include_roots:
        path = str(root / INSTRUCTION_FILE)
        if (root / INSTRUCTION_FILE).is_file() and path not in instructions:
            instructions.append(path)
    if instructions:
        config["instructions"] = instructions
    shell = ctx.launch.settings.get("shell_permission")
    if shell:
        permission = user.get("permission")
        permission = dict(permission) if isinstance(permission, dict) else {"*": permission} if permission else {}
        config["permission"] = permission | {"bash": shell}
    return mcp.with_server(config, ctx.mcp)


def project_user_config_dir(ctx: SpawnContext, env: Mapping[str, str]) -> None:
    """Our config folder: the user's own folder's entries linked, their skills and the roots' in `skills/`."""
    ours = config_dir(ctx)
    ours.mkdir(parents=True, exist_ok=True)
    skills: dict[str, Path] = {}
    configured = env.get("OPENCODE_CONFIG_DIR", "").strip()
    theirs = Path(configured).expanduser() if configured else None
    if theirs is not None and theirs.is_dir() and theirs.resolve() != ours.resolve():
        for entry in sorted(theirs.iterdir()):
            if entry.name in USER_SKILL_FOLDERS and entry.is_dir():
                skills |= {skill.name: skill for skill in sorted(entry.iterdir()) if skill.is_dir()}
            else:
                link(entry, ours / entry.name)
    link_skills(skills | assigned_skills(ctx.include_roots), ours / SKILLS)


def prepare(ctx: SpawnContext, env: Mapping[str, str] | None = None) -> dict[str, str]:
    """Write the agent's configuration; the variables that point OpenCode at it."""
    environ = os.environ if env is None else env
    wardian_dir(ctx).mkdir(parents=True, exist_ok=True)
    config = agent_config(ctx, user_config(environ))
    write_if_changed(config_file(ctx), json.dumps(config, indent=2) + "\n")
    project_user_config_dir(ctx, environ)
    return {"OPENCODE_CONFIG": str(config_file(ctx)), "OPENCODE_CONFIG_DIR": str(config_dir(ctx))}


@hookimpl
def prepare_home(ctx: SpawnContext) -> HomePlan:
    """OpenCode's home, and the local server Wardian reads its events from."""
    return HomePlan(env=prepare(ctx) | server.prepare(ctx))
