"""The longest tests start first, in shares worksteal hands each worker, balanced by seconds."""

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

import pytest
from duration_order import junit_key, longest_first, record_durations, share_sizes


def _items(*nodeids: str) -> list[pytest.Item]:
    return [cast(pytest.Item, SimpleNamespace(nodeid=nodeid)) for nodeid in nodeids]


def test_the_key_is_the_junit_reports_classname_and_name() -> None:
    assert (
        junit_key("providers/wardian-x/tests/test_a.py::test_b[x-1.2]")
        == "providers.wardian-x.tests.test_a::test_b[x-1.2]"
    )
    assert junit_key("tests/test_a.py::TestB::test_c") == "tests.test_a.TestB::test_c"


def test_shares_have_the_sizes_worksteal_sends_each_idle_worker() -> None:
    assert share_sizes(10, 4) == [2, 2, 3, 3]
    assert share_sizes(3, 4) == [0, 1, 1, 1]


def test_each_share_starts_with_its_longest_and_the_seconds_are_balanced() -> None:
    durations = {"tests.test_a::t1": 9.0, "tests.test_a::t2": 8.0, "tests.test_a::t3": 2.0, "tests.test_a::t4": 1.0}
    ordered = longest_first(_items(*(f"tests/test_a.py::t{n}" for n in (4, 3, 2, 1))), 2, durations)
    assert [item.nodeid.split("::")[1] for item in ordered] == ["t1", "t4", "t2", "t3"]


def test_a_module_sharing_a_module_fixture_stays_together() -> None:
    fixture = SimpleNamespace(scope="module")
    shared = [cast(Any, SimpleNamespace(nodeid=f"tests/remote/test_r.py::r{n}", _fixtureinfo=None)) for n in (1, 2)]
    for item in shared:
        item._fixtureinfo = SimpleNamespace(name2fixturedefs={"machine": [fixture]})
    ordered = longest_first([*shared, *_items("tests/test_a.py::t1", "tests/test_a.py::t2")], 2, {})
    positions = [ordered.index(item) for item in shared]
    assert positions[1] - positions[0] == 1


def test_recorded_durations_keep_the_longest_of_each_test_above_an_unknown_ones(tmp_path: Path) -> None:
    case = '<testcase classname="tests.test_a" name="{}" time="{}"/>'
    for name, cases in {"one": [("slow", 3.04), ("quick", 0.1)], "two": [("slow", 4.0)]}.items():
        body = "".join(case.format(*c) for c in cases)
        (tmp_path / f"{name}.xml").write_text(f"<testsuites><testsuite>{body}</testsuite></testsuites>")
    written = tmp_path / "durations.json"
    assert record_durations([tmp_path / "one.xml", tmp_path / "two.xml"], written) == 1
    assert json.loads(written.read_text()) == {"tests.test_a::slow": 4.0}
