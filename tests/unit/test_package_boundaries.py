"""The layers of the product, enforced: the package never imports the tools around it, its
packages import each other without a circle, the language layer stands alone, answering
reads retrieval only through its hand-off types, and only the entry layers import the
engine and the UI. Inside the UI, its feature packages (the Study, Instructor and roadmap
tabs) do not import each other, and the rendering they share and the shell's helpers import no
feature."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

PRODUCT = next(folder / "courserag" for folder in Path(__file__).resolve().parents if (folder / "courserag").is_dir())
TOOLS = ("bench", "docgen", "tests", "scripts", "training")
MODULES = sorted(PRODUCT.rglob("*.py"))
# Packages (or top-level modules) that import nothing of ours but the ones listed.
STANDALONE = {"lang": set(), "i18n": set(), "errors": {"i18n"}, "records": set(), "config": {"errors"}}
# What answering may read of retrieval: the packed sources it is handed and the chat turns.
ANSWERS_FROM_RETRIEVAL = {"courserag.retrieval.packing", "courserag.retrieval.followup"}
# Only these import the engine or the UI (the layers above everything else).
ENTRY_LAYERS = {"engine": {"engine", "ui", "cli"}, "ui": {"ui"}, "cli": {"cli"}}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PRODUCT.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def unit(module: str) -> str:
    """The first component under courserag: a package, or a top-level module."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def own_imports(path: Path) -> set[str]:
    return {name for name in imported_modules(path) if name.startswith("courserag.")}


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PRODUCT)))
def test_product_modules_import_no_tool(path):
    tools = {name for name in imported_modules(path) if name.split(".")[0] in TOOLS}
    assert not tools, f"{path.name} imports {sorted(tools)}"


def test_packages_import_each_other_without_a_circle():
    edges: dict[str, set[str]] = defaultdict(set)
    for path in MODULES:
        source = unit(module_name(path))
        edges[source].update(unit(name) for name in own_imports(path) if unit(name) != source)

    def reaches(start: str, goal: str) -> bool:
        seen, todo = set(), [start]
        while todo:
            for nxt in edges.get(todo.pop(), ()):
                if nxt == goal:
                    return True
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return False

    circles = sorted((a, b) for a in edges for b in edges[a] if reaches(b, a))
    assert not circles, f"package import circles: {circles}"


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PRODUCT)))
def test_each_layer_imports_only_what_it_may(path):
    module = module_name(path)
    source = unit(module)
    imports = {name for name in own_imports(path) if unit(name) != source}
    if source in STANDALONE:
        assert {unit(name) for name in imports} <= STANDALONE[source], f"{module} imports {sorted(imports)}"
    if source == "answers":
        internals = {name for name in imports if unit(name) == "retrieval"} - ANSWERS_FROM_RETRIEVAL
        assert not internals, f"{module} reaches into retrieval: {sorted(internals)}"
    for name in imports:
        allowed = ENTRY_LAYERS.get(unit(name))
        assert allowed is None or source in allowed, f"{module} imports {name} from a layer above it"


def own_modules_imported(path: Path, modules: set[str]) -> set[str]:
    """The product modules `path` imports anywhere in it (at the top, inside a function, or
    for type checking only): `from pkg import mod` counts as `pkg.mod` when that is a module."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.update(
                f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in modules else node.module
                for alias in node.names
            )
    return names & modules


def circles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other round a circle (strongly connected
    components of more than one), found without recursion."""
    order, low, on_stack, stack, found, counter = {}, {}, set(), [], [], 0
    for root in sorted(edges):
        if root in order:
            continue
        work = [(root, iter(sorted(edges[root])))]
        order[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == order[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))
            elif child not in order:
                order[child] = low[child] = counter
                counter += 1
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(edges.get(child, ())))))
            elif child in on_stack:
                low[node] = min(low[node], order[child])
    return found


@pytest.mark.parametrize(
    "edges, expected",
    [
        ({"a": {"b"}, "b": set()}, []),
        ({"a": {"b"}, "b": {"a"}}, [["a", "b"]]),
        ({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}, [["a", "b", "c"]]),
        ({"a": {"a"}}, []),
    ],
)
def test_circles_are_found(edges, expected):
    assert circles(edges) == expected


def test_modules_import_each_other_without_a_circle():
    """Not even hidden in a function or behind TYPE_CHECKING: a circle means two modules
    share an idea that belongs in a third (e5_outputs.py, extractive/candidate.py)."""
    paths = {module_name(path): path for path in MODULES if path.name != "__init__.py"}
    modules = set(paths)
    edges = {name: own_modules_imported(path, modules) - {name} for name, path in paths.items()}
    assert circles(edges) == []


# The UI: feature packages (one per tab) over the rendering they share and the shell's helpers.
UI = PRODUCT / "ui"
UI_FEATURES = ("study", "instructor", "roadmap")
# What each part of the UI may import of the UI (besides itself): a feature reads rendering/ and
# these helpers of the shell (who a client is, the server's client address, course-file links);
# rendering/ reads only the course-file links; the shell's helpers read only each other. Only
# the shell's app.py (`build_demo`) and the package's __init__.py compose the features.
UI_SHELL_HELPERS = {"clients", "server", "files", "theme", "launch"}
UI_MAY_IMPORT = {
    **{feature: {"rendering", "clients", "server", "files"} for feature in UI_FEATURES},
    "rendering": {"files"},
    **{helper: UI_SHELL_HELPERS for helper in UI_SHELL_HELPERS},
}
UI_MODULES = sorted(path for path in UI.rglob("*.py") if path.parent != UI or path.stem in UI_SHELL_HELPERS)


def ui_part(module: str) -> str:
    """The part of the UI a module is in: a sub-package, a top-level module of the shell, or ""
    for the package itself (courserag.ui, which composes everything)."""
    parts = module.split(".")
    return parts[2] if len(parts) > 2 else ""


def test_the_ui_has_its_feature_and_rendering_packages():
    packages = {path.parent.name for path in UI.glob("*/__init__.py")}
    assert packages == {*UI_FEATURES, "rendering"}, sorted(packages)


@pytest.mark.parametrize("path", UI_MODULES, ids=lambda p: str(p.relative_to(UI)))
def test_ui_features_import_each_other_not(path):
    modules = {module_name(p) for p in MODULES}
    part = ui_part(module_name(path))
    imported = {
        ui_part(name) for name in own_modules_imported(path, modules) if name.split(".")[:2] == ["courserag", "ui"]
    }
    crossing = imported - {part} - UI_MAY_IMPORT[part]
    assert not crossing, f"ui/{path.relative_to(UI)} imports {sorted(crossing)} of the UI"
