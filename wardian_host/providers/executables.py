"""Where a provider's executable is, and what version it is.

The version comes from running `<exe> --version` (the provider's `version_args`) with a
short timeout; answers are cached per executable path, size and mtime in
`<home>/cache/provider-versions.json`, so `providers list` stays fast.
"""

import json
import os
import re
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from wardian_core.parsing.escapes import strip_escapes
from wardian_core.provider_models import ProviderInfo

VERSION_TIMEOUT_SECONDS = 3.0
# The layout of the `--version` cache file; a file of another layout is read as empty.
CACHE_FORMAT_VERSION = 1


@dataclass(frozen=True)
class ExecutableLocation:
    path: str | None
    source: str | None  # "path" (on PATH), "override" (WARDIAN_<NAME>_EXECUTABLE), "settings", None
    override_variable: str
    override_value: str | None


@dataclass(frozen=True)
class ExecutableVersion:
    version: str | None
    error: str | None


def override_variable(provider: str) -> str:
    return "WARDIAN_" + re.sub(r"[^A-Z0-9]", "_", provider.upper()) + "_EXECUTABLE"


def _which(command: str, environ: Mapping[str, str]) -> str | None:
    if os.sep in command or (os.altsep and os.altsep in command):
        path = Path(command).expanduser()
        return str(path.absolute()) if path.is_file() and os.access(path, os.X_OK) else None
    return shutil.which(command, path=environ.get("PATH", os.defpath))


# The first bytes of a native executable: ELF, Mach-O (both byte orders, 32/64-bit, universal), PE.
NATIVE_MAGIC = (
    b"\x7fELF",
    b"\xfe\xed\xfa\xce",
    b"\xfe\xed\xfa\xcf",
    b"\xce\xfa\xed\xfe",
    b"\xcf\xfa\xed\xfe",
    b"\xca\xfe\xba\xbe",
    b"MZ",
)


def is_native(path: Path) -> bool:
    try:
        with path.open("rb") as handle:
            head = handle.read(4)
    except OSError:
        return False
    return head.startswith(NATIVE_MAGIC)


def native_on_path(command: str, environ: Mapping[str, str]) -> str | None:
    """The first native executable named `command` (with PATHEXT's endings on Windows) on PATH."""
    endings = [""] + (environ.get("PATHEXT", ".EXE").lower().split(os.pathsep) if os.name == "nt" else [])
    for folder in environ.get("PATH", os.defpath).split(os.pathsep):
        for ending in endings:
            candidate = Path(folder or ".") / (command + ending)
            if candidate.is_file() and os.access(candidate, os.X_OK) and is_native(candidate):
                return str(candidate.absolute())
    return None


def on_path(info: ProviderInfo, environ: Mapping[str, str]) -> str | None:
    """Where PATH has the provider's executable; a native one first where the provider prefers it."""
    if info.executable is None:
        return None
    native = native_on_path(info.executable, environ) if info.prefer_native_executable else None
    return native or _which(info.executable, environ)


def locate(info: ProviderInfo, environ: Mapping[str, str], configured: str | None = None) -> ExecutableLocation:
    """Where the provider's executable is: `configured` (settings.toml `providers.<name>.executable`)
    first, then WARDIAN_<NAME>_EXECUTABLE, then PATH — the order the host launches with."""
    variable = override_variable(info.name)
    if configured:
        return ExecutableLocation(
            _which(configured, environ), "settings", f"providers.{info.name}.executable", configured
        )
    override = environ.get(variable, "").strip() or None
    if override is not None:
        return ExecutableLocation(_which(override, environ), "override", variable, override)
    found = on_path(info, environ)
    return ExecutableLocation(found, "path" if found else None, variable, None)


@dataclass(frozen=True)
class MissingCommand:
    """A launch whose command was not found, and where that command came from."""

    command: str
    agent: str
    action: str  # what launched: spawn and clone leave no agent behind when they fail, a relaunch keeps it
    configured: str | None = None  # the `executable` setting the launch ran with
    variable: str | None = None  # WARDIAN_<NAME>_EXECUTABLE of the host's environment


