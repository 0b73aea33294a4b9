"""The write gate: check one incoming fact against a store before an agent persists it.

The candidate is read by the same ingest as any store line, appended to the loaded store and
linted by the same engine `scan` runs; the verdict is read off the findings that involve the
candidate. So what the gate blocks and what the linter reports cannot drift apart.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from memory_autopsy.dates import day_of, parse_date
from memory_autopsy.fixes.plan import explicit_line
from memory_autopsy.ingest.json_store import ENTITY_KEYS, OBSERVED_KEYS, _record
from memory_autopsy.ingest.loader import Source, expand, load_sources, read_sources
from memory_autopsy.model import Fact, Finding, Report, Store
from memory_autopsy.pipeline import Paths, lint_loaded, path_list
from memory_autopsy.selection import filter_paths
from memory_autopsy.settings import Settings
from memory_autopsy.verdicts.verdict import CONFLICT_RULES

CANDIDATE = "<candidate>.jsonl"
WARN_RULES = {"likely_conflict": "hedge", "near_duplicate": "near-duplicate", "unresolved_alias": "alias"}
DATE_KEYS = OBSERVED_KEYS + ("valid_from", "valid_at", "valid_to", "invalid_at")
# A fact is one record; no field needs more than a few levels. The limit sits far below the
# parser's own (about 1,000, where a store line becomes bad_input "nested too deeply"), so the
# candidate's encoding, its reading as a store line and the printed record never recurse near it.
MAX_DEPTH = 64
TOO_DEEP = f"JSON nested too deeply (more than {MAX_DEPTH} levels)"


@dataclass(frozen=True, slots=True)
class SupersedeEdit:
    """The edit that would resolve one conflict: stamp valid_to on a claim, never delete it."""

    action: str
    target_id: str
    target_is_candidate: bool
    target_shape: str
    valid_to: str | None
    new_line: str | None
    reason: str

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}


@dataclass(frozen=True, slots=True)
class AdmitVerdict:
    """The gate's answer to a proposed fact: its status and reason, and what it would supersede."""

    status: str  # accepted | requires_review | rejected
    reason: str
    conflict_ids: tuple[str, ...] = ()
    supersede: SupersedeEdit | None = None
    record: Mapping[str, Any] | None = None
    already_present: bool = False
    warnings: tuple[str, ...] = ()
    edits: tuple[SupersedeEdit, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "reason": self.reason,
            "conflict_ids": list(self.conflict_ids),
            "supersede": self.supersede.as_dict() if self.supersede else None,
            "edits": [edit.as_dict() for edit in self.edits],
            "record": dict(self.record) if self.record is not None else None,
            "already_present": self.already_present,
            "warnings": list(self.warnings),
        }


def rejected(reason: str, record: Mapping[str, Any] | None = None) -> AdmitVerdict:
    return AdmitVerdict("rejected", reason, record=record)


def admit(fact: Any, store: Paths, settings: Settings | None = None) -> AdmitVerdict:
    """accepted, requires_review (with the conflicting ids and the resolving edit) or rejected."""
    settings = replace(settings or Settings(), as_of=None, max_age_days=None)
    problem = fact_problem(fact)
    if problem:
        return rejected(f"the fact cannot be normalized: {problem}")
    paths = path_list(store)
    sources, notes, trouble = _read(paths, settings)
    if trouble:
        return rejected("the store cannot be read (the gate never runs blind): " + "; ".join(trouble))
    candidate_source = Source(CANDIDATE, json.dumps(fact, default=str, ensure_ascii=False).encode())
    loaded = load_sources(sources + [candidate_source], settings.vocabulary, lexicon=settings.lexicon)
    if loaded.problems:
        listed = "; ".join(f"{p.path}:{p.line}: {p.message}" for p in loaded.problems)
        return rejected(f"the store has bad input (the gate never runs blind): {listed}")
    candidates = [f for f in loaded.facts if f.path == CANDIDATE]
    if len(candidates) != 1:
        return rejected(f"the fact cannot be normalized: it reads as {len(candidates)} records, not one")
    return _judge(candidates[0], loaded, settings, notes)


def fact_problem(fact: Any) -> str | None:
    if not isinstance(fact, Mapping):
        return f"expected a JSON object, got {type(fact).__name__}"
    if nested_past(fact, MAX_DEPTH):
        return TOO_DEEP
    if not any(isinstance(fact.get(k), str) and fact[k].strip() for k in ENTITY_KEYS):
        return "it names no entity (entity, subject or name)"
    for key in DATE_KEYS:
        value = fact.get(key)
        if value not in (None, "") and parse_date(value) is None:
            return f"{key} {value!r} is not a date"
    if _record(dict(fact), "", CANDIDATE, 1, {}) is None:
        return "it has no claim and no slot/value pair"
    return None


def nested_past(value: Any, limit: int) -> bool:
    """Whether `value` holds objects or lists more than `limit` levels deep (one that holds itself does).

    Walked with a stack of its own, depth first, so a deep value is told within `limit` steps.
    """
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if not isinstance(item, (Mapping, list, tuple)):
            continue
        if depth > limit:
            return True
        stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, Mapping) else item))
    return False


