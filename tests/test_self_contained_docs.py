"""The repository stands on its own: no doc or docstring points at a file outside it.

A reader of a clone has only the clone. Design notes the code relies on live in
docs/architecture.md; a reference to the notes the project was planned from, or to a
path beside the checkout, would send them nowhere.
"""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIPPED = {".git", ".venv", ".cache", "node_modules", "recordings"}
SUFFIXES = {".py", ".md", ".toml", ".yaml", ".yml"}

# Written so that this file does not match itself.
OUTSIDE = re.compile(r"\bDESIGN(?:\.md\b|'s\b)|\.\./shared\b|\bshared/(?:seeds|fixtures)\b|\bseeds/|/work/(?:shared)\b")
# A Markdown link's target: `[text](target)` or `[text](target "title")`.
LINK = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _sources() -> list[Path]:
    return [
        path
        for path in ROOT.rglob("*")
        if path.suffix in SUFFIXES
        and path.is_file()
        and not SKIPPED & set(path.relative_to(ROOT).parts)
        and not any(part.endswith(".egg-info") for part in path.parts)
    ]


def _outside_mentions(path: Path) -> list[str]:
    text = path.read_text(encoding="utf-8", errors="replace")
    return [
        f"{path.relative_to(ROOT)}:{number}: {match.group(0)}"
        for number, line in enumerate(text.splitlines(), start=1)
        for match in OUTSIDE.finditer(line)
    ]


def _broken_links(page: Path, text: str) -> list[str]:
    """Relative link targets in `text` that leave the repository or name a file it does not have."""
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z]+:|#", target):
            continue  # a URL or an anchor on the same page
        resolved = (page.parent / target.split("#")[0]).resolve()
        if not resolved.is_relative_to(ROOT) or not resolved.exists():
            broken.append(target)
    return broken


def test_no_doc_or_docstring_names_a_file_outside_the_repository() -> None:
    sources = _sources()
    assert len(sources) > 100  # the walk found the tree
    assert [mention for path in sources for mention in _outside_mentions(path)] == []


def test_markdown_links_stay_inside_the_repository() -> None:
    pages = [path for path in _sources() if path.suffix == ".md"]
    assert ROOT / "docs" / "architecture.md" in pages
    broken = {str(page.relative_to(ROOT)): _broken_links(page, page.read_text(encoding="utf-8")) for page in pages}
    assert {page: targets for page, targets in broken.items() if targets} == {}


def test_the_checks_catch_what_they_look_for() -> None:
    # The patterns are built to miss their own source; prove they still catch the real thing.
    assert OUTSIDE.search("see " + "DESIGN" + ".md") and OUTSIDE.search("DESIGN" + "'s table")
    assert OUTSIDE.search("`" + "../" + "shared/" + "see" + "ds/README.md`")
    assert not OUTSIDE.search("tests/fixtures/shared/codex-tui.raw")
    text = "[a](../../../outside.md) [b](cli.md#errors) [c](nope.md) [d](https://e.org) [e](#runtime)"
    assert _broken_links(ROOT / "docs" / "architecture.md", text) == ["../../../outside.md", "nope.md"]
