"""Modules that sit one on the other, read from the package's import statements (a deferred import
inside a function counts: it closes a circle as surely when the function runs)."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import SRC

PACKAGE = "memory_autopsy"


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Each module of the package -> the modules of the package it imports, anywhere in it."""
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join([*package.split(".")[: len(package.split(".")) - node.level + 1], base]).strip(".")
                found.add(base)
                found.update(f"{base}.{alias.name}" for alias in node.names)  # `from pkg import module`
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def _reach(graph: dict[str, set[str]], start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for module in graph[todo.pop()] - seen:
            seen.add(module)
            todo.append(module)
    return seen


def test_the_cache_and_replay_are_no_circle_and_selection_sits_below_scope() -> None:
    modules = {_module_name(path): path for path in (SRC / PACKAGE).rglob("*.py")}
    graph = _imports(modules)
    cache, replay = f"{PACKAGE}.ingest.cache", f"{PACKAGE}.replay"
    selection, scope = f"{PACKAGE}.selection", f"{PACKAGE}.scope"
    assert {cache, replay, selection, scope} <= set(graph)
    assert not (replay in _reach(graph, cache) and cache in _reach(graph, replay)), (
        "ingest.cache and replay import each other")
    assert scope not in graph[selection] and scope not in _reach(graph, selection), (
        "selection imports from scope")
