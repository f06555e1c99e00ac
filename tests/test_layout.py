"""The import directions docs/architecture.md draws, checked on every module."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Which parts of wardian_host each part may import (itself included).
ALLOWED = {
    "mcp": {"mcp", "answers"},
    "answers": {"answers"},
    "cli": {"cli", "answers", "mcp", "daemon", "providers", "remote", "testing"},
    # The terminal dashboard, a front end over the CLI's own helpers (the lazy group names it by string).
    "tui": {"tui", "cli", "answers", "remote"},
    "remote": {"remote"},
    "daemon": {"daemon", "mcp", "answers", "workflows", "agents", "output", "terminal", "providers", "web", "notify"},
    "workflows": {"workflows", "agents", "output", "terminal", "providers", "remote"},
    "agents": {"agents", "output", "terminal", "providers"},
    "output": {"output", "providers"},
    "terminal": {"terminal"},
    "providers": {"providers"},
    "testing": {"testing", "daemon", "providers", "terminal"},
    "web": {"web", "notify", "remote"},
    "notify": {"notify"},
}


def _imported_modules(path: Path) -> set[str]:
    """Every module an import names, at any depth (TYPE_CHECKING and function-local too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _host_parts(path: Path) -> set[str]:
    names = _imported_modules(path)
    return {name.split(".")[1] for name in names if name.startswith("wardian_host.") and name.count(".") >= 1}


def test_every_host_module_sits_in_a_known_part() -> None:
    loose = [p.name for p in (ROOT / "wardian_host").glob("*.py") if p.name not in ("__init__.py", "__main__.py")]
    assert loose == [], "a module outside the parts; put it in the part that owns it"
    parts = {p.name for p in (ROOT / "wardian_host").iterdir() if (p / "__init__.py").exists()}
    assert parts == set(ALLOWED)


@pytest.mark.parametrize("part", sorted(ALLOWED))
def test_a_host_part_imports_only_the_parts_below_it(part: str) -> None:
    wrong = {
        str(path.relative_to(ROOT)): sorted(_host_parts(path) - ALLOWED[part])
        for path in (ROOT / "wardian_host" / part).rglob("*.py")
        if _host_parts(path) - ALLOWED[part]
    }
    assert wrong == {}


@pytest.mark.parametrize("part", ["answers", "mcp"])
def test_what_the_host_serves_mcp_with_never_imports_click(part: str) -> None:
    # The host imports these to answer MCP tools: the CLI's click stays out of every host.
    offenders = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "wardian_host" / part).rglob("*.py")
        if any(name == "click" or name.startswith("click.") for name in _imported_modules(path))
    ]
    assert offenders == []


# The conformance kit runs a provider as the host does; re-exported for provider tests only.
PROVIDER_TESTING_KIT = ROOT / "wardian_core" / "provider" / "testing.py"


def test_core_and_provider_packages_never_import_the_host() -> None:
    sources = [*(ROOT / "wardian_core").rglob("*.py"), *ROOT.glob("providers/*/src/**/*.py")]
    sources = [path for path in sources if path != PROVIDER_TESTING_KIT]
    assert len(sources) > 20
    offenders = [
        str(path.relative_to(ROOT))
        for path in sources
        if any(name == "wardian_host" or name.startswith("wardian_host.") for name in _imported_modules(path))
    ]
    assert offenders == []
