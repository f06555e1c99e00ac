"""Reading, validating and atomically writing `<home>/settings.toml`.

A file that does not parse or validate is reported, with the line or the key, and
never replaced by defaults: the user's file is theirs to fix.
"""

import os
import re
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from wardian_core import paths
from wardian_core.atomic_files import open_unfollowed
from wardian_core.errors import WardianError, write_failed
from wardian_core.nesting import deeper_than
from wardian_core.settings.model import Settings

# Settings go three levels deep (providers.NAME.KEY); tomllib, pydantic and the TOML writer
# recurse per level, and a file nested 900 deep raised a raw RecursionError.
MAX_DEPTH = 32
_POSITION = re.compile(r"at line (\d+), column (\d+)")
_MESSAGES = {
    "extra_forbidden": "unknown key",
    "model_type": "expected a table",
    "dict_type": "expected a table",
}


def read_text(home: Path) -> tuple[Path, str]:
    """The settings file and its text; "" when it does not exist."""
    target = paths.settings_file(home)
    try:
        raw = target.read_bytes()
    except FileNotFoundError:
        return target, ""
    except OSError as error:
        message = f"cannot read {target}: {error.strerror}"
        raise WardianError("generic", message, details={"path": str(target)}) from None
    try:
        return target, raw.decode("utf-8")
    except UnicodeDecodeError as error:
        raise WardianError(
            "validation_failed",
            f"{target} is not UTF-8 (byte {error.start})",
            "TOML files are UTF-8; re-save it as UTF-8.",
            {"path": str(target)},
        ) from None


def parse(target: Path, text: str) -> dict[str, Any]:
    try:
        document = tomllib.loads(text)
    except RecursionError:
        raise _too_deep(target, None) from None
    except tomllib.TOMLDecodeError as error:
        details: dict[str, Any] = {"path": str(target)}
        position = _POSITION.search(str(error))
        if position:
            details.update(line=int(position[1]), column=int(position[2]))
        raise WardianError(
            "validation_failed",
            f"{target} is not valid TOML: {error}",
            "Fix the file by hand; Wardian never rewrites a settings file it cannot read.",
            details,
        ) from None
    where = deeper_than(document, MAX_DEPTH)
    if where is not None:
        raise _too_deep(target, where)
    return document


def _too_deep(target: Path, where: str | None) -> WardianError:
    at = f" (at {where})" if where else ""
    return WardianError(
        "validation_failed",
        f"{target} nests deeper than {MAX_DEPTH} levels{at}; settings go three levels deep",
        "Fix the file by hand (`wardian settings list` shows every key); Wardian never rewrites a "
        "settings file it cannot read.",
        {"path": str(target)},
    )


def validate(target: Path, document: dict[str, Any]) -> Settings:
    try:
        return Settings.model_validate(document)
    except ValidationError as error:
        problems = [
            {
                "key": ".".join(str(part) for part in problem["loc"]),
                "message": _MESSAGES.get(problem["type"], problem["msg"]),
            }
            for problem in error.errors()
        ]
        summary = "; ".join(f"{p['key']}: {p['message']}" for p in problems)
        raise WardianError(
            "validation_failed",
            f"invalid setting in {target}: {summary}",
            "Run `wardian settings list` for every key and its type, then fix or unset the key.",
            {"path": str(target), "errors": problems},
        ) from None


def read_document(home: Path) -> tuple[Path, str, dict[str, Any]]:
    target, text = read_text(home)
    return target, text, parse(target, text)


def load_settings(home: Path) -> Settings:
    """The settings of `home`: defaults where the file (or the file itself) is missing."""
    target, _, document = read_document(home)
    return validate(target, document)


@contextmanager
def editing(home: Path) -> Iterator[None]:
    """One read-edit-write cycle: serialised, and any file-system refusal reported as `write_failed`."""
    try:
        with edit_lock(home):
            yield
    except OSError as error:
        raise write_failed(paths.settings_file(home), error) from None


@contextmanager
def edit_lock(home: Path) -> Iterator[None]:
    """Serialise read-edit-write cycles across processes, so two concurrent `set`s cannot lose one."""
    if os.name != "posix":
        yield
        return
    import fcntl

    run = paths.run_dir(paths.ensure_home(home))  # a home the CLI makes is owner-only too
    # Owner-only, like everything else the host keeps under run/.
    run.mkdir(mode=0o700, parents=True, exist_ok=True)
    descriptor = open_unfollowed(run / "settings.lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX)
        yield
    finally:
        os.close(descriptor)
