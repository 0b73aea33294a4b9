"""The fix plan: supersede what a newer fact contradicts, delete exact copies, nothing else.

A fix always names a whole item (every line it wraps over) and is left out when those lines
hold another fact that must stay: a line edit cannot change part of a line.
"""

from __future__ import annotations

from memory_autopsy.dates import day_of
from memory_autopsy.engine.context import fact_body
from memory_autopsy.fixes.fix import Fix as Fix
from memory_autopsy.fixes.items import LINE_SHAPES, FactIndex, overlap
from memory_autopsy.fixes.marks import settle, strike_fix
from memory_autopsy.model import Fact, Fidelity, Finding, Report
from memory_autopsy.normalize import normalize_claim
from memory_autopsy.vocabulary import REWRITE_SLOTS

SUPERSEDING = ("contradicted_explicit", "contradicted_implicit", "stale")
COPIES = ("duplicate", "status_conflict")
DONE = "done"


# The provenance cap, applied to writes: a lower source class never supersedes a higher one.
CLASS_RANK = {"unclassified": 0, "secondary": 1, "primary": 2}


def plan(report: Report) -> list[Fix]:
    index = FactIndex(report.facts)
    doomed = _doomed_copies(report.findings, index)
    fixes: dict[tuple[str, int], Fix] = {}
    for finding in report.findings:
        flagged, other = _sides(finding, index)
        if flagged is None:
            continue
        fix = _fix_for(finding, flagged, other, index, doomed)
        if fix is not None:
            fixes.setdefault((fix.fact.path, fix.fact.line), fix)
    return settle(sorted(fixes.values(), key=lambda f: (f.fact.path, f.fact.line)))


def _sides(finding: Finding, index: FactIndex) -> tuple[Fact | None, Fact | None]:
    """The flagged fact and the evidence (`related[0]`): the survivor, or the other copy."""
    flagged = index.find(finding, finding.fact_ids[0] if finding.fact_ids else "")
    other = index.find(finding.related[0], finding.related[0].fact_id) if finding.related else None
    return flagged, other


def _outranks(fact: Fact, survivor: Fact) -> bool:
    return CLASS_RANK.get(fact.source_class, 0) > CLASS_RANK.get(survivor.source_class, 0)


def _fix_for(finding: Finding, flagged: Fact, other: Fact | None, index: FactIndex,
             doomed: set[int]) -> Fix | None:
    if finding.rule in COPIES:
        return _delete_copy(finding, flagged, other, index, doomed)
    if finding.rule not in SUPERSEDING or finding.layer == "2c":
        return None
    if other is not None and _outranks(flagged, other):
        return None
    if flagged.shape == "table" or (flagged.shape in LINE_SHAPES and index.sharing(flagged)):
        return None  # striking whole lines would strike other facts too: a person edits it
    return _supersede(finding, flagged)


def copy_sides(rule: str, flagged: Fact, other: Fact | None) -> tuple[Fact, Fact | None] | None:
    """(the copy to delete, the copy kept) for a duplicate or a status conflict.

    Two copies of one task with different statuses (`- [ ] X`, `- [x] X`) keep the done one,
    whichever side the finding flags; when neither is done, a person decides.
    """
    if other is None:
        return (flagged, None) if rule == "duplicate" else None
    if flagged.status == other.status:
        return (flagged, other) if rule == "duplicate" else None
    if DONE not in (flagged.status, other.status):
        return None
    if normalize_claim(flagged.claim) != normalize_claim(other.claim):
        return None  # a status conflict matches tasks by most of their words: not copies
    return (other, flagged) if flagged.status == DONE else (flagged, other)


