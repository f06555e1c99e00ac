"""How far a host read one telemetry source of a launch, kept so the next host follows on.

A host that adopts a terminal after a restart or a crash opens the launch's telemetry
sources again. Each is followed from where the previous host began it, its parser reading
again (events dropped) what that host read, so its state (a turn in progress, a running
total) is what it was; what follows, written while no host read, is parsed as new. A
source is named by where it is, not by what the provider calls it: a launch adopted is
described as resumed, and a provider may name the same file differently then (Codex's
`rollout-resumed`, which starts at the file's end). Streams (`sse`, `command`) have no
position: what they said while no host listened is gone.
"""

import json
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from wardian_core.provider_models import OutputSource


class FilePosition(BaseModel):
    """A followed file: where reading began, where its last complete line read ends, and which
    file it was (another file in its place is read from its start)."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["file"] = "file"
    start: int = Field(ge=0)
    read: int = Field(ge=0)
    device: int | None = None  # None: the file did not exist yet
    inode: int | None = None


class FolderPosition(BaseModel):
    """A watched folder: the matching files it knew (there at its start, or reported), and
    those it reported, in order."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["directory"] = "directory"
    known: list[str] = Field(default_factory=list)
    reported: list[str] = Field(default_factory=list)


Position = Annotated[FilePosition | FolderPosition, Field(discriminator="kind")]
POSITION: TypeAdapter[FilePosition | FolderPosition] = TypeAdapter(Position)


def position_key(source: OutputSource) -> str | None:
    """What names `source`'s position: its kind and place; None for a stream, which has none."""
    if source.kind == "file":
        return json.dumps(["file", str(source.path)])
    if source.kind == "directory":
        return json.dumps(["directory", str(source.path), source.pattern])
    return None
