"""Bounds on the free text a user sets on an agent and Wardian stores and shows with it.

An agent's record travels with every list, every roster page and every web update to every
open page: a 5 MB description made each status change a 5 MB push. Names and classes have
their own rules (`identity`); this bounds the rest a person or a script types in. One check,
`check_stored_fields`, run where a row is written (`db.agents`), so spawn, update and clone
(which copies its source's) all meet it, and nothing is written when one field is over.
"""

import json
from collections.abc import Mapping
from typing import Any

from wardian_core.errors import WardianError

DESCRIPTION_MAX_CHARS = 4096
# The launch configuration as stored (JSON): the model, extra arguments (for the generic
# provider, the command itself), include directories, provider settings. Generous for a
# command line, far from what would weigh on every update.
LAUNCH_CONFIG_MAX_BYTES = 64 * 1024

# Column: (limit, unit, the flags that set it)
LIMITS: dict[str, tuple[int, str, str]] = {
    "description": (DESCRIPTION_MAX_CHARS, "characters", "--description"),
    "launch_config": (LAUNCH_CONFIG_MAX_BYTES, "bytes", "--model, --arg, --include-dir and --provider-setting"),
}


def check_stored_fields(values: Mapping[str, Any]) -> None:
    """Refuse (`invalid_field`) a bounded column whose value is over its limit."""
    for column, value in values.items():
        if column in LIMITS and value is not None:
            _check(column, value)


def _size(value: Any, unit: str) -> int:
    text = value if isinstance(value, str) else json.dumps(value)
    return len(text) if unit == "characters" else len(text.encode("utf-8", "surrogatepass"))


def _check(column: str, value: Any) -> None:
    limit, unit, flags = LIMITS[column]
    size = _size(value, unit)
    if size <= limit:
        return
    field = column.replace("_", " ")
    raise WardianError(
        "invalid_field",
        f"the agent's {field} is {size} {unit}; it holds at most {limit}",
        f"Shorten it ({flags}): it is shown with the agent in every list and every web update. Put long "
        "notes in a file in the workspace and name the file instead. A clone copies its source's: shorten "
        "that with `wardian agent update SOURCE` first.",
        {"field": column, "size": size, "limit": limit, "unit": unit},
    )
