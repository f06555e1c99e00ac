"""validate_workflow: every error of a definition, each with its node, field and problem code.

Each test breaks a valid workflow in one way and expects exactly that one error, so a check
that went missing (or fired where it should not) fails its test.
"""

import ast
import copy
import json
import re
import tracemalloc
from pathlib import Path
from typing import Any, Literal

import pytest
from workflow_shapes import chained_workflow

from wardian_core.workflows.model import Workflow
from wardian_core.workflows.validation import MAX_EDGES, MAX_NODES, validate_workflow

VALID: dict[str, Any] = {
    "id": "review-chain",
    "name": "Plan and review",
    "inputs": {"topic": {"description": "what to plan"}},
    "roles": {"planner": {"provider": "generic"}, "reviewer": {"agent": "rev"}, "coder": {"class": "Coder"}},
    "nodes": [
        {"id": "fetch", "kind": "shell", "command": "echo {{inputs.topic}}"},
        {
            "id": "plan",
            "kind": "agent",
            "role": "planner",
            "prompt": "Plan {{ nodes.fetch.output }}",
            "output_schema": {"type": "object", "properties": {"steps": {}}, "required": ["steps"]},
        },
        {
            "id": "review",
            "kind": "agent",
            "role": "reviewer",
            "run_mode": "inherit_fresh",
            # A grandparent's output is upstream too.
            "prompt": "Review {{nodes.plan.output.steps}} of {{nodes.fetch.output}}",
        },
        {"id": "gate", "kind": "approval", "message": "Ship {{nodes.review.output.verdict}}?"},
    ],
    "edges": [{"from": "fetch", "to": "plan"}, {"from": "plan", "to": "review"}, {"from": "review", "to": "gate"}],
}


def broken(change: Any) -> dict[str, Any]:
    raw = copy.deepcopy(VALID)
    change(raw)
    return raw


def only_error(raw: object) -> dict[str, Any]:
    workflow, errors = validate_workflow(raw)
    assert workflow is None
    assert len(errors) == 1, errors
    assert set(errors[0]) >= {"node", "field", "problem", "message"}
    return errors[0]


def test_a_valid_workflow_has_no_errors() -> None:
    workflow, errors = validate_workflow(copy.deepcopy(VALID))
    assert errors == []
    assert isinstance(workflow, Workflow) and [node.id for node in workflow.nodes] == [
        "fetch",
        "plan",
        "review",
        "gate",
    ]


def test_an_unknown_node_kind_names_the_kinds() -> None:
    error = only_error(broken(lambda raw: raw["nodes"][3].update(kind="robot")))
    assert (error["node"], error["field"], error["problem"]) == ("gate", "nodes.3.kind", "unknown_kind")
    assert "'robot'" in error["message"] and "agent, shell, approval" in error["message"]


def test_a_node_without_a_kind() -> None:
    error = only_error(broken(lambda raw: raw["nodes"][0].pop("kind")))
    assert (error["node"], error["field"], error["problem"]) == ("fetch", "nodes.0.kind", "missing_field")


def test_a_missing_field_names_its_node_without_the_kind_in_the_path() -> None:
    error = only_error(broken(lambda raw: raw["nodes"][1].pop("prompt")))
    assert (error["node"], error["field"], error["problem"]) == ("plan", "nodes.1.prompt", "missing_field")


def test_an_unknown_field() -> None:
    error = only_error(broken(lambda raw: raw["nodes"][0].update(comand="ls")))
    assert (error["node"], error["field"], error["problem"]) == ("fetch", "nodes.0.comand", "unknown_field")


def test_an_invalid_value() -> None:
    error = only_error(broken(lambda raw: raw["nodes"][0].update(timeout=-1)))
    assert (error["node"], error["field"], error["problem"]) == ("fetch", "nodes.0.timeout", "invalid_value")
    assert "greater than 0" in error["message"]


def test_a_role_mapped_to_two_things_is_one_invalid_value_without_a_node() -> None:
    error = only_error(broken(lambda raw: raw["roles"]["coder"].update(provider="claude")))
    assert (error["node"], error["field"], error["problem"]) == (None, "roles.coder", "invalid_value")
    assert "exactly one of" in error["message"]


def test_a_document_that_is_not_an_object() -> None:
    error = only_error(["not", "a", "workflow"])
    assert (error["node"], error["field"], error["problem"]) == (None, None, "invalid_value")


def test_a_duplicate_node_id() -> None:
    error = only_error(broken(lambda raw: raw["nodes"].append({"id": "plan", "kind": "shell", "command": "true"})))
    assert (error["node"], error["field"], error["problem"]) == ("plan", "nodes.4.id", "duplicate_id")
    assert "nodes 1 and 4" in error["message"]


