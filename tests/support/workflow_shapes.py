"""Workflow definitions of a given size, for the validation tests and benchmarks/workflow_validation.py."""

from typing import Any, Literal


def chained_workflow(length: int, reference: Literal["first", "previous"] | None = None) -> dict[str, Any]:
    """`length` shell nodes in a row, each after the one before; with `reference`, each uses
    the first node's output or its predecessor's."""

    def command(index: int) -> str:
        if reference is None or index == 0:
            return "true"
        return f"echo {{{{nodes.n{0 if reference == 'first' else index - 1}.output}}}}"

    nodes = [{"id": f"n{index}", "kind": "shell", "command": command(index)} for index in range(length)]
    edges = [{"from": f"n{index}", "to": f"n{index + 1}"} for index in range(length - 1)]
    return {"id": "chain", "nodes": nodes, "edges": edges}