def missing_executable_hint(info: ProviderInfo, missing: MissingCommand) -> str:
    """What to do when the command a launch needs is missing: each way out works as typed."""
    key = f"providers.{info.name}.executable"
    if missing.command == missing.configured:
        return (
            f"The `executable` setting in force ({missing.configured!r}) is not an executable file: "
            f"`wardian settings set {key} /path/to/{info.executable or 'program'}`, or "
            f"`wardian settings unset {key}` to use PATH."
        )
    if missing.command == missing.variable:
        return (
            f"{override_variable(info.name)}={missing.variable!r} in the host's environment is not an executable "
            "file: stop the host (`wardian host stop`) and start it again without it, or with the right path."
        )
    if info.executable is None:  # the command is the user's own (the generic provider)
        if missing.action in ("spawn", "clone"):
            return f"Install {missing.command!r} or put it on PATH, or spawn again with another command after `--`."
        agent = shlex.quote(missing.agent)
        return (
            f"Install {missing.command!r} or put it on PATH, or launch another command: "
            f"`wardian agent update {agent} --clear-args --arg bash`, then `wardian agent resume {agent}`."
        )
    return " ".join([*([f"{info.install_hint}."] if info.install_hint else []), _point_at(info, key)])


def _point_at(info: ProviderInfo, key: str) -> str:
    """How to tell Wardian where the provider's CLI is, through a setting where one exists."""
    from wardian_core.settings import SETTING_KEYS

    where = f"/path/to/{info.executable}"
    if key in SETTING_KEYS:
        return f"Or put it on PATH, or give its path: `wardian settings set {key} {where}`."
    variable = override_variable(info.name)
    return f"Or put it on PATH, or start the host with {variable}={where} (`wardian host stop` first)."


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def cache_file(home: Path) -> Path:
    return home / "cache" / "provider-versions.json"


def _read_cache(path: Path) -> dict[str, dict[str, object]]:
    try:
        cached = json.loads(path.read_text(encoding="utf-8"))
        entries = cached.get("entries", {}) if cached.get("schema") == CACHE_FORMAT_VERSION else {}
        return entries if isinstance(entries, dict) else {}
    except (OSError, ValueError, AttributeError):
        return {}


def _write_cache(path: Path, entries: dict[str, dict[str, object]]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, encoding="utf-8") as handle:
            json.dump({"schema": CACHE_FORMAT_VERSION, "entries": entries}, handle, indent=1, sort_keys=True)
        os.replace(handle.name, path)
    except OSError:
        pass  # a read-only home only costs the next run another `--version`


def _run_version(executable: str, version_args: list[str]) -> ExecutableVersion:
    try:
        completed = subprocess.run(
            [executable, *version_args],
            capture_output=True,
            timeout=VERSION_TIMEOUT_SECONDS,
            stdin=subprocess.DEVNULL,
        )
    except subprocess.TimeoutExpired:
        return ExecutableVersion(None, f"no answer to {' '.join(version_args)} within {VERSION_TIMEOUT_SECONDS:g}s")
    except OSError as exc:
        return ExecutableVersion(None, f"could not run it: {exc.strerror or exc}")
    for stream in (completed.stdout, completed.stderr):
        lines = [strip_escapes(line).strip() for line in stream.decode("utf-8", "replace").splitlines()]
        first = next((line for line in lines if line), None)
        if first is not None:
            return ExecutableVersion(first[:200], None if completed.returncode == 0 else f"exit {completed.returncode}")
    return ExecutableVersion(None, f"{' '.join(version_args)} printed nothing (exit {completed.returncode})")


def executable_version(executable: str, version_args: list[str], home: Path) -> ExecutableVersion:
    """The executable's own version, from the cache when the file has not changed."""
    try:
        stat = os.stat(executable)
    except OSError as exc:
        return ExecutableVersion(None, f"could not stat it: {exc.strerror or exc}")
    key = json.dumps([executable, *version_args])
    stamp = {"mtime_ns": stat.st_mtime_ns, "size": stat.st_size}
    path = cache_file(home)
    entries = _read_cache(path)
    cached = entries.get(key)
    if isinstance(cached, dict) and all(cached.get(k) == v for k, v in stamp.items()):
        return ExecutableVersion(_text_or_none(cached.get("version")), _text_or_none(cached.get("error")))
    answer = _run_version(executable, version_args)
    entries[key] = {**stamp, "version": answer.version, "error": answer.error}
    _write_cache(path, entries)
    return answer
