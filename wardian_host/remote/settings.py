"""`[remotes.<name>]` tables of settings.toml: how to reach each machine.

They live beside the known tables (the settings model keeps unknown tables as the
user's own), and are checked here, when a command first names a remote.
"""

import re
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from wardian_core.errors import WardianError
from wardian_core.settings import load_settings

REMOTE_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
LOCAL_MACHINE = "local"


class RemoteSettings(BaseModel):
    """One machine: `ssh` is what the user would type after `ssh` (user@host or a ~/.ssh/config alias)."""

    model_config = ConfigDict(strict=True, extra="forbid")

    ssh: str = Field(min_length=1, pattern=r"^[^-\s][^\s]*$")
    port: int | None = Field(None, ge=1, le=65535)
    identity_file: str | None = Field(None, min_length=1)
    ssh_config: str | None = Field(None, min_length=1, description="An ssh_config file passed as `ssh -F`.")
    options: list[str] = Field(default_factory=list, description="More `ssh -o` options (`Key=value`).")
    home: str | None = Field(None, min_length=1, description="The remote's WARDIAN_HOME; unset: its default.")
    command: str = Field("wardian", min_length=1, description="The remote's `wardian`, as its shell runs it.")
    connect_timeout_seconds: int = Field(10, ge=1, le=300)


def configured_remotes(home: Path) -> dict[str, RemoteSettings]:
    """Every `[remotes.*]` table of `home`'s settings, checked."""
    extra = load_settings(home).model_extra or {}
    tables = extra.get("remotes", {})
    if not isinstance(tables, dict):
        raise _bad_table("remotes", "`remotes` must be a table of tables")
    return {name: _checked(name, table) for name, table in tables.items()}


def _checked(name: str, table: object) -> RemoteSettings:
    if not REMOTE_NAME.match(name) or name in (LOCAL_MACHINE, "all"):
        raise _bad_table(name, f"{name!r} cannot name a remote (letters, digits, _ . -; not local or all)")
    try:
        return RemoteSettings.model_validate(table)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise _bad_table(name, f"remotes.{name}.{where}: {first['msg']}") from None


def _bad_table(name: str, message: str) -> WardianError:
    return WardianError(
        "validation_failed",
        f"invalid remote in settings.toml: {message}",
        "Fix the [remotes.NAME] table in settings.toml (docs/remote.md shows one).",
        {"remote": name},
    )


def remote_named(home: Path, name: str) -> RemoteSettings:
    remotes = configured_remotes(home)
    found = remotes.get(name)
    if found is None:
        raise WardianError(
            "not_found",
            f"no remote named {name!r}",
            'Add a [remotes.NAME] table with `ssh = "user@host"` to settings.toml (docs/remote.md).',
            {"remote": name, "known": sorted(remotes)},
        )
    return found
