"""`wardian workflow list|show|validate|schema` through the real command: list and show
answer from the host when one runs and from the files when none does (or it does not
answer); validate's exit codes; nothing runs on validation."""

import json
import os
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from wardian_core import paths
from wardian_host.daemon.host_lock import running_host_pid

SHIP: dict[str, Any] = {
    "id": "ship",
    "name": "Build and ship",
    "description": "build, review, approve",
    "inputs": {"branch": {"default": "main"}},
    "roles": {"reviewer": {"class": "Reviewer"}},
    "nodes": [
        {"id": "build", "kind": "shell", "command": "echo built {{inputs.branch}}"},
        {"id": "review", "kind": "agent", "role": "reviewer", "prompt": "Review {{nodes.build.output}}"},
        {"id": "gate", "kind": "approval", "message": "Ship it?"},
    ],
    "edges": [{"from": "build", "to": "review"}, {"from": "review", "to": "gate"}],
}


@pytest.fixture
def workflows(wardian_home: Path) -> Path:
    directory = paths.workflows_dir(wardian_home)
    directory.mkdir(parents=True)
    (directory / "ship.json").write_text(json.dumps(SHIP))
    (directory / "broken.json").write_text('{"id": "broken", "nodes": [\n')
    return directory


@pytest.fixture
def host(run_wardian) -> int:
    started = run_wardian("host", "start")
    assert started.returncode == 0, started.stderr
    return int(started.json()["host"]["pid"])


def _list(run_wardian) -> dict[str, Any]:
    listed = run_wardian("workflow", "list")
    assert listed.returncode == 0, listed.stderr
    answer: dict[str, Any] = listed.json()
    return answer


def _assert_catalog(answer: dict[str, Any], workflows: Path) -> None:
    broken, ship = answer["workflows"]
    assert ship == {
        "id": "ship",
        "name": "Build and ship",
        "description": "build, review, approve",
        "nodes": 3,
        "file": str(workflows / "ship.json"),
    }
    assert broken["id"] == "broken" and broken["file"] == str(workflows / "broken.json")
    assert [error["problem"] for error in broken["error"]["errors"]] == ["invalid_json"]


def test_list_and_show_read_the_files_when_no_host_runs(workflows: Path, run_wardian, wardian_home: Path) -> None:
    answer = _list(run_wardian)
    assert answer["source"] == "files" and answer["schema"] == 1
    _assert_catalog(answer, workflows)

    shown = run_wardian("workflow", "show", "ship")
    assert shown.returncode == 0, shown.stderr
    assert shown.json()["source"] == "files"
    definition = shown.json()["workflow"]
    assert definition["roles"] == {"reviewer": {"class": "Reviewer"}}
    assert [node["id"] for node in definition["nodes"]] == ["build", "review", "gate"]
    assert definition["nodes"][1]["run_mode"] == "ephemeral" and definition["edges"] == SHIP["edges"]
    assert running_host_pid(wardian_home) is None  # a read never starts a host


def test_list_and_show_ask_the_running_host(workflows: Path, host: int, run_wardian) -> None:
    answer = _list(run_wardian)
    assert answer["source"] == "live"
    _assert_catalog(answer, workflows)
    # The host reads the files on every request: a workflow added after it started is there.
    (workflows / "later.json").write_text(json.dumps(SHIP | {"id": "later"}))
    assert [entry["id"] for entry in _list(run_wardian)["workflows"]] == ["broken", "later", "ship"]

    shown = run_wardian("workflow", "show", "later")
    assert shown.returncode == 0, shown.stderr
    assert shown.json()["source"] == "live" and shown.json()["workflow"]["id"] == "later"


def test_show_errors_are_the_same_from_the_host_and_the_files(workflows: Path, run_wardian) -> None:
    def errors() -> tuple[dict[str, Any], dict[str, Any]]:
        unknown, invalid = run_wardian("workflow", "show", "shipp"), run_wardian("workflow", "show", "broken")
        assert (unknown.returncode, invalid.returncode) == (2, 1)
        return unknown.error(), invalid.error()

    from_files = errors()
    assert run_wardian("host", "start").returncode == 0
    assert errors() == from_files
    unknown, invalid = from_files
    assert unknown["code"] == "not_found" and "broken, ship" in unknown["hint"]
    assert invalid["code"] == "validation_failed" and invalid["details"]["errors"][0]["problem"] == "invalid_json"


