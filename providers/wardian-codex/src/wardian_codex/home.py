"""The per-agent Codex home: `<agent_dir>/habitat/.codex`, projected from the user's own.

Shared with the user's Codex home (found through `CODEX_HOME`, else `~/.codex`): `auth.json`
and `cap_sid` (symlinked, so a sign-in is seen everywhere) and `config.toml` (merged: what
Codex wrote into the agent's copy, then the user's keys, then Wardian's own entries, which
win). Everything else Codex writes -- sessions, history, `session_index.jsonl`, the SQLite
databases and their WAL files, logs, cache, temp -- stays per agent, never linked across
homes. Skills found in the include roots are linked into `skills/<name>`; Wardian's own
`hooks.json` (hooks.py) is written there and trusted in `config.toml`.
"""

import os
import shutil
import sys
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import tomli_w

from wardian_codex import hooks, mcp, reach
from wardian_core.provider import HomePlan, SpawnContext, hookimpl
from wardian_core.provider.home import SERVER_NAME, assigned_skills, link, link_skills, linked_worktree

SHARED_FILES = ("auth.json", "cap_sid")
# Windows elevated-sandbox support (Codex's `.sandbox*` folders): the secrets and helper
# binaries are shared, the setup marker copied, `.sandbox` itself (logs, errors) kept local.
WINDOWS_SHARED = (".sandbox-secrets", ".sandbox-bin")
WINDOWS_COPIED = (".sandbox/setup_marker.json",)
INSTRUCTION_FILE = "AGENTS.md"
# Codex's own bundled skills live here; Wardian never touches them.
SYSTEM_SKILLS = ".system"


def user_codex_home(env: Mapping[str, str] | None = None) -> Path:
    configured = (os.environ if env is None else env).get("CODEX_HOME", "").strip()
    return Path(configured).expanduser() if configured else Path.home() / ".codex"


def agent_codex_home(ctx: SpawnContext) -> Path:
    """Keyed by the Wardian id, which exists before Codex's thread id does."""
    return ctx.agent_dir / "habitat" / ".codex"


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return {}


def _merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in over.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            merged[key] = _merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def trusted_by_a_parent(workspace: Path, projects: Any) -> bool:
    """The user trusted a folder above the workspace, and nothing nearer says otherwise.

    Codex 0.169 asks again for a folder below a trusted one; a person who trusted their
    source tree means everything in it. A linked worktree is its repository's code: what
    counts is a folder above the repository's main checkout (Codex itself reads that checkout's
    own entry for its worktrees), never one above the worktree's folder, which may be the
    Wardian home."""
    if not isinstance(projects, dict):
        return False
    found = linked_worktree(workspace)
    start = found[1] if found else workspace
    for folder in [start, *start.parents]:
        entry = projects.get(str(folder))
        if isinstance(entry, dict) and "trust_level" in entry:
            return folder != start and entry["trust_level"] == "trusted"
    return False


def wardian_entries(
    ctx: SpawnContext, user_config: dict[str, Any], env: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """What Wardian itself sets in the agent's config.toml; these win over the user's keys."""
    entries = reach.config_entries(ctx, user_config, os.environ if env is None else env) | mcp.config_entries(ctx)
    if ctx.launch.settings.get("trust_workspace") or trusted_by_a_parent(ctx.workspace, user_config.get("projects")):
        # Trust binds to the real workspace Codex runs in (`--cd`), never to the habitat.
        entries["projects"] = {str(ctx.workspace): {"trust_level": "trusted"}}
    return entries


def _drop_stale_hook_trust(config: dict[str, Any], hook_trust: dict[str, Any]) -> dict[str, Any]:
    """Without the trust entries of Wardian's `hooks.json` that `hook_trust` no longer names
    (an older recorder command): the others (the user's, Codex's) stay."""
    state = config.get("hooks", {}).get("state") if isinstance(config.get("hooks"), dict) else None
    ours = hook_trust["hooks"]["state"]
    if not isinstance(state, dict):
        return config
    prefixes = tuple({key.rsplit(":", 3)[0] + ":" for key in ours})
    kept = {key: value for key, value in state.items() if key in ours or not key.startswith(prefixes)}
    return config | {"hooks": config["hooks"] | {"state": kept}}


def write_config(
    ctx: SpawnContext,
    user_home: Path,
    codex_home: Path,
    hook_trust: dict[str, Any],
    env: Mapping[str, str] | None = None,
) -> None:
    """`hook_trust`: the `hooks.state` entries that trust Wardian's hooks."""
    target = codex_home / "config.toml"
    # Keep what Codex wrote into the agent's copy (e.g. trust accepted in its dialog), let the
    # user's current file update it, and put Wardian's entries on top.
    user_config = _read_toml(user_home / "config.toml")
    config = _drop_stale_hook_trust(_merge(_read_toml(target), user_config), hook_trust)
    config = mcp.without_stale_server(config, user_config, SERVER_NAME)
    config = _merge(config, _merge(wardian_entries(ctx, user_config, env), hook_trust))
    text = tomli_w.dumps(config)
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        target.write_text(text, encoding="utf-8")


def project_shared_files(user_home: Path, codex_home: Path, windows: bool) -> None:
    names = SHARED_FILES + (WINDOWS_SHARED if windows else ())
    for name in names:
        source = user_home / name
        if source.exists():
            link(source, codex_home / name)
    if windows:
        for relative in WINDOWS_COPIED:
            source = user_home / relative
            if source.is_file():
                (codex_home / relative).parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(source, codex_home / relative)


def project_skills(ctx: SpawnContext, codex_home: Path) -> None:
    """Codex reads skills from `CODEX_HOME/skills`."""
    link_skills(assigned_skills(ctx.include_roots), codex_home / "skills")


def write_instructions(ctx: SpawnContext, user_home: Path, codex_home: Path) -> None:
    """`CODEX_HOME/AGENTS.md`, Codex's global instructions: the user's, then each include root's."""
    sources = [user_home / INSTRUCTION_FILE, *(root / INSTRUCTION_FILE for root in ctx.include_roots)]
    parts = [
        source.read_text(encoding="utf-8", errors="replace").rstrip("\n") for source in sources if source.is_file()
    ]
    target = codex_home / INSTRUCTION_FILE
    if not parts:
        if target.is_file():
            target.unlink()
        return
    text = "\n\n".join(parts) + "\n"
    if not target.is_file() or target.read_text(encoding="utf-8") != text:
        target.write_text(text, encoding="utf-8")


@hookimpl(specname="prepare_home")
def prepare(ctx: SpawnContext, env: dict[str, str] | None = None, windows: bool | None = None) -> HomePlan:
    windows = sys.platform == "win32" if windows is None else windows
    user_home = user_codex_home(env)
    codex_home = agent_codex_home(ctx)
    codex_home.mkdir(parents=True, exist_ok=True)
    if user_home.resolve() != codex_home.resolve():
        project_shared_files(user_home, codex_home, windows)
    write_config(ctx, user_home, codex_home, hooks.install(ctx, codex_home), env)
    reach.write_rules(codex_home)
    project_skills(ctx, codex_home)
    write_instructions(ctx, user_home, codex_home)
    return HomePlan(env={"CODEX_HOME": str(codex_home)})
