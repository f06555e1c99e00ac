"""`NAME=VALUE` options (`providers replay --setting`, `agent spawn --provider-setting`)."""

import contextlib
import json
from typing import Any

from wardian_core.errors import WardianError


def setting_pairs(pairs: tuple[str, ...], option: str, values_as_json: bool = False) -> dict[str, Any]:
    """The pairs as a dict; with `values_as_json` a value that parses as JSON is taken as such."""
    settings: dict[str, Any] = {}
    for pair in pairs:
        key, separator, value = pair.partition("=")
        if not separator or not key:
            raise WardianError("usage", f"{option} takes NAME=VALUE, not {pair!r}", f"e.g. {option} name=value")
        settings[key] = value
        if values_as_json:
            with contextlib.suppress(ValueError):  # else plain text
                settings[key] = json.loads(value)
    return settings
