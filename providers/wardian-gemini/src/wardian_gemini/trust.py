"""Folder trust: one file of decisions, the user's, read and written by every agent.

Gemini CLI keeps its trust decisions in `trustedFolders.json` of the user's Gemini folder
(`GEMINI_CLI_TRUSTED_FOLDERS_PATH` when the user set it): a path → `TRUST_FOLDER`,
`TRUST_PARENT` or `DO_NOT_TRUST`, the longest matching rule deciding for a folder and all
below it (0.61.0, `packages/core/src/utils/trust.ts`). Each agent is pointed at that same
file, so an answer given in one agent — trust or refusal, exactly as Gemini records it —
holds for the next agent and for Gemini outside Wardian, and a decision made outside
Wardian holds in every agent: nobody answers the same question once per agent.

Wardian adds one rule of its own: its home, where the include roots live (common, classes,
agents), trusted, so those roots never ask. A rule the user has for that very path is theirs
and stays, whatever it says; the user's code is never trusted on their behalf. A worktree
Wardian made (docs/worktrees.md) is trusted when the user's rules trust the repository it was
made from: it is that repository's code, and would otherwise be asked about once per worktree.
"""

import contextlib
import json
import os
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from wardian_core.atomic_files import write_atomically
from wardian_core.worktrees.checkout import linked_worktree

TRUSTED_FOLDERS = "trustedFolders.json"
TRUST_FOLDER = "TRUST_FOLDER"
TRUST_PARENT = "TRUST_PARENT"
LEVELS = (TRUST_FOLDER, TRUST_PARENT, "DO_NOT_TRUST")
# These decide every folder before the file is read (0.61.0, checkPathTrust).
TRUST_VARIABLE, RESTRICTED_VARIABLE = "GEMINI_CLI_TRUST_WORKSPACE", "GEMINI_RESTRICTED_MODE"
# Gemini writes the file under proper-lockfile's lock, a folder `<file>.lock` it counts as
# stale after 10 s; Wardian takes the same lock so neither loses the other's rule.
LOCK_STALE_SECONDS = 10.0
LOCK_WAIT_SECONDS = 1.0
LOCK_RETRY_SECONDS = 0.05


def users_trust_file(gemini_dir: Path, env: Mapping[str, str]) -> Path:
    """Where Gemini keeps the user's decisions: their own override, else their Gemini folder's file."""
    configured = env.get("GEMINI_CLI_TRUSTED_FOLDERS_PATH", "").strip()
    return Path(configured).expanduser() if configured else gemini_dir / TRUSTED_FOLDERS


def trust_wardian_home(trust_file: Path, wardian_home: Path) -> bool:
    """Add Wardian's home, trusted, to `trust_file`; True when the file was changed.

    A file Gemini itself would refuse (not a JSON object: it may hold comments, which Gemini
    accepts and Python's json does not) is left as it is."""
    folder = str(wardian_home.resolve())
    with _gemini_lock(trust_file):
        rules = _read_object(trust_file)
        if rules is None or folder in rules:
            return False
        write_atomically(trust_file, json.dumps(rules | {folder: TRUST_FOLDER}, indent=2))
    return True


def carry_to_worktree(trust_file: Path, workspace: Path) -> bool:
    """Trust the linked worktree holding `workspace` when the rules trust its repository and say
    nothing of the worktree's own folder; True when the file was changed."""
    found = linked_worktree(workspace)
    if found is None:
        return False
    top, main = (Path(os.path.realpath(folder)) for folder in found)
    with _gemini_lock(trust_file):
        rules = _read_object(trust_file)
        if rules is None or str(top) in rules or not _trusts(rules, main):
            return False
        write_atomically(trust_file, json.dumps(rules | {str(top): TRUST_FOLDER}, indent=2))
    return True


def _trusts(rules: dict[str, Any], folder: Path) -> bool:
    """The longest rule holding `folder` trusts it, as Gemini reads the file."""
    holding = [(len(path), level) for path, level in rules.items() if _holds(path, level, folder)]
    return bool(holding) and max(holding)[1] != "DO_NOT_TRUST"


def question_expected(gemini_dir: Path, env: Mapping[str, str], workspace: Path) -> bool:
    """Whether Gemini will ask about `workspace`: folder trust on (the default) and no rule of the
    user's file holding it (a rule's folder, or its parent for TRUST_PARENT, at or above it)."""
    if env.get(TRUST_VARIABLE) in ("true", "false") or env.get(RESTRICTED_VARIABLE) == "true":
        return False
    if _folder_trust_off(gemini_dir / "settings.json"):
        return False
    rules = _read_object(users_trust_file(gemini_dir, env)) or {}
    real = Path(os.path.realpath(workspace))
    return not any(_holds(path, level, real) for path, level in rules.items())


def _folder_trust_off(settings_file: Path) -> bool:
    security = (_read_object(settings_file) or {}).get("security")
    folder_trust = security.get("folderTrust") if isinstance(security, dict) else None
    return isinstance(folder_trust, dict) and folder_trust.get("enabled") is False


def _holds(path: str, level: Any, folder: Path) -> bool:
    if level not in LEVELS:
        return False
    ruled = Path(os.path.realpath(os.path.dirname(path) if level == TRUST_PARENT else path))
    return folder == ruled or ruled in folder.parents


def _read_object(path: Path) -> dict[str, Any] | None:
    """The file's JSON object ({} when there is no file yet), or None when it holds none: not
    Wardian's to rewrite."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


@contextlib.contextmanager
def _gemini_lock(trust_file: Path) -> Iterator[None]:
    """Hold proper-lockfile's lock folder for `trust_file` while reading and replacing it."""
    lock = trust_file.with_name(trust_file.name + ".lock")
    trust_file.parent.mkdir(parents=True, exist_ok=True)
    held = _take(lock)
    try:
        yield
    finally:
        if held:
            with contextlib.suppress(OSError):
                os.rmdir(lock)


def _take(lock: Path) -> bool:
    """Take the lock (a stale one taken over); False when a live writer still holds it after a
    short wait: the write then goes ahead unlocked rather than stall the launch or break theirs."""
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    while time.monotonic() < deadline:
        try:
            os.mkdir(lock)
            return True
        except FileExistsError:
            if _is_stale(lock) and _removed(lock):
                continue
        # The one wait in a launch: another writer holds the file for a few milliseconds.
        time.sleep(LOCK_RETRY_SECONDS)
    return False


def _removed(lock: Path) -> bool:
    try:
        os.rmdir(lock)
    except OSError:
        return False
    return True


def _is_stale(lock: Path) -> bool:
    try:
        return time.time() - lock.stat().st_mtime > LOCK_STALE_SECONDS
    except OSError:
        return False
