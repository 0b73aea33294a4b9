"""A store is the unit of comparison: claims are compared with the claims of their own store.

One memory store is one memory folder with its subfolders (a memory bank, one Claude Code
memory folder, a Serena memories folder, a folder of dated logs or of JSONL fact files), or one
MCP memory graph file. A file's store is the outermost folder of the run that holds memory
files and contains it (the scan root itself aside), so `memory/` and `memory/topics/` are one
store, while `memory-bank/` and `.claude/memory/` are two, and so are two graph files side by
side, or a graph and the files beside it. An instruction file (CLAUDE.md, AGENTS.md, GEMINI.md,
.clinerules, …) speaks for the memory at and under its folder, so it shares a store with every
file there. A fact no file holds yet (the write `admit` weighs) is compared with every store.

Across stores only what the rule file groups is compared: `stores = [["memory-bank/**",
"notes/**"]]` makes every file matching any glob of a group one store.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from memory_autopsy.model import Fact
from memory_autopsy.selection import matches

GRAPH_SHAPES = frozenset({"graph", "relation"})  # what an MCP memory graph file's facts are
INSTRUCTION_NAMES = frozenset({
    "claude.md", "claude.local.md", "gemini.md", "agents.md", ".clinerules", ".windsurfrules",
    ".cursorrules",
})


class Stores:
    """Which facts of one run lie in one store; `groups` are the rule file's `stores`."""

    def __init__(self, paths: Iterable[str], groups: Sequence[Sequence[str]] = ()) -> None:
        self.groups = tuple(tuple(group) for group in groups)
        self.folders = frozenset(path.rpartition("/")[0] for path in paths)
        self._store: dict[str, str] = {}
        self._group: dict[str, int | None] = {}

    def together(self, a: Fact, b: Fact) -> bool:
        if a.path == b.path or a.path.startswith("<") or b.path.startswith("<"):
            return True  # one file; or a fact no file holds yet (the write `admit` weighs)
        group = self.group_of(a.path)
        if group is not None and group == self.group_of(b.path):
            return True
        if _speaks_for(a.path, b.path) or _speaks_for(b.path, a.path):
            return True
        if a.shape in GRAPH_SHAPES or b.shape in GRAPH_SHAPES:
            return False
        return self.store_of(a.path) == self.store_of(b.path)

    def store_of(self, path: str) -> str:
        """The outermost folder of the run's memory folders that holds `path` (never the root)."""
        store = self._store.get(path)
        if store is None:
            folder = path.rpartition("/")[0]
            parts = folder.split("/") if folder else []
            outer = ("/".join(parts[:n]) for n in range(1, len(parts) + 1))
            store = self._store[path] = next((f for f in outer if f in self.folders), folder)
        return store

    def group_of(self, path: str) -> int | None:
        if path not in self._group:
            self._group[path] = next(
                (i for i, group in enumerate(self.groups) if any(matches(path, glob) for glob in group)), None)
        return self._group[path]


def _speaks_for(instruction: str, other: str) -> bool:
    """Whether `instruction` is an instruction file over the folder `other` lies in."""
    folder, _, name = instruction.rpartition("/")
    return name.lower() in INSTRUCTION_NAMES and (not folder or other.startswith(folder + "/"))
