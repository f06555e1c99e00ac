"""The workflow files under <home>/workflows/: listed (a broken one with its error, never
hidden), loaded by id, and refused with every error when invalid."""

import json
from pathlib import Path
from typing import Any

import pytest
from answer_wire import assert_wired_unchanged

from wardian_core import paths
from wardian_core.errors import WardianError
from wardian_core.workflows import files


def definition(workflow_id: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": workflow_id,
        "name": f"{workflow_id} flow",
        "description": "two steps",
        "roles": {"coder": {"class": "Coder"}},
        "nodes": [
            {"id": "build", "kind": "shell", "command": "make"},
            {"id": "fix", "kind": "agent", "role": "coder", "prompt": "Fix {{nodes.build.output}}"},
        ],
        "edges": [{"from": "build", "to": "fix"}],
    } | extra


@pytest.fixture
def workflows(wardian_home: Path) -> Path:
    directory = paths.workflows_dir(wardian_home)
    directory.mkdir(parents=True)
    return directory


def write(directory: Path, name: str, content: Any) -> Path:
    path = directory / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return path


def test_no_workflows_directory_lists_nothing(wardian_home: Path) -> None:
    assert files.list_workflows(wardian_home) == []


def test_a_valid_file_is_summarised(wardian_home: Path, workflows: Path) -> None:
    path = write(workflows, "ship.json", definition("ship"))
    assert files.list_workflows(wardian_home) == [
        {"id": "ship", "name": "ship flow", "description": "two steps", "nodes": 2, "file": str(path)}
    ]


def test_broken_files_are_listed_with_their_error_in_file_order(wardian_home: Path, workflows: Path) -> None:
    write(workflows, "a-corrupt.json", '{"id": "a-corrupt",\n  "nodes": [}')
    write(
        workflows,
        "b-invalid.json",
        definition("b-invalid", edges=[{"from": "build", "to": "fix"}, {"from": "build", "to": "nowhere"}]),
    )
    write(workflows, "c-valid.json", definition("c-valid"))
    write(workflows, "d-renamed.json", definition("something-else"))
    (workflows / "e-directory.json").mkdir()
    write(workflows, "notes.txt", "not a workflow file")

    listed = {entry["id"]: entry for entry in files.list_workflows(wardian_home)}
    assert list(listed) == ["a-corrupt", "b-invalid", "c-valid", "d-renamed", "e-directory"]
    assert "error" not in listed["c-valid"] and listed["c-valid"]["nodes"] == 2

    corrupt = listed["a-corrupt"]["error"]
    assert [e["problem"] for e in corrupt["errors"]] == ["invalid_json"]
    assert (corrupt["errors"][0]["line"], corrupt["errors"][0]["column"]) == (2, 13)
    assert "line 2, column 13" in corrupt["message"]
    assert "wardian workflow validate" in corrupt["hint"] and "a-corrupt.json" in corrupt["hint"]

    invalid = listed["b-invalid"]["error"]
    assert [(e["problem"], e["field"]) for e in invalid["errors"]] == [("dangling_edge", "edges.1.to")]

    renamed = listed["d-renamed"]["error"]
    assert [e["problem"] for e in renamed["errors"]] == ["id_mismatch"]
    assert "d-renamed.json" in renamed["message"] and "'something-else'" in renamed["message"]

    unreadable = listed["e-directory"]["error"]
    assert [e["problem"] for e in unreadable["errors"]] == ["unreadable"]
    assert_wired_unchanged("workflow.list", {"workflows": files.list_workflows(wardian_home)})


def test_an_invalid_file_lists_every_error_and_counts_the_rest(wardian_home: Path, workflows: Path) -> None:
    edges = [{"from": "build", "to": "fix"}, {"from": "fix", "to": "fix"}]
    write(workflows, "two.json", definition("two", roles={}, edges=edges))
    [entry] = files.list_workflows(wardian_home)
    assert [e["problem"] for e in entry["error"]["errors"]] == ["self_edge", "unknown_role"]
    assert entry["error"]["message"].endswith("(and 1 more)")


def test_load_gives_the_workflow(wardian_home: Path, workflows: Path) -> None:
    write(workflows, "ship.json", definition("ship"))
    workflow = files.load_workflow(wardian_home, "ship")
    assert workflow.id == "ship" and workflow.upstream("fix") == ["build"]


def test_load_of_an_unknown_id_lists_the_known_ones(wardian_home: Path, workflows: Path) -> None:
    write(workflows, "ship.json", definition("ship"))
    write(workflows, "deploy.json", definition("deploy"))
    with pytest.raises(WardianError) as raised:
        files.load_workflow(wardian_home, "shop")
    assert raised.value.code == "not_found" and raised.value.exit_code == 2
    assert "deploy, ship" in str(raised.value.hint)
    assert raised.value.details == {"id": "shop", "known": ["deploy", "ship"]}


def test_load_without_any_workflow_says_where_to_put_one(wardian_home: Path) -> None:
    with pytest.raises(WardianError) as raised:
        files.load_workflow(wardian_home, "ship")
    assert raised.value.code == "not_found"
    assert str(paths.workflows_dir(wardian_home)) in str(raised.value.hint)


