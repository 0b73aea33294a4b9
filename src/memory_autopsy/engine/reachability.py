"""Reachability: memory the agent never reads misleads nobody, or everybody.

Every fact is `loaded` (always in context), `linked` (read on demand: a topic file the index
leads to, a Serena memory, a graph) or `unreachable` (past the load budget of an always-loaded
index, or a topic file nothing links). Findings: `beyond_budget`, `broken_link` (a dead index
link or `@import`, an import loop, imports past the depth limit), `unlinked_memory`, and a
conflict whose correction the agent never reads while it reads the stale side becomes an error.
The budgets are data (`lexicon/budgets.json`), overridden per system by the rule file's
`[reachability]` tables (Settings.budgets).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from pathlib import PurePosixPath
from types import MappingProxyType
from typing import Any, NamedTuple

from memory_autopsy import lazyre
from memory_autopsy.engine.findings import plain_finding, quote
from memory_autopsy.ingest.confined import Roots
from memory_autopsy.ingest.imports import Imports, resolve
from memory_autopsy.ingest.reach import MemoryFile
from memory_autopsy.lexicon.budgets import Budgets, default_budgets
from memory_autopsy.model import Fact, Finding, Location, Severity, Store

LOADED, LINKED, UNREACHABLE = "loaded", "linked", "unreachable"
ESCALATED = frozenset({"contradicted_explicit", "contradicted_implicit", "stale", "status_conflict",
                       "numeric_drift"})
_NONE: Mapping[str, Any] = MappingProxyType({})  # a system with no load rules


class Reach(NamedTuple):
    """Per-file reachability of one store."""

    files: dict[str, MemoryFile]
    imports: Imports  # what each `@import` and index link leads to, walked once
    budget_line: dict[str, int]  # index path -> first line past its budget
    state: dict[str, str]  # path -> loaded | linked | unreachable (for a whole file)
    budgets: Budgets  # the load budgets in force (built-in, or overridden by the rule file)

    def system(self, memory: MemoryFile) -> Mapping[str, Any]:
        """The load budget and link rules of the system that wrote this file."""
        return self.budgets.get(memory.dialect, _NONE)

    def of(self, fact: Fact) -> str:
        first_out = self.budget_line.get(fact.path)
        if first_out is not None:
            return UNREACHABLE if fact.line >= first_out else LOADED
        return self.state.get(fact.path, LINKED)


def analyse(store: Store, budgets: Budgets | None = None) -> Reach:
    """`budgets`: the rule file's (Settings.budgets); None, the built-in ones."""
    files = {f.path: f for f in store.files}
    imports = Imports(files, store.roots or Roots.of())
    reach = Reach(files, imports, {}, {}, default_budgets() if budgets is None else budgets)
    indexes = [f for f in files.values() if _index(f, reach.system(f))]
    reach.budget_line.update((f.path, _first_out(f, reach.system(f))) for f in indexes)
    reach.state.update((p, _file_state(f, reach.system(f))) for p, f in files.items())
    for index in indexes:
        reached = _reached_from(index, files, reach.budget_line[index.path])
        for path in _topic_files(index, files):
            reach.state[path] = LINKED if path in reached else UNREACHABLE
    return reach


def find(store: Store, facts: Sequence[Fact], reach: Reach) -> Iterator[Finding]:
    yield from _beyond_budget(facts, reach)
    for memory in reach.files.values():
        yield from _broken_links(memory, reach.system(memory), reach.imports)
    for path, state in sorted(reach.state.items()):
        if state == UNREACHABLE and path not in reach.budget_line:
            yield plain_finding(
                "unlinked_memory", path, 1, "",
                f"{path}: no index line or link reaches this memory file; the agent never reads it "
                "(link it from MEMORY.md or delete it)",
                ("unlinked", PurePosixPath(path).name),
            )


def escalate(found: Sequence[Finding], facts: Sequence[Fact], reach: Reach) -> list[Finding]:
    """A stale claim the agent reads, corrected only where it never looks, is an error (a finding
    the judges left for review says so and stays for review: the pair proves too little). A store
    the agent reads whole has no such correction: its findings are left as they are (indexing
    every fact by its place cost a 100k-line memory file a tenth of a second)."""
    if not reach.budget_line and UNREACHABLE not in reach.state.values():
        return list(found)
    by_location = {(f.path, f.line, f.id): f for f in facts}
    out = []
    for finding in found:
        if finding.rule in ESCALATED and finding.related and finding.fact_ids:
            flagged = by_location.get((finding.path, finding.line, finding.fact_ids[0]))
            other = by_location.get(_key(finding.related[0]))
            if flagged and other and reach.of(flagged) == LOADED and reach.of(other) == UNREACHABLE:
                severity = Severity.ERROR if finding.severity.rank >= Severity.WARNING.rank else finding.severity
                named = f" at {other.where}" if other.where not in finding.message else ""
                finding = finding._replace(severity=severity, message=(
                    f"{finding.message}; the agent loads this claim and never the correction{named}, "
                    f"which is {_why_unreachable(other, reach)}"))
        out.append(finding)
    return out


def _key(location: Location) -> tuple[str, int, str]:
    return location.path, location.line, location.fact_id


def _why_unreachable(fact: Fact, reach: Reach) -> str:
    if fact.path in reach.budget_line:
        return f"past the load budget of {PurePosixPath(fact.path).name}"
    return "in a memory file nothing links"


