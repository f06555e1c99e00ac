"""An agent's own provider settings (`agent spawn --provider-setting NAME=VALUE`), checked
against the settings its provider declares in `ProviderInfo.settings`."""

from typing import Any

from wardian_core.errors import WardianError
from wardian_core.provider_models import ProviderInfo, ProviderSetting

_TRUE, _FALSE = ("true", "yes", "1", "on"), ("false", "no", "0", "off")


def _converted(setting: ProviderSetting, value: Any) -> Any:
    """`value` as the setting's type; text from the command line is parsed. ValueError says why not."""
    if setting.type == "boolean":
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in _TRUE + _FALSE:
            return value.lower() in _TRUE
        raise ValueError("is not true or false")
    if setting.type in ("integer", "number"):
        kind = int if setting.type == "integer" else float
        try:
            if isinstance(value, bool):
                raise TypeError
            return kind(value)
        except (TypeError, ValueError):
            raise ValueError(f"is not {'an integer' if kind is int else 'a number'}") from None
    if not isinstance(value, str):
        raise ValueError("is not text")
    return value


def checked_provider_settings(info: ProviderInfo, raw: dict[str, Any]) -> dict[str, Any]:
    """`raw` with each value of its declared type; an unknown name or a bad value is refused."""
    declared = {setting.name: setting for setting in info.settings}
    known = ", ".join(sorted(declared)) or "none"
    checked: dict[str, Any] = {}
    for name, value in raw.items():
        setting = declared.get(name)
        if setting is None:
            raise WardianError(
                "validation_failed",
                f"provider {info.name!r} has no setting {name!r}",
                f"Its settings: {known} (`wardian providers show {info.name}`).",
                {"provider": info.name, "setting": name, "known": sorted(declared)},
            )
        try:
            checked[name] = _converted(setting, value)
        except ValueError as problem:
            raise WardianError(
                "validation_failed",
                f"provider setting {name}={value!r} {problem}",
                f"{name} takes a {setting.type}" + (f" (one of {setting.choices})" if setting.choices else "") + ".",
                {"provider": info.name, "setting": name, "type": setting.type},
            ) from None
        if setting.choices is not None and checked[name] not in setting.choices:
            raise WardianError(
                "validation_failed",
                f"provider setting {name}={value!r} is not one of {setting.choices}",
                f"Choose one of {', '.join(map(str, setting.choices))}.",
                {"provider": info.name, "setting": name, "choices": setting.choices},
            )
    return checked