def _delete_copy(finding: Finding, flagged: Fact, other: Fact | None, index: FactIndex,
                 doomed: set[int]) -> Fix | None:
    if finding.end_line > flagged.last_line:
        return None  # one finding for a copied block of items: deleting its first item is half a fix
    sides = copy_sides(finding.rule, flagged, other)
    if sides is None:
        return None
    target, kept = sides
    if kept is not None and (_outranks(target, kept) or overlap(target, kept)):
        return None  # both copies on the same lines cannot be told apart by a line edit
    if any(id(f) not in doomed for f in index.sharing(target)):
        return None  # the lines hold another fact that must stay
    reason = f"[{finding.rule}] {finding.message}"
    if target is not flagged and kept is not None:
        reason += f"; keeps the {kept.status} copy at {kept.where}"
    return Fix("delete", target, reason)


def _doomed_copies(findings: tuple[Finding, ...], index: FactIndex) -> set[int]:
    """Facts flagged as plain duplicates of a fact on other lines: a line holding only these
    (a duplicated table row, a copied memory-graph node) may be deleted whole."""
    doomed: set[int] = set()
    for finding in findings:
        if finding.rule != "duplicate":
            continue
        flagged, other = _sides(finding, index)
        if flagged is not None and other is not None and flagged.status == other.status \
                and not overlap(flagged, other):
            doomed.add(id(flagged))
            doomed.update(id(f) for f in _block(finding, index))
    return doomed


def _block(finding: Finding, index: FactIndex) -> list[Fact]:
    """Every fact of a copied block the finding reports as one (`block` facts up to line
    `block_end`), or none when the lines no longer hold that many."""
    size = finding.get("block")
    if not isinstance(size, int):
        return []
    facts = index.starting(finding.path, range(finding.line, finding.end_line + 1))
    return facts if len(facts) == size else []


def _supersede(finding: Finding, fact: Fact) -> Fix | None:
    valid_to = day_of(finding.get("survivor_date"))
    if valid_to is None or fact.valid_to is not None:
        return None
    reason = f"[{finding.rule}] {finding.message}"
    if fact.shape == "markdown" and fact.fidelity is not Fidelity.FULL:
        return strike_fix(fact, reason, valid_to, finding.related[0] if finding.related else None)
    return Fix("supersede", fact, reason, valid_to, explicit_line(fact, valid_to))


def explicit_line(fact: Fact, valid_to: str) -> str:
    """The claim rewritten as an explicit record that keeps it as history."""
    slot, value = fact.slot, fact.value
    if fact.fidelity.value != "FULL":
        slot, value = _prose_slot(fact)
    line = f'{fact.entity}: {slot} = "{value}"'
    if fact.valid_from:
        line += f" ; valid_from={fact.valid_from}"
    line += f" ; valid_to={valid_to}"
    if fact.observed_at:
        line += f" -- {fact.observed_at}"
    if fact.source:
        klass = f", class: {fact.source_class}" if fact.source_class != "unclassified" else ""
        line += f" (source: {fact.source}{klass})"
    return line


def _prose_slot(fact: Fact) -> tuple[str, str]:
    body = fact_body(fact).replace('"', "'")
    base = fact.slot.split("|")[0]
    if base in REWRITE_SLOTS:
        start = body.lower().find(fact.value.lower())
        return REWRITE_SLOTS[base], body[start:] if start >= 0 else fact.value
    if base:
        return base.removeprefix("anchor:"), fact.value
    words = body.split(None, 1)
    if len(words) == 2:
        return words[0].lower().strip(":"), words[1]
    return "claim", body


def fix_lines(fixes: list[Fix]) -> list[str]:
    """The plan as markdown list lines (the report's fix plan, the summary after --apply)."""
    lines: list[str] = []
    for fix in fixes:
        where = f"{fix.fact.path}:{fix.fact.line}"
        claim = _cell(fix.fact.claim)
        if fix.action == "supersede":
            lines.append(f"- supersede {where} — \"{claim}\" (valid_to {fix.valid_to})")
            lines.append(f"  new: {fix.new_line}")
        else:
            lines.append(f"- delete {where} — \"{claim}\" ({_cell(fix.reason)})")
    return lines


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")
