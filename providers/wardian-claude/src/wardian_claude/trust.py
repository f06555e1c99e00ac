"""Trust for Wardian's own folders in Claude's user config, so a resume does not stop on them.

Claude 2.1.330 asks on a resumed session whether to trust each `--add-dir` root it has
not worked in ("Adding a new directory: … Yes, add it"); a folder trusted in `.claude.json`
(`projects.<dir>.hasTrustDialogAccepted`) covers everything below it. The include roots
all live in three folders of the Wardian home (common, classes, agents), which Wardian owns,
so those are marked trusted: not the whole home, which also holds agents' worktrees of the
user's code. The workspace, the user's code, is never trusted on their behalf; a worktree
Wardian made of a repository the user trusted is that repository's code, and is trusted as it
(2.1.330 rules so itself, 2.1.197 would ask again for every worktree).
"""

import json
from collections.abc import Mapping
from pathlib import Path

from wardian_core.provider.home import linked_worktree, write_atomically


def claude_config_file(environ: Mapping[str, str]) -> Path:
    config_dir = environ.get("CLAUDE_CONFIG_DIR")
    if config_dir:
        return Path(config_dir) / ".claude.json"
    return Path(environ.get("HOME") or Path.home()) / ".claude.json"


def trust_folder(config_file: Path, folder: Path) -> bool:
    """Mark `folder` trusted; True when the file was changed.

    Only an existing, readable config is touched (no config means Claude was never set up,
    and its first run is the user's), and it is replaced whole, never half-written."""
    try:
        text = config_file.read_text(encoding="utf-8")
        config = json.loads(text)
    except (OSError, ValueError):
        return False
    if not isinstance(config, dict):
        return False
    projects = config.setdefault("projects", {})
    if not isinstance(projects, dict):
        return False
    entry = projects.setdefault(str(folder), {})
    if not isinstance(entry, dict) or entry.get("hasTrustDialogAccepted") is True:
        return False
    entry["hasTrustDialogAccepted"] = True
    write_atomically(config_file, json.dumps(config, indent=2) + "\n")
    return True


def carry_to_worktree(config_file: Path, workspace: Path) -> bool:
    """Trust the linked worktree holding `workspace` when the user trusted its repository (or a
    folder above it); True when the file was changed."""
    found = linked_worktree(workspace)
    if found is None:
        return False
    top, main = found
    try:
        projects = json.loads(config_file.read_text(encoding="utf-8")).get("projects")
    except (OSError, ValueError, AttributeError):
        return False
    if not isinstance(projects, dict):
        return False
    trusted = any(
        isinstance(entry := projects.get(str(folder)), dict) and entry.get("hasTrustDialogAccepted") is True
        for folder in (main, *main.parents)
    )
    return trusted and trust_folder(config_file, top)
