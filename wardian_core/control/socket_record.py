"""Where the host of a long home put its socket, recorded in the home for every other process.

A home whose `run/control.sock` is too long for a socket address has its socket in the
host's runtime folder, which depends on the host's own environment (XDG_RUNTIME_DIR). A
CLI, or an agent, with another environment would look elsewhere and find no host; so
the host records the path it bound in `run/control-socket.json`, and every other process
reads it there. The record sits in the owner-only home and is read without following a
link; the folder it names is checked again before any connect, as is the server's uid.
"""

import os
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from wardian_core import paths
from wardian_core.atomic_files import open_unfollowed, replace_file

RECORD_NAME = "control-socket.json"
MAX_RECORD_BYTES = 4096


class SocketRecord(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    socket: str  # the absolute path the host bound


def record_path(home: Path) -> Path:
    return paths.run_dir(home) / RECORD_NAME


def write(home: Path, socket: Path) -> None:
    replace_file(record_path(home), SocketRecord(socket=os.fspath(socket)).model_dump_json() + "\n")


def read(home: Path) -> Path | None:
    """The socket path the host recorded; None when none is recorded or the record is unusable."""
    try:
        descriptor = open_unfollowed(record_path(home), os.O_RDONLY)
    except (FileNotFoundError, NotADirectoryError):
        return None
    try:
        text = os.read(descriptor, MAX_RECORD_BYTES)
    finally:
        os.close(descriptor)
    try:
        socket = Path(SocketRecord.model_validate_json(text).socket)
    except ValidationError:
        return None  # torn or foreign: as if no host had recorded one
    return socket if socket.is_absolute() else None


def forget(home: Path) -> None:
    record_path(home).unlink(missing_ok=True)