@pytest.mark.parametrize(
    ("edge", "end", "hangs_from"),
    [({"from": "ghost", "to": "gate"}, "from", "gate"), ({"from": "gate", "to": "ghost"}, "to", "gate")],
)
def test_a_dangling_edge_names_the_node_it_hangs_from(edge: dict[str, str], end: str, hangs_from: str) -> None:
    error = only_error(broken(lambda raw: raw["edges"].append(edge)))
    assert (error["node"], error["field"], error["problem"]) == (hangs_from, f"edges.3.{end}", "dangling_edge")
    assert "'ghost'" in error["message"]


def test_an_edge_between_two_unknown_ids_is_two_errors_without_a_node() -> None:
    _, errors = validate_workflow(broken(lambda raw: raw["edges"].append({"from": "x", "to": "y"})))
    assert [(e["node"], e["field"], e["problem"]) for e in errors] == [
        (None, "edges.3.from", "dangling_edge"),
        (None, "edges.3.to", "dangling_edge"),
    ]


def test_an_edge_to_itself() -> None:
    error = only_error(broken(lambda raw: raw["edges"].append({"from": "gate", "to": "gate"})))
    assert (error["node"], error["field"], error["problem"]) == ("gate", "edges.3", "self_edge")


def test_a_cycle_names_every_node_on_it_in_order() -> None:
    error = only_error(broken(lambda raw: raw["edges"].append({"from": "review", "to": "plan"})))
    assert (error["node"], error["problem"]) == ("plan", "cycle")
    assert "plan, review" in error["message"] and "plan → review → plan" in error["message"]
    assert "fetch" not in error["message"] and "gate" not in error["message"]


def test_two_separate_cycles_are_two_errors() -> None:
    def two_cycles(raw: dict[str, Any]) -> None:
        raw["edges"] += [{"from": "plan", "to": "fetch"}, {"from": "gate", "to": "review"}]

    _, errors = validate_workflow(broken(two_cycles))
    assert [(error["problem"], error["node"]) for error in errors] == [("cycle", "fetch"), ("cycle", "review")]


def test_a_long_chain_is_walked_without_recursion() -> None:
    chain = [{"id": f"n{i}", "kind": "shell", "command": "true"} for i in range(3000)]
    edges = [{"from": f"n{i}", "to": f"n{i + 1}"} for i in range(2999)]
    workflow, errors = validate_workflow(
        {"id": "long", "nodes": chain, "edges": [*edges, {"from": "n2999", "to": "n0"}]}
    )
    assert workflow is None and [error["problem"] for error in errors] == ["cycle"]


def test_an_unknown_role_lists_the_roles() -> None:
    error = only_error(broken(lambda raw: raw["nodes"][1].update(role="architect")))
    assert (error["node"], error["field"], error["problem"]) == ("plan", "nodes.1.role", "unknown_role")
    assert "coder, planner, reviewer" in error["message"]


@pytest.mark.parametrize("run_mode", ["inherit_fresh", "inherit_resume"])
def test_inheriting_from_a_role_mapped_to_a_provider(run_mode: str) -> None:
    error = only_error(broken(lambda raw: raw["nodes"][1].update(run_mode=run_mode)))
    assert (error["node"], error["field"], error["problem"]) == ("plan", "nodes.1.run_mode", "inherit_without_agent")
    assert "'generic'" in error["message"]


def test_inheriting_from_a_class_is_fine() -> None:
    def coder_inherits(raw: dict[str, Any]) -> None:
        raw["nodes"][1].update(role="coder", run_mode="inherit_resume")

    assert validate_workflow(broken(coder_inherits))[1] == []


def test_a_missing_input_in_a_shell_command() -> None:
    error = only_error(broken(lambda raw: raw["nodes"][0].update(command="echo {{inputs.subject}}")))
    assert (error["node"], error["field"], error["problem"]) == ("fetch", "nodes.0.command", "missing_input")
    assert "'subject'" in error["message"] and "(topic)" in error["message"]


@pytest.mark.parametrize("placeholder", ["{{nodes.plan}}", "{{inputs}}", "{{ shell }}", "{{nodes.plan.output"])
def test_bad_interpolation_syntax_in_an_approval_message(placeholder: str) -> None:
    error = only_error(broken(lambda raw: raw["nodes"][3].update(message=f"Ship {placeholder}?")))
    assert (error["node"], error["field"], error["problem"]) == ("gate", "nodes.3.message", "bad_interpolation")


def test_every_bad_placeholder_of_one_template_is_reported() -> None:
    _, errors = validate_workflow(broken(lambda raw: raw["nodes"][3].update(message="{{a}} {{b}} {{")))
    assert [error["problem"] for error in errors] == ["bad_interpolation"] * 3
    assert ["{{a}}" in errors[0]["message"], "{{b}}" in errors[1]["message"], "unclosed" in errors[2]["message"]] == [
        True
    ] * 3


def test_an_interpolated_node_that_does_not_exist() -> None:
    error = only_error(broken(lambda raw: raw["nodes"][2].update(prompt="{{nodes.plann.output}}")))
    assert (error["node"], error["field"], error["problem"]) == ("review", "nodes.2.prompt", "unknown_node")


