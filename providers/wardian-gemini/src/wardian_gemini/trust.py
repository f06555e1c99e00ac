"""Folder trust: one file of decisions, the user's, read and written by every agent.

Gemini CLI keeps its trust decisions in `trustedFolders.json` of the user's Gemini folder
(`GEMINI_CLI_TRUSTED_FOLDERS_PATH` when the user set it): a path → `TRUST_FOLDER`,
`TRUST_PARENT` or `DO_NOT_TRUST`, the longest matching rule deciding for a folder and all
below it (0.61.0, `packages/core/src/utils/trust.ts`). Each agent is pointed at that same
file, so an answer given in one agent — trust or refusal, exactly as Gemini records it —
holds for the next agent and for Gemini outside Wardian, and a decision made outside
Wardian holds in every agent: nobody answers the same question once per agent.

Wardian adds rules of its own for the three folders of its home that hold every include root
(common, classes, agents), trusted, so those roots never ask: after a trust answer restarts
Gemini in a trusted workspace, an include directory no rule decides opens a second question
("Do you want to trust ...?") that would take the next message typed. Not the whole home:
it also holds worktrees of the user's code. A rule the user has for one of those very paths is
theirs and stays, whatever it says; the user's code is never trusted on their behalf.

A worktree Wardian made (docs/worktrees.md) gets the decision the user's rules make for the
repository it was made from — trusted or refused — in a rule of its own: it is that
repository's code, and would otherwise be asked about once per worktree. A repository no rule
decides leaves its worktrees to Gemini, which asks.
"""

import contextlib
import json
import os
import time
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from wardian_core.provider.home import include_root_folders, linked_worktree, write_atomically

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


def trust_wardian_folders(trust_file: Path, wardian_home: Path) -> bool:
    """Add the home's include-root folders, trusted, to `trust_file`; True when the file was changed.

    A user who refused the home itself is heard: nothing is added. Wardian before these rules
    trusted its whole home (`<home>: TRUST_FOLDER`), and so every worktree under it: that rule
    is replaced when the folder rules are first written. A file Gemini itself would refuse (not a
    JSON object: it may hold comments, which Gemini accepts and Python's json does not) is left
    as it is."""
    folders = [str(folder.resolve()) for folder in include_root_folders(wardian_home)]
    home = str(wardian_home.resolve())
    with _gemini_lock(trust_file):
        rules = _read_object(trust_file)
        if rules is None or rules.get(home) == "DO_NOT_TRUST" or all(folder in rules for folder in folders):
            return False
        if rules.get(home) == TRUST_FOLDER and not any(folder in rules for folder in folders):
            rules = {path: level for path, level in rules.items() if path != home}
        added = {folder: TRUST_FOLDER for folder in folders if folder not in rules}
        write_atomically(trust_file, json.dumps(rules | added, indent=2))
    return True


def carry_to_worktree(trust_file: Path, workspace: Path) -> bool:
    """Give the linked worktree holding `workspace` the decision the rules make for its
    repository, when they make one and say nothing of the worktree's own folder; True when the
    file was changed."""
    found = linked_worktree(workspace)
    if found is None:
        return False
    top, main = (Path(os.path.realpath(folder)) for folder in found)
    with _gemini_lock(trust_file):
        rules = _read_object(trust_file)
        decision = None if rules is None or str(top) in rules else _decision(rules, main)
        if rules is None or decision is None:
            return False
        write_atomically(trust_file, json.dumps(rules | {str(top): decision}, indent=2))
    return True


def _decision(rules: dict[str, Any], folder: Path) -> str | None:
    """TRUST_FOLDER or DO_NOT_TRUST as the longest rule holding `folder` decides, as Gemini reads
    the file (by the length of the rule's own path); None when no rule holds it."""
    holding = [(len(path), level) for path, level in rules.items() if _holds(path, level, folder)]
    if not holding:
        return None
    return "DO_NOT_TRUST" if max(holding)[1] == "DO_NOT_TRUST" else TRUST_FOLDER


def workspace_decision(gemini_dir: Path, env: Mapping[str, str], workspace: Path) -> str | None:
    """TRUST_FOLDER or DO_NOT_TRUST as the user's file decides `workspace` now; None when no rule
    holds it (or the file holds no object)."""
    rules = _read_object(users_trust_file(gemini_dir, env)) or {}
    return _decision(rules, Path(os.path.realpath(workspace)))


def path_trust(gemini_dir: Path, env: Mapping[str, str], workspace: Path) -> tuple[bool | None, str]:
    """Whether Gemini trusts `workspace` now, and what decided, in the order of its checkPathTrust
    (0.61.0): the environment, then folder trust off (every folder trusted), then the user's file
    (a rule's folder, or its parent for TRUST_PARENT, at or above it); None: nothing decides, and
    Gemini asks."""
    if env.get(RESTRICTED_VARIABLE) == "true":
        return False, f"{RESTRICTED_VARIABLE}=true"
    if env.get(TRUST_VARIABLE) in ("true", "false"):
        return env[TRUST_VARIABLE] == "true", f"{TRUST_VARIABLE}={env[TRUST_VARIABLE]}"
    if _folder_trust_off(gemini_dir / "settings.json"):
        return True, "folder trust is off"
    decision = workspace_decision(gemini_dir, env, workspace)
    if decision is None:
        return None, "no rule of the trust file holds it"
    trusted = decision != "DO_NOT_TRUST"
    verb = "trusts" if trusted else "does not trust"
    return trusted, f"the trust file {users_trust_file(gemini_dir, env)} {verb} {workspace}"


def question_expected(gemini_dir: Path, env: Mapping[str, str], workspace: Path) -> bool:
    """Whether Gemini will ask about `workspace`: nothing decides its trust."""
    return path_trust(gemini_dir, env, workspace)[0] is None


def untrusted_why(gemini_dir: Path, env: Mapping[str, str], workspace: Path) -> str | None:
    """Why Gemini runs `workspace` untrusted now; None when trusted or still undecided."""
    trusted, why = path_trust(gemini_dir, env, workspace)
    return why if trusted is False else None


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
