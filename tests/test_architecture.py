"""The tree shows the architecture: no import cycles, and nothing installed under a name
DeepBot does not own."""

from __future__ import annotations

import ast
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _runtime_imports(path: Path) -> set[str]:
    """Modules a file imports when it runs (imports under ``if TYPE_CHECKING:`` left out)."""
    tree = ast.parse(path.read_text("utf-8"))
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skipped.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
            found.add(node.module + "?")  # the package itself, unless every name is a submodule
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return found


def _modules() -> dict[str, Path]:
    modules = {}
    for package in ("deepbot", "nseql"):
        for path in (ROOT / package).rglob("*.py"):
            parts = path.relative_to(ROOT).with_suffix("").parts
            modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return modules


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in graph.get(node, ()):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return cycles


def _graph() -> dict[str, set[str]]:
    """Module → the modules it imports when it runs."""
    modules = _modules()
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        imported = _runtime_imports(path)
        direct = {t for t in imported if t in modules}
        for package in (t[:-1] for t in imported if t.endswith("?")):
            if package in modules and not any(t.startswith(package + ".") for t in direct):
                direct.add(package)  # `from pkg import name` of a name that is no submodule
        graph[name] = direct - {name}
    return graph


def test_no_module_imports_another_that_imports_it_back() -> None:
    assert _cycles(_graph()) == []


def test_no_two_parts_of_deepbot_import_each_other() -> None:
    """deepbot's subpackages (crawl, content, policy, forms…) form layers: when one imports
    another, nothing of the other imports anything of it, even by another module."""

    packages = {name for name, path in _modules().items()
                if name.count(".") == 1 and name.startswith("deepbot.") and path.name == "__init__.py"}

    def part(module: str) -> str | None:
        """The subpackage a module is in, or is (None: deepbot itself, or a top-level module)."""
        parts = module.split(".")
        inside = parts[0] == "deepbot" and (len(parts) > 2 or module in packages)
        return parts[1] if inside else None

    edges: dict[str, set[str]] = {}
    for name, targets in _graph().items():
        for target in targets:
            source, imported = part(name), part(target)
            if source is not None and imported is not None and source != imported:
                edges.setdefault(source, set()).add(imported)
    both_ways = sorted(f"{a} <-> {b}" for a, targets in edges.items() for b in targets
                       if a < b and a in edges.get(b, set()))
    assert both_ways == []


@pytest.mark.slow
@pytest.mark.timeout(180)
def test_the_wheel_installs_only_deepbot_and_nseql_and_ships_the_demo(tmp_path: Path) -> None:
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
                    "-w", str(tmp_path), str(ROOT)], check=True, timeout=170)
    wheel = next(tmp_path.glob("deepbot-*.whl"))
    names = zipfile.ZipFile(wheel).namelist()
    top = {name.split("/")[0] for name in names if not name.split("/")[0].endswith((".dist-info", ".data"))}
    assert top == {"deepbot", "nseql"}
    assert "deepbot/demo/domains/books.yaml" in names
    assert "deepbot/demo/bookshop.py" in names
