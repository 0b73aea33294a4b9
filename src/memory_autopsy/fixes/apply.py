"""`report --apply --yes-i-know`: snapshot, then rewrite each file of the fix plan atomically.

Per file: read the bytes, check the facts the plan was made from are still on their lines
(else skip the whole file: it changed since it was linted), rewrite whole items, snapshot the
bytes that were read, and replace the file atomically, refusing if it changed while we worked.
Hedges are never in the plan; supersede keeps the claim as history; only exact copies are
deleted. A symlink or a read-only file is refused before anything is read (`atomic`), and
temp files a killed run left beside the scanned files are removed first (`tempfiles`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from memory_autopsy.fixes.atomic import FileChanged, Refused, atomic_write, check_replaceable, read_bytes
from memory_autopsy.fixes.items import span
from memory_autopsy.fixes.plan import Fix, fix_lines, plan
from memory_autopsy.fixes.rewrite import Rewritten, rewrite
from memory_autopsy.fixes.snapshot import record, shown, take
from memory_autopsy.fixes.tempfiles import clean_stale
from memory_autopsy.ingest.loader import Source, load_sources
from memory_autopsy.model import Fact, Report

# What a fix relies on in a fact: where it is, its text, and what decides which copy or claim
# is kept (a ticked checkbox, a new date or source). Entity and slot are left out: they depend
# on the vocabulary of the run, which the report does not carry.
Key = tuple[int, int, str, str, "str | None", "str | None", "str | None"]


@dataclass(frozen=True, slots=True)
class Outcome:
    """What applying a plan did to one file: the fixes applied and skipped, its snapshot, or why it was refused."""

    path: str
    applied: tuple[Fix, ...] = ()
    skipped: tuple[tuple[Fix, str], ...] = ()
    snapshot: str | None = None
    refused: str | None = None
    stale: bool = False  # changed since it was linted: its whole plan is skipped


def apply_plan(report: Report, out: TextIO, err: TextIO) -> int:
    _clean(report.paths, out)
    fixes = plan(report)
    if not fixes:
        out.write("nothing to fix automatically\n")
        return 0
    outcomes = [apply_file(path, group, report.facts) for path, group in _by_path(fixes).items()]
    _print(outcomes, out, err)
    return 1 if any(o.refused for o in outcomes) else 0


def _clean(paths: Sequence[str], out: TextIO) -> None:
    """Remove the temp files an earlier run left when it was killed mid-write (see tempfiles)."""
    for path in paths:
        out.writelines(f"removed {name}, a temp file left by an interrupted --apply\n"
                       for name in clean_stale(path))


def _by_path(fixes: Sequence[Fix]) -> dict[str, list[Fix]]:
    groups: dict[str, list[Fix]] = {}
    for fix in fixes:
        groups.setdefault(fix.fact.path, []).append(fix)
    return groups


def apply_file(path: str, fixes: Sequence[Fix], linted: Sequence[Fact]) -> Outcome:
    data = _read(path)
    if isinstance(data, Outcome):
        return data
    fresh = [f for f in load_sources([Source(path, data)]).facts if f.path == path]
    changed = changed_line(path, fixes, linted, fresh)
    if changed is not None:
        return Outcome(path, refused=f"changed since it was linted (line {changed} is not what the plan was "
                                     "made from); nothing written, run the report again", stale=True)
    result = rewrite(path, data, fixes, fresh)
    if not result.applied:
        return Outcome(path, skipped=result.skipped)
    return _write(path, data, result)


def _read(path: str) -> bytes | Outcome:
    """The file's bytes, or why it is refused: a symlink, a read-only file, unreadable."""
    try:
        check_replaceable(path)
        return read_bytes(path)
    except Refused as error:
        return Outcome(path, refused=f"{error.strerror}; nothing written")
    except OSError as error:
        return Outcome(path, refused=f"cannot read: {error.strerror or error}")


def _write(path: str, data: bytes, result: Rewritten) -> Outcome:
    try:
        snapshot = take(path, data)
        record(path, snapshot, result.data)
    except OSError as error:
        return Outcome(path, skipped=result.skipped,
                       refused=f"could not write the snapshot, nothing written: {error.strerror or error}")
    try:
        # The new bytes were computed from `data`: the rename happens only if the file still
        # holds exactly those bytes, so every item's original lines are compared byte for byte.
        atomic_write(path, result.data, expected=data)
    except FileChanged:
        return Outcome(path, skipped=result.skipped, snapshot=snapshot,
                       refused="changed while the fixes were being applied; nothing written")
    except OSError as error:
        return Outcome(path, skipped=result.skipped, snapshot=snapshot,
                       refused=f"write failed, file left as it was: {error.strerror or error}")
    return Outcome(path, result.applied, result.skipped, snapshot)


def changed_line(path: str, fixes: Sequence[Fix], linted: Sequence[Fact], fresh: Sequence[Fact]) -> int | None:
    """The first line where the file no longer holds what the plan was computed from, if any.

    Every linted fact must still be on its lines with the same text, status, date and source
    (a ticked checkbox or a new date changes which copy or claim a fix keeps), and the lines
    each fix edits must hold exactly the facts they held (a sentence added to a struck line
    would be struck too).
    """
    mine = [f for f in linted if f.path == path]
    missing = Counter(_key(f) for f in mine) - Counter(_key(f) for f in fresh)
    lines = [key[0] for key in missing]
    was, now = _by_line(mine), _by_line(fresh)
    for fix in fixes:
        item = span(fix.fact)
        if _keys_on(was, item) != _keys_on(now, item):
            lines.append(fix.fact.line)
    return min(lines) if lines else None


def _by_line(facts: Sequence[Fact]) -> dict[int, list[Fact]]:
    on: dict[int, list[Fact]] = {}
    for fact in facts:
        for line in span(fact):
            on.setdefault(line, []).append(fact)
    return on


def _keys_on(on: dict[int, list[Fact]], lines: range) -> Counter[Key]:
    """The facts touching any of `lines`, each counted once."""
    found = {id(f): f for line in lines for f in on.get(line, ())}
    return Counter(_key(f) for f in found.values())


def _key(fact: Fact) -> Key:
    return fact.line, fact.last_line, fact.claim, fact.status, fact.observed_at, fact.valid_to, fact.source


def _print(outcomes: Sequence[Outcome], out: TextIO, err: TextIO) -> None:
    applied = [fix for o in outcomes for fix in o.applied]
    written = [o for o in outcomes if o.applied and not o.refused]
    if applied and written:
        out.write(f"applied {len(applied)} fix(es) across {len(written)} file(s):\n")
        out.write("".join(f"  {line}\n" for line in fix_lines(list(applied))))
    for outcome in outcomes:
        if outcome.stale:
            out.write(f"skipped {outcome.path} — {outcome.refused}\n")
        out.writelines(f"skipped {fix.action} {fix.fact.path}:{fix.fact.line} — {why}\n"
                       for fix, why in outcome.skipped)
        if outcome.refused:
            err.write(f"memory-autopsy: refused {outcome.path}: {outcome.refused}\n")
            if outcome.snapshot:
                err.write(f"  (snapshot of the bytes that were read: {shown(outcome.snapshot)})\n")
        elif outcome.applied and outcome.snapshot:
            out.write(f"rewrote {outcome.path} (snapshot: {shown(outcome.snapshot)})\n")
    if written:
        out.write("undo with: memory-autopsy undo <file> (restores the newest snapshot)\n")
