"""Replacing a file in one step, for files people and other programs also write."""

import os
import tempfile
from pathlib import Path


def write_atomically(target: Path, text: str) -> None:
    """Replace `target` in one step, so a crash leaves the old file or the new one, never half of one."""
    # Write through a symlink (a dotfiles checkout) instead of replacing the link itself.
    real_target = Path(os.path.realpath(target))
    directory = real_target.parent
    directory.mkdir(parents=True, exist_ok=True)
    try:
        mode = real_target.stat().st_mode & 0o777
    except FileNotFoundError:
        mode = 0o600  # a new file is its owner's only (settings.toml sits in a private home)
    descriptor, temporary = tempfile.mkstemp(dir=directory, prefix=f".{real_target.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(text.encode("utf-8"))
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, real_target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    if os.name == "posix":
        # Make the rename itself durable.
        directory_descriptor = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(directory_descriptor)
        finally:
            os.close(directory_descriptor)
