"""What the host checks in a request line before acting on it, and how a refusal reads.

A line must be UTF-8 JSON, an object, nested no deeper than MAX_NESTING_DEPTH, of at
most MAX_VALUES values and free of lone surrogates; its parameters must fit the request kind's model. Each failure is
one `bad_request` whose message names the field and its problem and whose hint says
what to do, never a raw pydantic error list or a traceback.
"""

import json
import re
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from wardian_core.control.protocol import PROTOCOL_VERSION
from wardian_core.errors import WardianError

# The deepest real request has four levels (frame, params, launch_config, a list in it).
# json, pydantic and the error paths recurse once per level, and a frame nested ~990
# deep overflowed the host's stack; 32 leaves room for requests yet to come.
MAX_NESTING_DEPTH = 32
# A real request holds tens of values. pydantic reports every wrong item of a list, and
# 2 million wrong ones cost the host 800 MB; refusing a frame of more values first
# keeps both that and this walk small.
MAX_VALUES = 10_000
# A field name or value quoted in a message is cut to this: the message is for people,
# and a frame may carry megabytes in one key.
QUOTED_CHARACTERS = 40
# A request with thousands of wrong items gets its first few named; the rest add nothing.
MAX_PROBLEMS = 10

FrameModel = TypeVar("FrameModel", bound=BaseModel)

_SURROGATE = re.compile("[\ud800-\udfff]")
_FRAME_HINT = (
    "Send one JSON object per line, UTF-8 encoded: "
    f'{{"v": {PROTOCOL_VERSION}, "id": <integer>, "kind": "<request kind>", "params": {{...}}}} '
    "(see wardian_core.control)."
)


def bad_request(message: str, hint: str = _FRAME_HINT, details: dict[str, Any] | None = None) -> WardianError:
    return WardianError("bad_request", message, hint, details)


def shortened(text: str, limit: int = QUOTED_CHARACTERS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def quoted(value: object) -> str:
    """A short repr of something a client sent, safe to put in a message or a log line."""
    return shortened(repr(value))


def _refuse_constant(name: str) -> None:
    raise ValueError(f"{name} is not a JSON value")


def _finite(number: str) -> float:
    value = float(number)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"{quoted(number)[1:-1]} is too large a number")
    return value


def _place(where: str) -> str:
    return quoted(where)[1:-1] if where else "the frame"


def decode_request_line(line: bytes | bytearray) -> dict[str, Any]:
    """The JSON object a line holds; `bad_request` when it holds none (check_values next)."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise bad_request(f"the frame is not UTF-8: byte 0x{line[exc.start]:02x} at offset {exc.start}") from None
    try:
        frame = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite)
    except RecursionError:
        raise bad_request(f"the frame nests deeper than {MAX_NESTING_DEPTH} levels") from None
    except ValueError as exc:
        raise bad_request(f"the frame is not JSON: {quoted(str(exc))[1:-1]}") from None
    if not isinstance(frame, dict):
        raise bad_request(f"a frame is a JSON object, not {type(frame).__name__}")
    return frame


def check_values(frame: dict[str, Any]) -> None:
    """Depth, size and text of every value, without recursion (what it guards against is depth)."""
    pending: list[tuple[Any, int, str]] = [(frame, 1, "")]
    seen = 0
    while pending:
        value, depth, where = pending.pop()
        if isinstance(value, str):
            _check_text(value, where)
            continue
        if not isinstance(value, dict | list):
            continue
        if depth > MAX_NESTING_DEPTH:
            raise bad_request(f"the frame nests deeper than {MAX_NESTING_DEPTH} levels (at {_place(where)})")
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            seen += 1
            if seen > MAX_VALUES:
                raise bad_request(f"the frame holds more than {MAX_VALUES} values")
            place = f"{where}.{key}" if where else str(key)
            if isinstance(key, str):
                _check_text(key, place)
            pending.append((item, depth + 1, place))


def _check_text(text: str, where: str) -> None:
    found = _SURROGATE.search(text)
    if found:
        code = f"\\u{ord(found.group()):04x}"
        raise bad_request(
            f"{_place(where)} holds a lone surrogate ({code}), which is not text",
            "Encode text as UTF-8 (or JSON \\u escapes of whole surrogate pairs); a lone half of a pair "
            "usually comes from text decoded with errors ignored or replaced.",
        )


def command_of(kind: str) -> str:
    """The `wardian` command that sends request `kind` (`agents.list` → `agent list`)."""
    return kind.replace("agents.", "agent.").replace(".", " ")


def _problem(error: Any) -> dict[str, str]:
    field = ".".join(str(part) for part in error["loc"]) or "params"
    kind, message = error["type"], error["msg"]
    if kind == "missing":
        problem = "is required"
    elif kind == "extra_forbidden":
        problem = "is not a parameter of this request"
    elif kind == "string_too_short" and error.get("ctx", {}).get("min_length") == 1:
        problem = "must not be empty"
    else:
        problem = message.removeprefix("Input ")
        problem = problem[:1].lower() + problem[1:]
    return {"field": quoted(field)[1:-1], "problem": problem}


def invalid_parameters(kind: str, error: ValidationError) -> WardianError:
    """`bad_request` for parameters the kind's model refused: `field: problem; …`, with a hint."""
    problems = [_problem(item) for item in error.errors(include_url=False, include_input=False)[:MAX_PROBLEMS]]
    said = "; ".join(f"{problem['field']}: {problem['problem']}" for problem in problems)
    fields = ", ".join(f"`{field}`" for field in dict.fromkeys(problem["field"] for problem in problems))
    return bad_request(
        f"invalid {kind} request: {said}",
        f"Give {fields} a valid value and retry; `wardian {command_of(kind)} --help` says what each option takes.",
        {"kind": kind, "problems": problems},
    )


def checked_frame(line: bytes | bytearray, model: type[FrameModel], kind: str) -> FrameModel:
    """A frame a client sends after its request (attach input), checked as a request line is:
    `bad_request` naming the field and its problem, never a raw error."""
    frame = decode_request_line(line)
    check_values(frame)
    try:
        return model.model_validate(frame)
    except ValidationError as exc:
        raise invalid_parameters(kind, exc) from None
