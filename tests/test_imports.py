"""The package's import graph: which layers may import which, and no circles.

A circle makes each module's import order matter and hides which layer a change
belongs to (issue 18). The graph is read from the source with ``ast``, so that an
import inside a function or under ``if TYPE_CHECKING:`` counts as much as one at the
top: both tie the two modules together.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import reconcile

PACKAGE = Path(reconcile.__file__).parent


def modules(package: Path = PACKAGE, name: str = "reconcile") -> dict[str, Path]:
    """Every module of a package by its dotted name (a package by its ``__init__``)."""
    found: dict[str, Path] = {}
    for path in sorted(package.rglob("*.py")):
        parts = path.relative_to(package).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join((name, *parts))] = path
    return found


def _base(module: str, is_package: bool, level: int) -> str:
    """The package a relative import of ``level`` dots starts from."""
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    return ".".join(parts[: len(parts) - (level - 1)])


def _targets(
    node: ast.Import | ast.ImportFrom, module: str, is_package: bool, known: Iterable[str]
) -> set[str]:
    """The package's modules an import statement imports: ``import a.b`` imports
    ``a.b``; ``from a import b`` imports ``a.b`` where that is a module, else ``a``
    (whose attribute ``b`` is). Relative imports are resolved from ``module``."""
    known = set(known)
    if isinstance(node, ast.Import):
        return {alias.name for alias in node.names} & known
    if node.level:
        base = _base(module, is_package, node.level)
        source = f"{base}.{node.module}" if node.module else base
    else:
        source = node.module or ""
    found = set()
    for alias in node.names:
        submodule = f"{source}.{alias.name}"
        found.add(submodule if submodule in known else source)
    return found & known


def import_graph(package: Path = PACKAGE, name: str = "reconcile") -> dict[str, set[str]]:
    """Each module of the package, to the package's modules it imports anywhere in it
    (at the top, inside functions, under ``if TYPE_CHECKING:``)."""
    known = modules(package, name)
    graph: dict[str, set[str]] = {}
    for module, path in known.items():
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                targets |= _targets(node, module, path.name == "__init__.py", known)
        graph[module] = targets - {module}
    return graph


def under(module: str, prefixes: Iterable[str]) -> bool:
    """Whether a module is one of ``prefixes`` or lies below one."""
    return any(module == p or module.startswith(f"{p}.") for p in prefixes)


def cycles(graph: Mapping[str, Iterable[str]], prefixes: Iterable[str]) -> list[list[str]]:
    """The import circles among the modules under ``prefixes``: each strongly
    connected group of more than one module (Tarjan's algorithm), sorted."""
    prefixes = tuple(prefixes)
    nodes = sorted(m for m in graph if under(m, prefixes))
    edges = {m: sorted(t for t in graph[m] if under(t, prefixes)) for m in nodes}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in edges.get(node, []):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in nodes:
        if node not in index:
            visit(node)
    return sorted(found)


def test_the_graph_sees_every_kind_of_import(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("from pkg.sub.b import B\n")
    (pkg / "a.py").write_text(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from pkg.sub import b\n"
        "def f():\n    from .sub.c import C\n    import pkg.d\n"
    )
    (pkg / "sub" / "b.py").write_text("from .. import a\nB = 1\n")
    (pkg / "sub" / "c.py").write_text("from . import B\nC = 1\n")
    (pkg / "d.py").write_text("import os\nfrom pkg import sub\n")
    graph = import_graph(pkg, "pkg")
    assert graph == {
        "pkg": set(),
        "pkg.a": {"pkg.sub.b", "pkg.sub.c", "pkg.d"},
        "pkg.d": {"pkg.sub"},
        "pkg.sub": {"pkg.sub.b"},
        "pkg.sub.b": {"pkg.a"},
        "pkg.sub.c": {"pkg.sub"},
    }
    assert cycles(graph, ["pkg"]) == [["pkg.a", "pkg.d", "pkg.sub", "pkg.sub.b", "pkg.sub.c"]]
    assert cycles(graph, ["pkg.sub"]) == []
    assert cycles({"x": {"y"}, "y": {"x"}, "z": {"x"}}, ["x", "y", "z"]) == [["x", "y"]]


def test_discovery_and_loading_do_not_import_the_mapping() -> None:
    """The mapping hands the loader table sources (reconcile.logset.sources); the
    log set layer knows nothing of mappings."""
    graph = import_graph()
    assert any(under(m, ["reconcile.logset"]) for m in graph)
    wrong = sorted(
        f"{module} imports {target}"
        for module, targets in graph.items()
        if under(module, ["reconcile.logset"])
        for target in targets
        if under(target, ["reconcile.mapping"])
    )
    assert wrong == []


def test_no_circles_between_the_log_set_and_the_mapping() -> None:
    assert cycles(import_graph(), ["reconcile.logset", "reconcile.mapping"]) == []


def test_the_package_has_no_import_circles() -> None:
    """No module of reconcile reaches itself through its imports, even through
    imports made inside functions or for type checking."""
    assert cycles(import_graph(), ["reconcile"]) == []


def test_the_engine_imports_no_presentation_and_no_spark() -> None:
    """The engine (reconcile.engine) computes; rendering, the command line, the
    audit's report and the Spark engine sit on top of it, never under it."""
    graph = import_graph()
    above = ["reconcile.render", "reconcile.cli", "reconcile.spark", "reconcile.audit"]
    wrong = sorted(
        f"{module} imports {target}"
        for module, targets in graph.items()
        if under(module, ["reconcile.engine"])
        for target in targets
        if under(target, above)
    )
    assert any(under(m, ["reconcile.engine"]) for m in graph)
    assert wrong == []
