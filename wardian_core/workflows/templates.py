"""`{{inputs.x}}`, `{{nodes.<id>.output}}` and `{{nodes.<id>.output.<key>}}` in prompts and commands."""

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

_PLACEHOLDER = re.compile(r"\{\{(.*?)\}\}")
_REFERENCE = re.compile(r"^\s*(?:inputs\.([A-Za-z0-9_-]+)|nodes\.([A-Za-z0-9_-]+)\.output(?:\.([A-Za-z0-9_-]+))?)\s*$")


@dataclass(frozen=True)
class Reference:
    text: str  # as written, between the braces
    input: str | None = None
    node: str | None = None
    key: str | None = None


class TemplateError(ValueError):
    pass


def scan(template: str) -> tuple[list[Reference], list[str]]:
    """Every well-formed placeholder, and a problem for each malformed one (validation reports them all)."""
    found, problems = [], []
    for match in _PLACEHOLDER.finditer(template):
        parsed = _REFERENCE.match(match.group(1))
        if parsed is None:
            problems.append(
                f"{{{{{match.group(1)}}}}} is not an interpolation: use {{{{inputs.NAME}}}} or {{{{nodes.ID.output}}}}"
            )
        else:
            found.append(Reference(match.group(1), parsed.group(1), parsed.group(2), parsed.group(3)))
    if "{{" in _PLACEHOLDER.sub("", template):
        problems.append("an unclosed {{ in the template")
    return found, problems


def references(template: str) -> list[Reference]:
    """Every placeholder; one that is not a known form raises TemplateError naming it."""
    found, problems = scan(template)
    if problems:
        raise TemplateError(problems[0])
    return found


def render(template: str, inputs: dict[str, str], outputs: dict[str, Any], quote: Callable[[str], str] = str) -> str:
    """The template with every placeholder replaced (through `quote`, e.g. shlex.quote for shells);
    a value that is not there raises TemplateError naming it."""

    def value(match: re.Match[str]) -> str:
        reference = references(match.group(0))[0]
        return quote(_value(reference, inputs, outputs))

    return _PLACEHOLDER.sub(value, template)


def _value(reference: Reference, inputs: dict[str, str], outputs: dict[str, Any]) -> str:
    if reference.input is not None:
        if reference.input not in inputs:
            raise TemplateError(f"input {reference.input!r} has no value")
        return inputs[reference.input]
    assert reference.node is not None
    if reference.node not in outputs:
        raise TemplateError(f"node {reference.node!r} has no output")
    output = outputs[reference.node]
    if reference.key is not None:
        if not isinstance(output, dict) or reference.key not in output:
            raise TemplateError(f"the output of node {reference.node!r} has no key {reference.key!r}")
        output = output[reference.key]
    return output if isinstance(output, str) else json.dumps(output)
