"""The `@import` graph of a run, walked once: what each import leads to, read inside the roots.

An instruction file's `@path` imports name files the agent's loader reads too, and the files
they import in turn. Each file of the graph is looked at once per run, however many lines import
it: its kind (ingest.confined.kind), and, for a file the store did not read, its head read
through the confined reader. A path that leads outside the roots, and every `~` or absolute path
outside them, is outside: never opened, never looked up. What an import chain ends in (a loop,
a missing or outside file, its length) is settled once per file and shared by every chain
through it, so the walk is linear in the graph's size.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import NamedTuple

from memory_autopsy.ingest.confined import LeadsOutside, Roots, kind, read_inside
from memory_autopsy.ingest.reach import MemoryFile, read_memory_file

HEAD = 1024 * 1024  # what is read of an imported file the store did not read: its imports lead on
HOME = "~"


class Chain(NamedTuple):
    """What the import chains from one file end in: `trouble` ("loop", "missing", "outside" or
    None), the file it is found at, the next file on the way there, and the longest chain's
    length in files (the file itself counts one)."""

    trouble: str | None
    at: str
    next: str | None
    longest: int


class Imports:
    """The import graph over the store's files (`files`: path -> MemoryFile), grown on demand."""

    def __init__(self, files: Mapping[str, MemoryFile], roots: Roots) -> None:
        self._files = files
        self._roots = roots
        self._kinds: dict[str, str] = {}
        self._edges: dict[str, tuple[str, ...]] = {}
        self._chains: dict[str, Chain] = {}

    def kind(self, path: str) -> str:
        """"file", "missing", "outside" or "other" (a folder, a device), each asked once."""
        if path not in self._kinds:
            self._kinds[path] = "outside" if path.startswith(HOME) else kind(path, self._roots)
        return self._kinds[path]

    def problem(self, base: str, target: str, limit: int | None) -> str | None:
        """What is wrong with `base`'s import of `target`: a loop on its chain, a missing or
        outside file, or a chain past `limit` files deep (None: no limit)."""
        start = resolve(base, target)
        chain = self._chain(start)
        if chain.trouble == "loop":
            return f"imports {target!r}: {' -> '.join(self._trail(start, base))}: an import loop"
        if chain.trouble is not None:
            via = self._trail(start)[:-1]
            shown = f" (via {' -> '.join(via[:3])}{' -> ...' if len(via) > 3 else ''})" if via else ""
            if chain.trouble == "outside":
                return (f"imports {target!r}{shown}: {chain.at} is outside the repository "
                        "(not read, and not looked up)")
            return f"imports {target!r}{shown}: {chain.at} does not exist"
        if limit is not None and chain.longest > limit:
            return f"imports {target!r}: the chain is {chain.longest} hops deep, past the limit of {limit}"
        return None

    def reached(self, path: str) -> list[str]:
        """The files `path`'s import chains reach inside the roots (itself left out), each once
        and in the order they are found: what a loader following its imports reads."""
        seen = {path}
        todo = list(reversed(self._imports(path)))
        found: list[str] = []
        while todo:
            node = todo.pop()
            if node in seen:
                continue
            seen.add(node)
            if self.kind(node) == "file":
                found.append(node)
                todo += reversed(self._imports(node))
        return found

    def _trail(self, start: str, base: str | None = None) -> list[str]:
        """The files from `start` to where its chain's trouble is, and for a loop the file it
        leads back to (at most a few shown)."""
        trail = [] if base is None else [base]
        node: str | None = start
        while node is not None and len(trail) < 6:
            trail.append(node)
            chain = self._chains[node]
            if node == chain.at:
                if chain.trouble == "loop" and chain.next is not None:
                    trail.append(chain.next)
                break
            node = chain.next
        return trail

    def _chain(self, start: str) -> Chain:
        """Settle `start` and every file reached from it (an iterative depth-first walk)."""
        if start in self._chains:
            return self._chains[start]
        on_path: set[str] = {start}
        stack: list[tuple[str, Iterator[str]]] = [(start, iter(self._imports(start)))]
        looped: dict[str, str] = {}  # a file -> the file on the walk's path it imports back
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                stack.pop()
                on_path.discard(node)
                self._chains[node] = self._settle(node, looped.get(node))
            elif child in on_path:
                looped.setdefault(node, child)
            elif child not in self._chains:
                on_path.add(child)
                stack.append((child, iter(self._imports(child))))
        return self._chains[start]

    def _settle(self, node: str, back: str | None) -> Chain:
        own = self.kind(node)
        if own in ("missing", "outside"):
            return Chain(own, node, None, 1)
        if back is not None:
            return Chain("loop", node, back, 1)
        children = [(c, self._chains[c]) for c in self._edges.get(node, ()) if c in self._chains]
        for wanted in ("loop", "missing", "outside"):
            for child, chain in children:
                if chain.trouble == wanted:
                    return Chain(wanted, chain.at, child, 1 + chain.longest)
        longest = max((chain.longest for _, chain in children), default=0)
        return Chain(None, node, None, 1 + longest)

    def _imports(self, path: str) -> tuple[str, ...]:
        """The files `path` imports, resolved (none for a file that is not one inside)."""
        if path in self._edges:
            return self._edges[path]
        found: tuple[str, ...] = ()
        if self.kind(path) == "file":
            memory = self._files.get(path) or self._read(path)
            if memory is not None:
                found = tuple(dict.fromkeys(resolve(path, t) for _, t in memory.imports))
        self._edges[path] = found
        return found

    def _read(self, path: str) -> MemoryFile | None:
        try:
            return read_memory_file(path, read_inside(path, self._roots, HEAD, truncate=True))
        except LeadsOutside:
            self._kinds[path] = "outside"
        except OSError:
            pass  # unreadable: it imports nothing that can be followed
        return None


def resolve(base: str, target: str) -> str:
    """The path an import or link of `base` names: `~` paths kept as written (outside)."""
    if target.startswith(HOME):
        return target
    joined = os.path.normpath(os.path.join(os.path.dirname(base), target))
    return joined.replace(os.sep, "/")
