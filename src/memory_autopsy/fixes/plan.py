"""The fix plan: supersede what a newer fact contradicts, delete exact duplicates, nothing else."""

from __future__ import annotations

from dataclasses import dataclass

from memory_autopsy.dates import day_of
from memory_autopsy.engine.context import fact_body
from memory_autopsy.model import Fact, Finding, Report
from memory_autopsy.vocabulary import REWRITE_SLOTS

SUPERSEDING = ("contradicted_explicit", "contradicted_implicit", "stale")


@dataclass(frozen=True, slots=True)
class Fix:
    action: str
    fact: Fact
    reason: str
    valid_to: str | None = None
    new_line: str | None = None


# The provenance cap, applied to writes: a lower source class never supersedes a higher one.
CLASS_RANK = {"unclassified": 0, "secondary": 1, "primary": 2}


def plan(report: Report) -> list[Fix]:
    at: dict[tuple[str, int], Fact] = {}
    by_id: dict[str, Fact] = {}
    for fact in report.facts:
        at.setdefault((fact.path, fact.line), fact)
        by_id.setdefault(fact.id, fact)
    fixes: dict[tuple[str, int], Fix] = {}
    for finding in report.findings:
        flagged = at.get((finding.path, finding.line))
        if flagged is None or (flagged.path, flagged.line) in fixes:
            continue
        fact = flagged
        survivor = by_id.get(finding.related[0].fact_id) if finding.related else None
        if survivor is not None and _outranks(fact, survivor):
            continue
        fix = _fix_for(finding, fact)
        if fix is not None:
            fixes[(fact.path, fact.line)] = fix
    return sorted(fixes.values(), key=lambda f: (f.fact.path, f.fact.line))


def _outranks(fact: Fact, survivor: Fact) -> bool:
    return CLASS_RANK.get(fact.source_class, 0) > CLASS_RANK.get(survivor.source_class, 0)


def _fix_for(finding: Finding, fact: Fact) -> Fix | None:
    if finding.rule == "duplicate":
        return Fix("delete", fact, f"[duplicate] {finding.message}")
    if finding.rule not in SUPERSEDING or finding.layer == "2c":
        return None
    valid_to = day_of(finding.get("survivor_date"))
    if valid_to is None or fact.valid_to is not None:
        return None
    return Fix("supersede", fact, f"[{finding.rule}] {finding.message}", valid_to,
               explicit_line(fact, valid_to))


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
