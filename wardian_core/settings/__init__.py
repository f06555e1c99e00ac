"""`<home>/settings.toml`: the model, its dotted keys, and list/get/set/unset.

The host reads it with `load_settings(home)`; a missing file means the defaults.
"""

from wardian_core.settings.keys import SETTING_KEYS, SettingKey
from wardian_core.settings.model import (
    CodexSettings,
    GenericSettings,
    HostSettings,
    ProviderSettings,
    ProvidersSettings,
    SessionsSettings,
    Settings,
)
from wardian_core.settings.operations import get_setting, list_settings, set_setting, unset_setting
from wardian_core.settings.store import load_settings

__all__ = [
    "SETTING_KEYS",
    "CodexSettings",
    "GenericSettings",
    "HostSettings",
    "ProviderSettings",
    "ProvidersSettings",
    "SessionsSettings",
    "SettingKey",
    "Settings",
    "get_setting",
    "list_settings",
    "load_settings",
    "set_setting",
    "unset_setting",
]