def importers(budgets: Budgets | None) -> frozenset[str]:
    """The names (lower case) of the files whose `@path` imports an agent's loader follows."""
    systems = (default_budgets() if budgets is None else budgets).values()
    return frozenset(str(name).lower() for system in systems for name in system.get("imports-from") or ())


def _index(memory: MemoryFile, system: Mapping[str, Any]) -> bool:
    return PurePosixPath(memory.path).name.lower() == system.get("index")


def _first_out(memory: MemoryFile, system: Mapping[str, Any]) -> int:
    """The first line an agent does not load: past the line budget or the byte budget (a system
    without one loads the whole index)."""
    max_lines, max_bytes = system.get("max-lines"), system.get("max-bytes")
    for number, end in enumerate(memory.line_ends, 1):
        if (max_lines is not None and number > max_lines) or (max_bytes is not None and end > max_bytes):
            return number
    return memory.lines + 1


def _file_state(memory: MemoryFile, system: Mapping[str, Any]) -> str:
    name = PurePosixPath(memory.path).name.lower()
    always = system.get("always-loaded", ())
    if "*" in always or name in always or memory.always_apply:
        return LOADED
    return LINKED


def _topic_files(index: MemoryFile, files: dict[str, MemoryFile]) -> list[str]:
    folder = PurePosixPath(index.path).parent
    return [p for p, f in files.items() if f is not index and PurePosixPath(p).parent == folder
            and PurePosixPath(p).suffix.lower() == ".md"]


def _reached_from(index: MemoryFile, files: dict[str, MemoryFile], first_out: int) -> set[str]:
    """Files reached by following links from the index, within its load budget."""
    seen: set[str] = set()
    todo = [resolve(index.path, t) for line, t in index.links if line < first_out]
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        linked = files.get(path)
        if linked is not None:
            todo += [resolve(linked.path, t) for _, t in linked.links]
    return seen


def _beyond_budget(facts: Sequence[Fact], reach: Reach) -> Iterator[Finding]:
    for path, first_out in sorted(reach.budget_line.items()):
        outside = [f for f in facts if f.path == path and f.line >= first_out]
        if not outside:
            continue
        memory = reach.files[path]
        first = outside[0]
        message = (
            f"{len(outside)} fact(s) from line {first.line} on sit past the load budget of "
            f"{PurePosixPath(path).name} ({describe(reach.system(memory))}; the file "
            f"has {memory.lines} lines, {memory.size} bytes), {first.line - first_out + 1} line(s) past "
            f"it: the agent never reads them at start-up; to bring line {first.line} in, "
            f"{memory.lines - first_out + 1} line(s) must leave the file or move to a topic file "
            f"(first: {quote(first.claim)!r})"
        )
        yield plain_finding("beyond_budget", path, first.line, first.entity, message,
                            ("budget", PurePosixPath(path).name), fact_ids=[first.id],
                            fidelity=first.fidelity.value)


def describe(system: Mapping[str, Any]) -> str:
    """A system's load budget in words: '200 lines or 25 KB'."""
    max_lines, max_bytes = system.get("max-lines"), system.get("max-bytes")
    size = None if max_bytes is None else (
        f"{max_bytes // 1024} KB" if max_bytes % 1024 == 0 else f"{max_bytes} bytes")
    parts = [f"{max_lines} lines" if max_lines is not None else None, size]
    return " or ".join(p for p in parts if p) or "no limit"


# What an npm scoped package name looks like after its `@`: a lower-case scope and a name without
# a file extension. As an import it names a file `name` in a folder `scope`; with no such folder
# beside the file, `@scope/name` is the package a note mentions, not a file to load.
_PACKAGE = lazyre.compile(r"[a-z0-9][a-z0-9._-]*/[a-z0-9][a-z0-9_-]*\Z")


def _broken_links(memory: MemoryFile, system: Mapping[str, Any], imports: Imports) -> Iterator[Finding]:
    """An index's links and an instruction file's `@imports` are what a loader follows; a link in
    a note is a mention (often relative to the repository, not the note), so it is not judged."""
    if _index(memory, system):
        for line, target in memory.links:
            found = imports.kind(resolve(memory.path, target))
            if found == "outside":
                yield _broken(memory, line, target, f"links {target!r}, which is outside the repository "
                              "(not read, and not looked up)")
            elif found == "missing":
                yield _broken(memory, line, target, f"links {target!r}, which does not exist")
    if not memory.imports or PurePosixPath(memory.path).name.lower() not in system.get("imports-from", ()):
        return
    depth_limit = system.get("import-depth")
    for line, target in memory.imports:
        if _PACKAGE.match(target) and imports.kind(resolve(memory.path, target.split("/", 1)[0])) != "other":
            continue  # `@tanstack/react-query`: an npm scoped package, unless its scope is a folder here
        problem = imports.problem(memory.path, target, depth_limit)
        if problem:
            yield _broken(memory, line, target, problem)


def _broken(memory: MemoryFile, line: int, target: str, problem: str) -> Finding:
    problem = problem[0].upper() + problem[1:]  # the line's own location is printed before it
    return plain_finding("broken_link", memory.path, line, "", problem,
                         ("link", PurePosixPath(memory.path).name, target))
