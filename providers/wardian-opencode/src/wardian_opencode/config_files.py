"""Reading the user's OpenCode configuration, which OpenCode lets them write as JSONC.

OpenCode accepts comments (`//`, `/* */`) and trailing commas in its config files; Wardian
merges the user's file into the agent's, so it reads the same dialect. A file it cannot read
is reported by the caller, never silently replaced by an empty configuration.
"""

import json
import re
from pathlib import Path
from typing import Any

# A string (kept whole), or a comment (dropped): strings first, so `"http://x"` stays intact.
_TOKENS = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.DOTALL)
_TRAILING_COMMA = re.compile(r'("(?:\\.|[^"\\])*")|,(\s*[}\]])', re.DOTALL)


def strip_jsonc(text: str) -> str:
    """JSONC → JSON: comments and trailing commas removed, strings untouched."""
    without_comments = _TOKENS.sub(lambda m: m.group(0) if m.group(0).startswith('"') else "", text)
    return _TRAILING_COMMA.sub(lambda m: m.group(1) or m.group(2), without_comments)


def read_config(path: Path) -> dict[str, Any]:
    """The JSON object in `path` (JSONC allowed). Raises ValueError (or OSError) if it is not one."""
    value = json.loads(strip_jsonc(path.read_text(encoding="utf-8")))
    if not isinstance(value, dict):
        raise ValueError(f"{path} holds no JSON object")
    return value
