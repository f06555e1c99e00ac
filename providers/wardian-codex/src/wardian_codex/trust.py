"""A folder trusted in one agent's Codex, carried to the user's own `config.toml`.

Codex 0.169 writes the answer to its trust question (`[projects."<folder>"] trust_level =
"trusted"`, the folder being the workspace's git repository root, else the workspace) into
`CODEX_HOME/config.toml`: for an agent, its own copy (home.py). The next agent's copy is
made from the user's file, so without this every agent in that folder would ask again. In a
linked worktree (docs/worktrees.md) the folder it trusts is the repository's main checkout,
which it reads back for every worktree of that repository (0.169.0, seen through `wardian`).
Only a trust is carried, and only for a folder the user's file says nothing about: a
refusal (Codex writes none) or the user's own `untrusted` never becomes a trust. The
user's file is appended to, so their comments and layout stay; it is replaced whole.
"""

import logging
import tomllib
from pathlib import Path
from typing import Any

import tomli_w

from wardian_core.provider import ProviderEvent
from wardian_core.provider.home import linked_worktree, write_atomically

log = logging.getLogger(__name__)

TRUSTED = "trusted"


def _projects(config: dict[str, Any]) -> dict[str, Any]:
    projects = config.get("projects")
    return projects if isinstance(projects, dict) else {}


def covering_folders(workspace: Path) -> list[Path]:
    """The folders whose trust covers `workspace` as Codex 0.169 reads its projects: the
    workspace and those above it and, in a linked worktree, its repository's main checkout and
    those above that."""
    found = linked_worktree(workspace)
    starts = (workspace, workspace.resolve(), *(found[1:] if found else ()))
    return [folder for start in starts for folder in (start, *start.parents)]


def trusted_for(workspace: Path, agent_config: dict[str, Any]) -> list[str]:
    """The folders the agent's config trusts that cover `workspace` (covering_folders)."""
    covering = {str(folder) for folder in covering_folders(workspace)}
    return [
        folder
        for folder, entry in _projects(agent_config).items()
        if folder in covering and isinstance(entry, dict) and entry.get("trust_level") == TRUSTED
    ]


def _read(path: Path) -> tuple[str, dict[str, Any]] | None:
    """The file's text and its table; empty for a missing file, None for one that cannot be read
    (never written over: it is the user's)."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return "", {}
    except (OSError, UnicodeDecodeError):
        return None
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


def with_trust(text: str, config: dict[str, Any], folders: list[str]) -> str:
    """`text` with each folder trusted: appended as tables, or the whole file written anew when
    appending would not parse (e.g. `projects` written inline)."""
    tables = tomli_w.dumps({"projects": {folder: {"trust_level": TRUSTED} for folder in folders}})
    appended = (text.rstrip("\n") + "\n\n" if text.strip() else "") + tables
    try:
        kept = _projects(tomllib.loads(appended))
    except tomllib.TOMLDecodeError:
        kept = {}
    if all(kept.get(folder) == {"trust_level": TRUSTED} for folder in folders):
        return appended
    projects = _projects(config) | {folder: {"trust_level": TRUSTED} for folder in folders}
    return tomli_w.dumps(config | {"projects": projects})


def carry_to_user(workspace: Path, agent_home: Path, user_home: Path) -> list[str]:
    """Trust in the user's config what the agent's Codex trusted for `workspace`; the folders carried."""
    agent = _read(agent_home / "config.toml")
    user_file = user_home / "config.toml"
    user = _read(user_file)
    if agent is None or user is None:
        return []
    text, config = user
    folders = [folder for folder in trusted_for(workspace, agent[1]) if folder not in _projects(config)]
    if folders:
        write_atomically(user_file, with_trust(text, config, folders))
        log.info("codex: trust of %s carried to %s", folders, user_file)
    return folders


def is_trust_accepted(event: ProviderEvent | None, answered_rule: str) -> bool:
    """`event` is Codex's trust question answered with a trust (the screen rule `answered_rule`)."""
    return (
        event is not None
        and event.kind == "approval_resolved"
        and event.answer == "accepted"
        and event.evidence.rule == answered_rule
    )
