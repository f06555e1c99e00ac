"""The portable backend's pass names real tests, and covers each seam with plumbing and a real CLI."""

import ast
import re
from pathlib import Path

import portable_pass

ROOT = Path(__file__).resolve().parents[1]


def _test_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}


def test_every_named_test_exists() -> None:
    missing = []
    for test in portable_pass.selection():
        file, _, name = test.partition("::")
        path = ROOT / file
        a_test_file = path.is_file() and re.fullmatch(r"(tests|providers)/.*test_\w+\.py", file) is not None
        if not a_test_file or (name and name not in _test_names(path)):
            missing.append(test)
    assert missing == []


def test_each_seam_has_plumbing_and_a_real_cli_test() -> None:
    assert len(portable_pass.SEAMS) == 4
    for seam, tests in portable_pass.SEAMS.items():
        assert tests["plumbing"] and all(t.startswith("tests/e2e/") for t in tests["plumbing"]), seam
        assert tests["real CLI"] and all("real_cli" in t for t in tests["real CLI"]), seam


def test_the_selection_names_each_test_once() -> None:
    selection = portable_pass.selection()
    assert len(selection) == len(set(selection)) > 10


def test_docs_list_every_seam_and_test() -> None:
    page = (ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
    for seam, tests in portable_pass.SEAMS.items():
        assert seam.split(" (")[0] in page
        for test in (t for kind in tests.values() for t in kind):
            assert test.split("::")[-1].removesuffix(".py").split("/")[-1] in page, test
