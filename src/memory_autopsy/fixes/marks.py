"""The plain-markdown mark of a superseded prose item: `~~text~~ (superseded DATE, see path:line)`.

The mark names the line of the newer claim as it will be once the plan is applied: deleting a
duplicate above it, or folding a wrapped item into one line, moves it up.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import replace

from memory_autopsy.fixes.fix import Fix
from memory_autopsy.fixes.items import LINE_SHAPES, span
from memory_autopsy.model import Fact, Location

Removed = dict[str, list[int]]  # path -> the line numbers the plan removes, sorted


def strike_fix(fact: Fact, reason: str, valid_to: str, survivor: Location | None) -> Fix:
    mark = superseded_mark(valid_to, survivor.path if survivor else None, survivor.line if survivor else 0)
    return Fix("supersede", fact, reason, valid_to, f"~~{fact.claim}~~ {mark}", mark, survivor)


def superseded_mark(valid_to: str, path: str | None, line: int) -> str:
    where = f", see {path}:{line}" if path else ""
    return f"(superseded {valid_to}{where})"


def settle(fixes: Sequence[Fix]) -> list[Fix]:
    """The fixes with each mark naming its survivor's line after the whole plan is applied."""
    removed = _removed(fixes)
    return [_moved(fix, removed) for fix in fixes]


def _removed(fixes: Sequence[Fix]) -> Removed:
    removed: Removed = {}
    for fix in fixes:
        if fix.fact.shape not in LINE_SHAPES:
            continue  # JSON is re-serialized or edited in place: its line numbers are not shifted here
        lines = span(fix.fact)
        gone = lines if fix.action == "delete" else lines[1:]
        if gone:
            removed.setdefault(fix.fact.path, []).extend(gone)
    for numbers in removed.values():
        numbers.sort()  # a mark's line is then one search, not a pass over every removal
    return removed


def _moved(fix: Fix, removed: Removed) -> Fix:
    survivor = fix.survivor
    if fix.mark is None or survivor is None or survivor.path not in removed:
        return fix
    line = survivor.line - bisect_left(removed[survivor.path], survivor.line)
    if line == survivor.line:
        return fix
    mark = superseded_mark(fix.valid_to or "", survivor.path, line)
    return replace(fix, mark=mark, new_line=f"~~{fix.fact.claim}~~ {mark}")
