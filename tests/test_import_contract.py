"""Data flows one way: the contracts of pyproject.toml ([tool.importlinter]) hold.

A module imports only from the floors below its own, siblings on a floor (``|``) do not import
each other, and every module of pateval is on a floor; imports inside functions count too. The
same check as ``lint-imports`` on the command line, so that the tests fail on an upward import
or a cycle. Beside it, the import graph read from the sources with ``ast``: no circle anywhere
(but the package face's lazy re-export the contract ignores), and no measure importing a reader.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"
SOURCES = PYPROJECT.parent / "src" / "pateval"


def test_imports_keep_the_layers():
    # In a child process: import-linter's command configures logging with dictConfig, which
    # disables every logger that exists already (pateval's notes among them) for the rest of
    # the test process.
    child = subprocess.run(
        [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports; "
         f"sys.exit(lint_imports(config_filename={str(PYPROJECT)!r}, no_cache=True, no_logo=True))"],
        capture_output=True, text=True, check=False)
    assert child.returncode == 0, child.stdout + child.stderr
    assert "3 kept, 0 broken" in child.stdout


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SOURCES.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph(sources: Path = SOURCES) -> dict[str, set[str]]:
    """Each module of ``sources`` and the modules of the package it imports, anywhere in its
    text (in functions too); ``from package import module`` counts as importing the module."""
    files = {_module_name(path): path for path in sources.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        imported: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(here[:len(here) - node.level + 1] + ([node.module] if node.module else []))
                modules = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in files]
                imported.update(modules if len(modules) == len(node.names) else [base, *modules])
        graph[name] = {module for module in imported if module in files and module != name}
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of two or more modules (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_circles_finds_a_circle():
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_no_import_circle_anywhere():
    graph = import_graph()
    assert "pateval.measures.relevance" in graph["pateval.measures.standard"]
    ignored = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"][0]
    for rule in ignored.get("ignore_imports", ()):
        importer, imported = (part.strip() for part in rule.split("->"))
        graph[importer].discard(imported)
    assert circles(graph) == []


def test_no_measure_imports_a_reader():
    graph = import_graph()
    measures = [name for name in graph if name.startswith("pateval.measures.")]
    assert len(measures) > 15
    readers = {name: sorted(m for m in graph[name] if m == "pateval.formats" or m.startswith("pateval.formats."))
               for name in measures}
    assert {name: found for name, found in readers.items() if found} == {}
