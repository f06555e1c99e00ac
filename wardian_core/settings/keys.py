"""The dotted keys of the settings model, their types, and how a command-line value becomes one."""

import math
import types
import typing
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel

from wardian_core.errors import WardianError
from wardian_core.settings.model import Settings


@dataclass(frozen=True)
class SettingKey:
    key: str
    kind: str  # "bool", "int", "float" or "string": how `settings set` reads a value
    default: Any
    choices: tuple[str, ...] | None
    description: str

    @property
    def path(self) -> tuple[str, ...]:
        return tuple(self.key.split("."))


def _leaf_kind(annotation: Any) -> tuple[str, tuple[str, ...] | None]:
    options = [a for a in typing.get_args(annotation) if a is not type(None)]
    if typing.get_origin(annotation) in (typing.Union, types.UnionType) and len(options) == 1:
        annotation = options[0]
    if typing.get_origin(annotation) is Literal:
        return "string", tuple(typing.get_args(annotation))
    kinds = {bool: "bool", int: "int", float: "float", str: "string"}
    return kinds[annotation], None


def _walk(model: type[BaseModel], prefix: str) -> list[SettingKey]:
    keys: list[SettingKey] = []
    for name, field in model.model_fields.items():
        key = f"{prefix}{name}"
        annotation = field.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            keys.extend(_walk(annotation, f"{key}."))
        elif typing.get_origin(annotation) is dict:
            continue  # tables keyed by the user's own names (`budgets.classes.NAME`): edited by hand
        else:
            kind, choices = _leaf_kind(annotation)
            keys.append(
                SettingKey(key, kind, field.get_default(call_default_factory=True), choices, field.description or "")
            )
    return keys


SETTING_KEYS: dict[str, SettingKey] = {setting.key: setting for setting in _walk(Settings, "")}


def lookup(key: str) -> SettingKey:
    setting = SETTING_KEYS.get(key)
    if setting is None:
        raise WardianError(
            "invalid_field",
            f"unknown setting {key!r}",
            "Run `wardian settings list` for every key.",
            {"key": key, "known": sorted(SETTING_KEYS)},
        )
    return setting


def parse_value(setting: SettingKey, text: str) -> Any:
    """A command-line VALUE as the key's type; the model checks ranges and choices afterwards."""
    if setting.kind == "bool":
        if text.lower() in ("true", "false"):
            return text.lower() == "true"
        raise _bad_value(setting, text, "expected true or false")
    if setting.kind == "int":
        try:
            return int(text)
        except ValueError:
            raise _bad_value(setting, text, "expected a whole number") from None
    if setting.kind == "float":
        try:
            number = float(text)
        except ValueError:
            raise _bad_value(setting, text, "expected a number") from None
        if not math.isfinite(number):
            raise _bad_value(setting, text, "expected a finite number")
        return number
    return text


def _bad_value(setting: SettingKey, text: str, reason: str) -> WardianError:
    return WardianError(
        "validation_failed",
        f"invalid value {text!r} for {setting.key}: {reason}",
        f"Run `wardian settings get {setting.key}` to see the current value.",
        {"key": setting.key, "value": text},
    )
