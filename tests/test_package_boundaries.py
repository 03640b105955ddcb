"""The product package never imports the tools around it (bench, docgen, tests, scripts)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PRODUCT = Path(__file__).resolve().parent.parent / "courserag"
TOOLS = ("bench", "docgen", "tests", "scripts")


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", sorted(PRODUCT.rglob("*.py")), ids=lambda p: str(p.relative_to(PRODUCT)))
def test_product_modules_import_no_tool(path):
    tools = {name for name in imported_modules(path) if name.split(".")[0] in TOOLS}
    assert not tools, f"{path.name} imports {sorted(tools)}"