@pytest.fixture
def stopped_host(host: int) -> Iterator[int]:
    os.kill(host, signal.SIGSTOP)
    try:
        yield host
    finally:
        os.kill(host, signal.SIGCONT)


def test_a_host_that_does_not_answer_leaves_the_answer_to_the_files(
    workflows: Path, stopped_host: int, run_wardian
) -> None:
    answer = _list(run_wardian)
    assert answer["source"] == "files"
    _assert_catalog(answer, workflows)


def test_validate_exit_codes(tmp_path: Path, run_wardian, wardian_home: Path) -> None:
    valid = tmp_path / "ship.json"
    valid.write_text(json.dumps(SHIP))
    ok = run_wardian("workflow", "validate", str(valid))
    assert (ok.returncode, ok.json()) == (0, {"schema": 1, "valid": True, "workflow": {"id": "ship", "nodes": 3}})

    invalid = tmp_path / "invalid.json"
    nodes = [*SHIP["nodes"], {"id": "extra", "kind": "robot"}]
    invalid.write_text(json.dumps(SHIP | {"nodes": nodes, "edges": [*SHIP["edges"], {"from": "gate", "to": "build"}]}))
    refused = run_wardian("workflow", "validate", str(invalid))
    assert refused.returncode == 1
    error = refused.error()
    assert error["code"] == "validation_failed" and error["hint"]
    assert [(e["problem"], e["node"]) for e in error["details"]["errors"]] == [
        ("unknown_kind", "extra"),
        ("cycle", "build"),
    ]

    not_json = tmp_path / "not.json"
    not_json.write_text('{\n  "id": "x",\n  nodes: []\n}')
    garbled = run_wardian("workflow", "validate", str(not_json))
    assert garbled.returncode == 1
    [problem] = garbled.error()["details"]["errors"]
    assert (problem["problem"], problem["line"], problem["column"]) == ("invalid_json", 3, 3)

    missing = run_wardian("workflow", "validate", str(tmp_path / "missing.json"))
    assert (missing.returncode, missing.error()["code"]) == (2, "not_found")

    assert running_host_pid(wardian_home) is None and not paths.state_db(wardian_home).exists()  # nothing ran


def test_schema_is_the_json_schema_of_the_format(run_wardian) -> None:
    printed = run_wardian("workflow", "schema")
    assert printed.returncode == 0, printed.stderr
    schema = printed.json()
    assert schema["$schema"].startswith("https://json-schema.org/")
    assert {"id", "nodes", "edges", "roles", "inputs"} <= set(schema["properties"])
    assert schema["required"] == ["id", "nodes"]


def test_show_run_reads_a_finished_run_from_state_db_without_a_host(
    workflows: Path, host: int, run_wardian, workspace: Path
) -> None:
    (workflows / "echo.json").write_text(
        json.dumps({"id": "echo", "nodes": [{"id": "say", "kind": "shell", "command": "printf hello"}]})
    )
    started = run_wardian("workflow", "run", "echo", "--wait", "--workspace", str(workspace))
    assert started.returncode == 0, started.stderr
    run_id = started.json()["run"]["run_id"]
    assert run_wardian("host", "stop").returncode == 0

    shown = run_wardian("workflow", "show", "echo", "--run", run_id)
    assert shown.returncode == 0, shown.stderr
    run = shown.json()["run"]
    assert (run["run_id"], run["workflow_id"], run["status"]) == (run_id, "echo", "completed")
    assert run["nodes"]["say"]["state"] == "completed"
    assert run["events"][0]["kind"] == "run_started"
    assert run["events"][-1]["kind"] == "run_completed"

    other = run_wardian("workflow", "show", "ship", "--run", run_id)
    assert other.returncode == 2 and "a run of echo" in other.error()["message"]
    unknown = run_wardian("workflow", "show", "echo", "--run", "run_nope")
    assert (unknown.returncode, unknown.error()["code"]) == (2, "not_found")


def test_show_run_in_a_home_without_state_db_is_not_found(run_wardian) -> None:
    unknown = run_wardian("workflow", "show", "echo", "--run", "run_nope")
    assert (unknown.returncode, unknown.error()["code"]) == (2, "not_found")
