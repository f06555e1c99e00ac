"""What the host refuses in a request line, and how the refusal reads to a person."""

import json

import pytest
from pydantic import ValidationError

from wardian_core.control.frame_checks import (
    MAX_NESTING_DEPTH,
    MAX_PROBLEMS,
    MAX_VALUES,
    check_values,
    decode_request_line,
    invalid_parameters,
)
from wardian_core.control.models import REQUEST_PARAMS
from wardian_core.errors import WardianError


def _refusal(line: bytes) -> WardianError:
    with pytest.raises(WardianError) as refused:
        check_values(decode_request_line(line))
    assert refused.value.code == "bad_request" and refused.value.hint
    return refused.value


@pytest.mark.parametrize(
    ("line", "said"),
    [
        (b"\xff\xfe{}\n", "not UTF-8: byte 0xff at offset 0"),
        (b"\xed\xa0\x80\n", "not UTF-8"),  # a surrogate encoded as UTF-8 bytes
        (b"not json\n", "not JSON"),
        (b"\n", "not JSON"),
        (b'{"v": NaN}\n', "NaN is not a JSON value"),
        (b'{"v": 1e999}\n', "1e999 is too large a number"),
        (b"[1, 2]\n", "a frame is a JSON object, not list"),
        (b'"text"\n', "not str"),
        (b'{"v": 2, "params": {"to": "\\ud800"}}\n', "params.to holds a lone surrogate (\\ud800)"),
        (b'{"\\udfff": 1}\n', "holds a lone surrogate (\\udfff)"),
        (b"[" * 990 + b"]" * 990 + b"\n", "nests deeper"),
        (b'{"p": ' + b"[" * (MAX_NESTING_DEPTH + 1) + b"]" * (MAX_NESTING_DEPTH + 1) + b"}", "nests deeper"),
        (b'{"p": [' + b"0," * MAX_VALUES + b"0]}", f"more than {MAX_VALUES} values"),
    ],
)
def test_a_malformed_line_is_bad_request_saying_what_is_wrong(line: bytes, said: str) -> None:
    assert said in _refusal(line).message


def test_deep_nesting_is_refused_even_where_json_itself_would_overflow_the_stack() -> None:
    line = b'{"p": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    assert "nests deeper" in _refusal(line).message


def test_a_well_formed_line_passes_whole_pairs_and_depth_at_the_limit() -> None:
    inner = MAX_NESTING_DEPTH - 2  # the frame and its params are the first two levels
    nested = "[" * inner + "]" * inner
    line = f'{{"v": 2, "id": 3, "kind": "send", "params": {{"text": "\\ud83d\\ude00", "x": {nested}}}}}'
    frame = decode_request_line(line.encode())
    check_values(frame)
    assert frame["params"]["text"] == "😀"


def _validation_error(kind: str, params: dict) -> ValidationError:
    with pytest.raises(ValidationError) as caught:
        REQUEST_PARAMS[kind].model_validate(params)
    return caught.value


@pytest.mark.parametrize(
    ("kind", "params", "said", "command"),
    [
        (
            "agent.wait",
            {"target": "a", "until": "idle", "timeout": 0},
            "timeout: should be greater than 0",
            "agent wait",
        ),
        ("send", {"to": ""}, "to: must not be empty", "send"),
        (
            "agent.spawn",
            {"provider": "generic", "class": "", "workspace": "/w"},
            "class: must not be empty",
            "agent spawn",
        ),
        ("agent.kill", {"target": ""}, "target: must not be empty", "agent kill"),
        ("agent.kill", {}, "target: is required", "agent kill"),
        ("agent.kill", {"target": "a", "force": True}, "force: is not a parameter of this request", "agent kill"),
        ("agents.list", {"x": 1}, "x: is not a parameter of this request", "agent list"),
    ],
)
def test_invalid_parameters_read_as_field_and_problem_with_a_hint(
    kind: str, params: dict, said: str, command: str
) -> None:
    error = invalid_parameters(kind, _validation_error(kind, params))
    assert error.code == "bad_request"
    assert error.message == f"invalid {kind} request: {said}"
    assert error.hint is not None and f"`wardian {command} --help`" in error.hint
    assert error.details["kind"] == kind and error.details["problems"][0]["problem"] in said
    assert "errors" not in error.details and "input" not in json.dumps(error.details)


def test_many_invalid_items_are_named_up_to_a_few() -> None:
    error = invalid_parameters("agent.update", _validation_error("agent.update", {"target": "a", "args": [1] * 500}))
    assert len(error.details["problems"]) == MAX_PROBLEMS
    assert error.details["problems"][0] == {"field": "args.0", "problem": "should be a valid string"}