def test_an_id_cannot_reach_a_file_outside_the_workflows_directory(wardian_home: Path, workflows: Path) -> None:
    write(wardian_home, "outside.json", definition("outside"))
    with pytest.raises(WardianError) as raised:
        files.load_workflow(wardian_home, "../outside")
    assert raised.value.code == "not_found"


def test_load_of_an_invalid_file_fails_with_every_error(wardian_home: Path, workflows: Path) -> None:
    write(workflows, "ship.json", definition("ship", roles={}, edges=[{"from": "fix", "to": "build"}]))
    with pytest.raises(WardianError) as raised:
        files.load_workflow(wardian_home, "ship")
    assert raised.value.code == "validation_failed" and raised.value.exit_code == 1
    problems = [error["problem"] for error in raised.value.details["errors"]]
    assert problems == ["unknown_role", "not_upstream"]
    assert "2 errors" in raised.value.message


def test_show_gives_the_whole_definition_with_defaults_and_role_mappings(wardian_home: Path, workflows: Path) -> None:
    path = write(workflows, "ship.json", definition("ship"))
    shown = files.show_workflow(wardian_home, "ship")
    assert_wired_unchanged("workflow.show", shown)
    assert shown["file"] == str(path)
    workflow = shown["workflow"]
    assert workflow["roles"] == {"coder": {"class": "Coder"}}
    assert workflow["edges"] == [{"from": "build", "to": "fix"}]
    assert workflow["nodes"][1] == {
        "id": "fix",
        "kind": "agent",
        "role": "coder",
        "prompt": "Fix {{nodes.build.output}}",
        "run_mode": "ephemeral",
        "wait_for_agent_off": False,
        "worktree": False,
        "timeout": 600.0,
    }


def test_a_file_elsewhere_need_not_be_named_after_its_id(wardian_home: Path, tmp_path: Path) -> None:
    path = write(tmp_path, "draft.json", definition("ship"))
    workflow, errors = files.check_file(wardian_home, path)
    assert errors == [] and workflow is not None and workflow.id == "ship"


def test_an_unreadable_file_is_not_found(wardian_home: Path, tmp_path: Path) -> None:
    with pytest.raises(WardianError) as raised:
        files.check_file(wardian_home, tmp_path / "missing.json")
    assert raised.value.code == "not_found" and "missing.json" in raised.value.message


def test_a_file_that_is_not_utf8_is_unreadable_not_a_crash(wardian_home: Path, workflows: Path) -> None:
    (workflows / "latin.json").write_bytes(b'{"id": "caf\xe9"}')
    [entry] = files.list_workflows(wardian_home)
    assert [e["problem"] for e in entry["error"]["errors"]] == ["unreadable"]


def _nested(depth: int) -> str:
    return '{"id": "deep", "nodes": [], "x": ' + "[" * depth + "]" * depth + "}"


@pytest.mark.parametrize("depth", [65, 900, 100_000])  # 100,000 raised RecursionError in json.loads
def test_a_deeply_nested_file_is_listed_as_too_deep_beside_the_others(
    wardian_home: Path, workflows: Path, depth: int
) -> None:
    write(workflows, "a.json", definition("a"))
    write(workflows, "deep.json", _nested(depth))
    listed = files.list_workflows(wardian_home)
    assert [item["id"] for item in listed] == ["a", "deep"] and "error" not in listed[0]
    error = listed[1]["error"]
    assert error["errors"][0]["problem"] == "too_deep" and "64 levels" in error["message"]
    with pytest.raises(WardianError) as refused:
        files.load_workflow(wardian_home, "deep")
    assert refused.value.code == "validation_failed" and refused.value.hint


def test_a_file_over_the_size_limit_is_too_large_unread(
    wardian_home: Path, workflows: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(files, "MAX_FILE_BYTES", 1000)
    write(workflows, "big.json", definition("big", description="x" * 1000))
    [listed] = files.list_workflows(wardian_home)
    assert listed["error"]["errors"][0]["problem"] == "too_large" and "1000 bytes" in listed["error"]["message"]


def test_a_listing_checks_again_only_the_files_that_changed(
    wardian_home: Path, workflows: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(workflows, "a.json", definition("a"))
    write(workflows, "b.json", definition("b"))
    checked: list[str] = []
    check_file = files.check_file

    def counted(home: Path, path: Path) -> files.Checked:
        checked.append(path.name)
        return check_file(home, path)

    monkeypatch.setattr(files, "check_file", counted)
    catalog = files.CheckedFiles(wardian_home)
    first = catalog.summaries()
    assert catalog.summaries() == first and checked == ["a.json", "b.json"]
    write(workflows, "b.json", definition("b", name="renamed flow"))
    (workflows / "a.json").unlink()
    assert [item["name"] for item in catalog.summaries()] == ["renamed flow"]
    assert checked == ["a.json", "b.json", "b.json"]