def _read(paths: list[str], settings: Settings) -> tuple[list[Source], list[str], list[str]]:
    if not paths:
        return [], [], ["no store given"]
    files, problems = expand(paths)
    if settings.include or settings.exclude:
        named = {p.replace("\\", "/").removeprefix("./") for p in paths}
        files = [f for f in files if f in named or filter_paths([f], settings.include, settings.exclude)]
    sources, read_problems = read_sources(files)
    trouble = [f"{p.path}: {p.message}" for p in problems + read_problems]
    if not sources and not trouble:
        trouble.append("no memory files among: " + ", ".join(paths))
    empty = [s for s in sources if not s.data.strip()]
    notes = [f"{s.path} is empty: the fact would be its first" for s in empty]
    return [s for s in sources if s.data.strip()], notes, trouble


def _judge(candidate: Fact, store: Store, settings: Settings, notes: list[str]) -> AdmitVerdict:
    report = lint_loaded(store, settings)
    masking = _history_copies(candidate, report)
    if masking:
        kept = tuple(f for f in store.facts if f.id not in masking or f is candidate)
        report = lint_loaded(Store(facts=kept, paths=store.paths, headings=store.headings), settings)
        notes.append("re-asserts a claim stored as history (" + ", ".join(sorted(masking)) + ")")
    involved = list(_involving(candidate, report))
    record = MappingProxyType(candidate.record())
    for rule, _, finding in involved:
        if rule in ("duplicate_id", "validity_order"):
            return rejected(f"[{rule}] {finding.message}", record)
    warnings = tuple(notes) + tuple(
        f"[{rule}] {finding.message}" for rule, _, finding in involved if rule in WARN_RULES
    )
    present = [other for rule, other, _ in involved if rule == "duplicate" and other is not None]
    edits = [_edit(candidate, other, finding) for rule, other, finding in involved
             if rule in CONFLICT_RULES and other is not None]
    if edits:
        ids = tuple(dict.fromkeys(other.id for rule, other, _ in involved
                                  if rule in CONFLICT_RULES and other is not None))
        return AdmitVerdict("requires_review", f"conflicts with {len(ids)} stored fact(s)", ids,
                            edits[0], record, bool(present), warnings, tuple(edits))
    if present:
        where = f"{present[0].path}:{present[0].line}"
        return AdmitVerdict("accepted", f"already present as {present[0].id} ({where})", record=record,
                            already_present=True, warnings=warnings)
    stored = len(store.facts) - 1
    return AdmitVerdict("accepted", f"no conflict with the {stored} stored fact(s)", record=record,
                        warnings=warnings)


def _history_copies(candidate: Fact, report: Report) -> set[str]:
    """Ids of superseded records the candidate repeats: history must not mask a conflict."""
    copies = set()
    for rule, other, _ in _involving(candidate, report):
        if rule == "duplicate" and other is not None and not other.active:
            copies.add(other.id)
    return copies


def _involving(candidate: Fact, report: Report) -> Iterable[tuple[str, Fact | None, Finding]]:
    """(rule, the stored fact on the other side, finding) for findings touching the candidate."""
    index = {(f.path, f.line, f.id): f for f in report.facts}
    for finding in report.findings:
        flagged = index.get((finding.path, finding.line, finding.fact_ids[0])) if finding.fact_ids else None
        others = [index.get((r.path, r.line, r.fact_id)) for r in finding.related]
        if flagged is candidate:
            for other in others or [None]:
                yield finding.rule, other, finding
        elif any(o is candidate for o in others):
            yield finding.rule, flagged, finding


def _edit(candidate: Fact, other: Fact, finding: Finding) -> SupersedeEdit:
    flagged_is_candidate = finding.path == candidate.path
    target = candidate if flagged_is_candidate else other
    survivor = other if flagged_is_candidate else candidate
    valid_to = day_of(finding.get("survivor_date")) or day_of(survivor.observed_at)
    return SupersedeEdit(
        action="supersede",
        target_id=target.id,
        target_is_candidate=flagged_is_candidate,
        target_shape="candidate" if flagged_is_candidate else shape_of(target),
        valid_to=valid_to,
        new_line=explicit_line(target, valid_to) if valid_to else None,
        reason=f"[{finding.rule}] {finding.message}",
    )


def shape_of(fact: Fact) -> str:
    suffix = Path(fact.path).suffix.lower()
    if suffix == ".jsonl":
        return "jsonl"
    if suffix == ".json" or fact.shape in ("json", "graph"):
        return "json"
    return "markdown"


def format_verdict(verdict: AdmitVerdict) -> str:
    lines = [f"status: {verdict.status} | reason: {verdict.reason}"]
    if verdict.conflict_ids:
        lines.append(f"conflict_ids: {list(verdict.conflict_ids)}")
    if verdict.supersede is not None:
        lines.append("supersede: " + json.dumps(verdict.supersede.as_dict(), indent=2, ensure_ascii=False))
    for extra in verdict.edits[1:]:
        lines.append("also: " + json.dumps(extra.as_dict(), indent=2, ensure_ascii=False))
    if verdict.already_present:
        lines.append("already_present: True")
    if verdict.status == "accepted" and verdict.record is not None:
        lines.append("record: " + json.dumps(dict(verdict.record), ensure_ascii=False))
    lines += [f"warning: {w}" for w in verdict.warnings]
    return "\n".join(lines) + "\n"
