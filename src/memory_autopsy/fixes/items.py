"""Where the facts of a report sit, line by line: which fact a finding means, which lines an
item owns, and which other facts share them.

A markdown item may wrap over several lines (`line`..`last_line`), and one line may hold
several facts (prose sentences, table cells). A fix edits whole lines, so it must know every
fact those lines hold before it deletes or rewrites them.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from memory_autopsy.model import Fact

# Shapes edited line by line in the file, where an item's lines are its own to change.
LINE_SHAPES = ("markdown", "table")


class Located(Protocol):
    @property
    def path(self) -> str: ...

    @property
    def line(self) -> int: ...


class FactIndex:
    """The facts of a report by (path, line) for every line they cover, and by id."""

    def __init__(self, facts: Iterable[Fact]) -> None:
        self._on: dict[tuple[str, int], list[Fact]] = {}
        self._by_id: dict[str, Fact] = {}
        for fact in facts:
            self._by_id.setdefault(fact.id, fact)
            for line in span(fact):
                self._on.setdefault((fact.path, line), []).append(fact)

    def find(self, where: Located, fact_id: str) -> Fact | None:
        """The fact starting at `where` with this id (ids repeat: copies hash alike), else the
        first fact starting there, else the fact with this id anywhere."""
        starting = [f for f in self._on.get((where.path, where.line), ()) if f.line == where.line]
        for fact in starting:
            if fact.id == fact_id:
                return fact
        return starting[0] if starting else self._by_id.get(fact_id)

    def sharing(self, fact: Fact) -> list[Fact]:
        """The other facts a line edit of `fact` would take with it: those on any line of its
        item, or the other observations of its memory-graph node (a JSONL line is the node).
        None for other JSON records, which are edited by position, not by line."""
        if fact.shape not in LINE_SHAPES and fact.obs < 0:
            return []
        found = {id(f): f for line in span(fact) for f in self._on.get((fact.path, line), ())
                 if fact.shape in LINE_SHAPES or f.line == fact.line}
        found.pop(id(fact), None)
        return list(found.values())

    def starting(self, path: str, lines: range) -> list[Fact]:
        return [f for line in lines for f in self._on.get((path, line), ()) if f.line == line]


def span(fact: Fact) -> range:
    """The item's line numbers: a JSON record is located by position, so only its first line."""
    last = fact.last_line if fact.shape in LINE_SHAPES else fact.line
    return range(fact.line, last + 1)


def overlap(a: Fact, b: Fact) -> bool:
    return a.path == b.path and bool(set(span(a)) & set(span(b)))
