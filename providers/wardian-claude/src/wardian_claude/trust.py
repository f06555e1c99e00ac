"""Trust for Wardian's own folders in Claude's user config, so a resume does not stop on them.

Claude 2.1.330 asks on a resumed session whether to trust each `--add-dir` root it has
not worked in ("Adding a new directory: … Yes, add it"); a folder trusted in `.claude.json`
(`projects.<dir>.hasTrustDialogAccepted`) covers everything below it. The include roots
all live in the Wardian home, which Wardian owns, so that one folder is marked trusted.
The workspace, the user's code, is never trusted on their behalf.
"""

import json
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path


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
    _replace(config_file, json.dumps(config, indent=2) + "\n")
    return True


def _replace(path: Path, text: str) -> None:
    mode = path.stat().st_mode & 0o777
    fd, temporary = tempfile.mkstemp(dir=path.parent, prefix=".claude.json.wardian-")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
