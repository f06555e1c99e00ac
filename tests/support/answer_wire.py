"""A route's answer as its model (REQUEST_ANSWERS) takes it at the handler and dumps it at the door."""

import json
from typing import Any

from pydantic import BaseModel, TypeAdapter

from wardian_core.control.answers import REQUEST_ANSWERS


def assert_wired_unchanged(kind: str, answer: dict[str, Any]) -> None:
    """`answer`, the plain data a handler of `kind` is given, goes on the wire as the same JSON,
    key for key and in order, once its model took it."""
    answer_type: Any = REQUEST_ANSWERS[kind]  # a model, or a union of them: what TypeAdapter takes
    model = TypeAdapter[BaseModel](answer_type).validate_python(answer)
    assert json.dumps(model.model_dump(mode="json", by_alias=True)) == json.dumps(answer)  # as the door dumps it
