"""`report --apply --yes-i-know`: snapshot, then rewrite each file of the fix plan atomically.

Per file: read the bytes, check the facts the plan was made from are still on their lines
(else refuse: the file changed since it was linted), rewrite, snapshot the bytes that were
read, and replace the file atomically, refusing if it changed while we worked. Hedges are
never in the plan; supersede keeps the claim as history; only exact duplicates are deleted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from memory_autopsy.fixes.atomic import FileChanged, atomic_write, read_bytes
from memory_autopsy.fixes.plan import Fix, plan
from memory_autopsy.fixes.rewrite import rewrite
from memory_autopsy.fixes.snapshot import take
from memory_autopsy.formatters.markdown import fix_lines
from memory_autopsy.ingest.loader import Source, load_sources
from memory_autopsy.model import Fact, Report


@dataclass(frozen=True, slots=True)
class Outcome:
    path: str
    applied: tuple[Fix, ...] = ()
    skipped: tuple[tuple[Fix, str], ...] = ()
    snapshot: str | None = None
    refused: str | None = None


def apply_plan(report: Report, out: TextIO, err: TextIO) -> int:
    fixes = plan(report)
    if not fixes:
        out.write("nothing to fix automatically\n")
        return 0
    outcomes = [apply_file(path, group, report.facts) for path, group in _by_path(fixes).items()]
    _print(outcomes, out, err)
    return 1 if any(o.refused for o in outcomes) else 0


def _by_path(fixes: Sequence[Fix]) -> dict[str, list[Fix]]:
    groups: dict[str, list[Fix]] = {}
    for fix in fixes:
        groups.setdefault(fix.fact.path, []).append(fix)
    return groups


def apply_file(path: str, fixes: Sequence[Fix], linted: Sequence[Fact]) -> Outcome:
    try:
        data = read_bytes(path)
    except OSError as error:
        return Outcome(path, refused=f"cannot read: {error.strerror or error}")
    fresh = [f for f in load_sources([Source(path, data)]).facts if f.path == path]
    if not _unchanged(path, linted, fresh):
        return Outcome(path, refused="changed since it was linted; nothing written (run the report again)")
    result = rewrite(path, data, fixes, fresh)
    if not result.applied:
        return Outcome(path, skipped=result.skipped)
    try:
        snapshot = take(path, data)
    except OSError as error:
        return Outcome(path, skipped=result.skipped,
                       refused=f"could not write the snapshot, nothing written: {error.strerror or error}")
    try:
        atomic_write(path, result.data, expected=data)
    except FileChanged:
        return Outcome(path, skipped=result.skipped, snapshot=snapshot,
                       refused="changed while the fixes were being applied; nothing written")
    except OSError as error:
        return Outcome(path, skipped=result.skipped, snapshot=snapshot,
                       refused=f"write failed, file left as it was: {error.strerror or error}")
    return Outcome(path, result.applied, result.skipped, snapshot)


def _unchanged(path: str, linted: Sequence[Fact], fresh: Sequence[Fact]) -> bool:
    """Every fact the plan was computed from is still on its line with the same claim."""
    before = Counter((f.line, f.claim) for f in linted if f.path == path)
    now = Counter((f.line, f.claim) for f in fresh)
    return not before - now


def _print(outcomes: Sequence[Outcome], out: TextIO, err: TextIO) -> None:
    applied = [fix for o in outcomes for fix in o.applied]
    written = [o for o in outcomes if o.applied and not o.refused]
    if applied and written:
        out.write(f"applied {len(applied)} fix(es) across {len(written)} file(s):\n")
        out.write("".join(f"  {line}\n" for line in fix_lines(list(applied))))
    for outcome in outcomes:
        out.writelines(f"skipped {fix.action} {fix.fact.path}:{fix.fact.line} — {why}\n"
                       for fix, why in outcome.skipped)
        if outcome.refused:
            err.write(f"memory-autopsy: refused {outcome.path}: {outcome.refused}\n")
            if outcome.snapshot:
                err.write(f"  (snapshot of the bytes that were read: {outcome.snapshot})\n")
        elif outcome.applied:
            out.write(f"rewrote {outcome.path} (snapshot: {outcome.snapshot})\n")
    if written:
        out.write("undo with: memory-autopsy undo <file> (restores the newest snapshot)\n")
