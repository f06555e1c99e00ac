"""Writing files in one step, and never through a link planted in the home.

Files people and other programs also write (settings.toml, a provider's own config) are
written through their link on purpose (a dotfiles checkout). What Wardian alone writes in
its home (locks, logs, start-up scripts) is opened with O_NOFOLLOW and replaced rather
than followed: a link in its place, which someone who could write the folder once left,
must not turn Wardian's writes onto a file of their choosing.
"""

import errno
import os
import stat
from pathlib import Path

from wardian_core.errors import WardianError


def write_atomically(target: Path, text: str) -> None:
    """Replace `target` in one step, so a crash leaves the old file or the new one, never half of one."""
    # Write through a symlink (a dotfiles checkout) instead of replacing the link itself.
    real_target = Path(os.path.realpath(target))
    try:
        mode = real_target.stat().st_mode & 0o777
    except FileNotFoundError:
        mode = 0o600  # a new file is its owner's only (settings.toml sits in a private home)
    _replace(real_target, text, mode)


def replace_file(target: Path, text: str, mode: int = 0o600) -> None:
    """Replace `target` in one step; a link in its place is replaced, never written through."""
    _replace(target, text, mode)


def _replace(target: Path, text: str, mode: int) -> None:
    import tempfile  # with shutil, bz2, lzma and random: writers only, off the CLI's read path

    directory = target.parent
    directory.mkdir(parents=True, exist_ok=True)
    # mkstemp creates with O_EXCL, which never follows a link; os.replace renames over a link itself.
    descriptor, temporary = tempfile.mkstemp(dir=directory, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(descriptor, "wb") as stream:
            stream.write(text.encode("utf-8"))
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
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


def open_unfollowed(path: Path | str, flags: int, mode: int = 0o600) -> int:
    """os.open that refuses (`unauthorized`) a link at `path` instead of opening what it leads to."""
    try:
        return os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, mode)
    except OSError as exc:
        if exc.errno != errno.ELOOP:
            raise
        raise planted_link(Path(path)) from None


def make_folders(base: Path, *parts: str) -> Path:
    """`base/parts...`, each folder below `base` made if missing and refused if it is a link
    (`base` itself, which the caller vouches for, is made with its parents if missing)."""
    base.mkdir(mode=0o700, parents=True, exist_ok=True)
    folder = base
    for part in parts:
        folder = folder / part
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            if stat.S_ISLNK(os.lstat(folder).st_mode):
                raise planted_link(folder) from None
    return folder


def planted_link(path: Path) -> WardianError:
    return WardianError(
        "unauthorized",
        f"{path} is a symbolic link: Wardian does not write through links in its home",
        f"Remove {path} (someone may have planted it); Wardian makes it again itself.",
        {"path": str(path)},
    )