def test_an_interpolated_node_that_is_not_upstream() -> None:
    error = only_error(broken(lambda raw: raw["nodes"][1].update(prompt="{{nodes.gate.output}}")))
    assert (error["node"], error["field"], error["problem"]) == ("plan", "nodes.1.prompt", "not_upstream")
    assert "gate is not upstream of plan" in error["message"]


def test_a_node_cannot_interpolate_its_own_output() -> None:
    error = only_error(broken(lambda raw: raw["nodes"][1].update(prompt="again {{nodes.plan.output}}")))
    assert error["problem"] == "not_upstream"


def test_an_output_key_the_output_schema_does_not_declare() -> None:
    error = only_error(broken(lambda raw: raw["nodes"][2].update(prompt="{{nodes.plan.output.stepz}}")))
    assert (error["node"], error["field"], error["problem"]) == ("review", "nodes.2.prompt", "unknown_output_key")


def test_structure_and_graph_errors_come_together_in_one_pass() -> None:
    def many(raw: dict[str, Any]) -> None:
        raw["nodes"][0]["timeout"] = "soon"  # structure
        raw["nodes"][3]["kind"] = "robot"  # structure
        raw["edges"].append({"from": "gate", "to": "nowhere"})  # graph
        raw["nodes"][1]["prompt"] = "{{inputs.subject}}"  # interpolation
        raw["nodes"][2]["role"] = "boss"  # role

    workflow, errors = validate_workflow(broken(many))
    assert workflow is None
    found = {(error["problem"], error["node"]) for error in errors}
    assert found == {
        ("invalid_value", "fetch"),
        ("unknown_kind", "gate"),
        ("dangling_edge", "gate"),
        ("missing_input", "plan"),
        ("unknown_role", "review"),
    }


ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "workflows.md").read_text()


def _problem_codes() -> set[str]:
    """Every code passed to `problem(node, field, CODE, message)` in the workflow modules."""
    codes: set[str] = set()
    for module in ("validation.py", "files.py"):
        tree = ast.parse((ROOT / "wardian_core" / "workflows" / module).read_text())
        for call in ast.walk(tree):
            if isinstance(call, ast.Call) and getattr(call.func, "id", None) == "problem" and len(call.args) > 2:
                code = call.args[2]
                assert isinstance(code, ast.Constant) and isinstance(code.value, str), (
                    "a problem code is a literal string, so the docs can list it"
                )
                codes.add(code.value)
    return codes


def test_every_problem_code_is_documented() -> None:
    codes = _problem_codes()
    assert {"unknown_kind", "cycle", "not_upstream", "invalid_json", "id_mismatch"} <= codes
    assert sorted(code for code in codes if f"| `{code}` |" not in DOC) == []


def test_the_worked_example_in_the_docs_is_valid() -> None:
    example = re.search(r"```json\n(\{\n  \"id\": \"review-diff\".*?)\n```", DOC, re.DOTALL)
    assert example is not None
    workflow, errors = validate_workflow(json.loads(example.group(1)))
    assert errors == [] and workflow is not None
    assert [node.kind for node in workflow.nodes] == ["shell", "agent", "approval"]


def _peak_bytes(raw: dict[str, Any]) -> int:
    tracemalloc.start()
    try:
        workflow, errors = validate_workflow(raw)
        assert workflow is not None and errors == []
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.mark.parametrize("reference", [None, "first", "previous"])
def test_validation_memory_grows_linearly_with_a_chain(reference: Literal["first", "previous"] | None) -> None:
    # Every node's own ancestor set made it quadratic: 2.1 GB for 8,000 nodes.
    short, long = _peak_bytes(chained_workflow(1000, reference)), _peak_bytes(chained_workflow(4000, reference))
    assert long < 6 * short, (short, long)  # linear: about 4x; quadratic: about 16x


def test_upstream_through_a_cycle_is_still_reported_with_the_cycle() -> None:
    def cycle_then_use(raw: dict[str, Any]) -> None:
        raw["edges"].append({"from": "review", "to": "plan"})  # plan ⇄ review
        raw["nodes"][0]["command"] = "echo {{nodes.gate.output}}"  # gate is downstream of fetch

    _, errors = validate_workflow(broken(cycle_then_use))
    assert [(error["problem"], error["node"]) for error in errors] == [("cycle", "plan"), ("not_upstream", "fetch")]


@pytest.mark.parametrize("key", ["nodes", "edges"])
def test_a_workflow_over_the_size_limit_is_too_large_and_checked_no_further(key: str) -> None:
    limit = {"nodes": MAX_NODES, "edges": MAX_EDGES}[key]
    raw = broken(lambda raw: raw.update({key: [{"id": 1}] * (limit + 1)}))
    error = only_error(raw)
    assert (error["field"], error["problem"]) == (key, "too_large")
    assert str(limit) in error["message"]
