"""What a provider package's Python files import of Wardian, for the checks that it imports only
the provider namespace (`wardian_core.provider`)."""

import ast
from pathlib import Path

NAMESPACE = "wardian_core.provider"


def wardian_imports(path: Path) -> list[str]:
    """Every module of Wardian's (`wardian_core`, `wardian_host`) the file imports, anywhere in it."""
    names = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names += [node.module] if node.module != "wardian_core" else [f"wardian_core.{a.name}" for a in node.names]
    return [name for name in names if name.split(".")[0] in ("wardian_core", "wardian_host")]


def in_namespace(module: str) -> bool:
    return module == NAMESPACE or module.startswith(f"{NAMESPACE}.")
