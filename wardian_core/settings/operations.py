"""`settings list|get|set|unset` as plain functions over a home.

`set` and `unset` edit the user's text (comments and unknown keys survive), then
re-parse it, check that exactly the intended key changed, validate the whole file
and only then replace it. Any failure leaves the file byte for byte as it was.
"""

import copy
import math
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from wardian_core import paths
from wardian_core.atomic_files import write_atomically
from wardian_core.errors import WardianError
from wardian_core.settings import keys, store
from wardian_core.settings.model import Settings

# A key the document does not hold; passed as a value, `_edit` removes the key.
_ABSENT = object()


def effective_values(settings: Settings) -> dict[str, Any]:
    """Every setting by dotted key, defaults included."""
    values = settings.model_dump()
    return {key: _lookup(values, setting.path) for key, setting in keys.SETTING_KEYS.items()}


def sources(document: dict[str, Any]) -> dict[str, str]:
    """For each key, `file` when settings.toml sets it, `default` otherwise."""
    return {
        key: "file" if _lookup(document, setting.path, _ABSENT) is not _ABSENT else "default"
        for key, setting in keys.SETTING_KEYS.items()
    }


def list_settings(home: Path) -> tuple[dict[str, Any], dict[str, str]]:
    target, _, document = store.read_document(home)
    return effective_values(store.validate(target, document)), sources(document)


def get_setting(home: Path, key: str) -> dict[str, Any]:
    setting = keys.lookup(key)
    values, origins = list_settings(home)
    return {"key": setting.key, "value": values[setting.key], "source": origins[setting.key]}


def set_setting(home: Path, key: str, value_text: str) -> dict[str, Any]:
    setting = keys.lookup(key)
    value = keys.parse_value(setting, value_text)
    _check_alone(setting, value)
    with store.editing(home):
        target, text, document = store.read_document(home)
        settings = _edit(target, text, document, setting.path, value)
    return {"key": setting.key, "value": effective_values(settings)[setting.key], "file": str(target)}


def unset_setting(home: Path, key: str) -> dict[str, Any]:
    setting = keys.lookup(key)
    if not paths.settings_file(home).exists():
        return {"key": setting.key, "value": setting.default, "removed": False, "file": str(paths.settings_file(home))}
    with store.editing(home):
        target, text, document = store.read_document(home)
        removed = _lookup(document, setting.path, _ABSENT) is not _ABSENT
        settings = _edit(target, text, document, setting.path, _ABSENT)
    value = effective_values(settings)[setting.key]
    return {"key": setting.key, "value": value, "removed": removed, "file": str(target)}


def _check_alone(setting: keys.SettingKey, value: Any) -> None:
    """Reject a bad value on its own merits, before the file is even read. A rule between keys
    (a least delay above a most) is judged against the file's other values, by the whole file's
    validation after the edit, never against their defaults."""
    document: dict[str, Any] = {}
    _place(document, setting.path, value)
    try:
        Settings.model_validate(document)
    except ValidationError as error:
        own = [problem for problem in error.errors() if tuple(problem["loc"]) == setting.path]
        if not own:
            return
        details: dict[str, Any] = {"key": setting.key, "value": value}
        if setting.choices:
            details["choices"] = list(setting.choices)
        raise WardianError(
            "validation_failed",
            f"invalid value {value!r} for {setting.key}: {own[0]['msg']}",
            f"Run `wardian settings get {setting.key}` to see the current value.",
            details,
        ) from None


def _edit(target: Path, text: str, document: dict[str, Any], path: tuple[str, ...], value: Any) -> Settings:
    # Here, not at the top: the host and every read load this module, and only a write needs tomlkit.
    from wardian_core.settings import toml_text

    try:
        new_text = toml_text.remove_value(text, path) if value is _ABSENT else toml_text.set_value(text, path, value)
    except toml_text.UneditableError as error:
        raise _uneditable(target, path, str(error)) from None
    expected = copy.deepcopy(document)
    _place(expected, path, value)
    try:
        new_document = store.parse(target, new_text)
    except WardianError:
        new_document = None
    if new_document is None or _comparable(new_document) != _comparable(expected):
        raise _uneditable(target, path, "the edit would change more than this key")
    settings = store.validate(target, new_document)
    if new_text != text:
        write_atomically(target, new_text)
    return settings


def _uneditable(target: Path, path: tuple[str, ...], reason: str) -> WardianError:
    key = ".".join(path)
    return WardianError(
        "not_supported",
        f"cannot edit {key} in {target} safely: {reason}",
        f"Edit {key} by hand, or write its table as a [section] with one key per line.",
        {"path": str(target), "key": key},
    )


def _lookup(document: Any, path: tuple[str, ...], missing: Any = None) -> Any:
    for part in path:
        if not isinstance(document, dict) or part not in document:
            return missing
        document = document[part]
    return document


def _place(document: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    """Set (or, with _ABSENT, delete) `path` in a parsed document, creating tables on the way."""
    for part in path[:-1]:
        child = document.setdefault(part, {})
        if not isinstance(child, dict):
            return  # validation reports the non-table
        document = child
    if value is _ABSENT:
        document.pop(path[-1], None)
    else:
        document[path[-1]] = value


def _comparable(value: Any) -> Any:
    """A document with empty tables dropped (removing a table's last dotted key drops the table) and NaN made equal."""
    if isinstance(value, dict):
        items = {key: _comparable(child) for key, child in value.items()}
        return {key: child for key, child in items.items() if child != {}}
    if isinstance(value, list):
        return [_comparable(child) for child in value]
    if isinstance(value, float) and math.isnan(value):
        return "nan"
    return value
