"""Layer 0: provenance, windows, ids, declarations, look-alike names, unreadable input, age."""

from __future__ import annotations

import os
from collections.abc import Iterator
from datetime import date, timedelta
from operator import attrgetter

from memory_autopsy.dates import day_of
from memory_autopsy.engine.context import Context
from memory_autopsy.engine.findings import fact_finding, fact_key, plain_finding, quote
from memory_autopsy.model import Fact, Finding, Severity, Store
from memory_autopsy.normalize import entity_form, normalize_claim

_ID = attrgetter("id")


def bad_input(store: Store) -> Iterator[Finding]:
    for problem in store.problems:
        yield plain_finding(
            "bad_input", problem.path, problem.line, "", f"{problem.path}: {problem.message}",
            (os.path.basename(problem.path), problem.message.replace(problem.path, "")),
        )


# A file with more undated facts than this, and mostly undated, gets one file-level finding.
FILE_LEVEL_UNSOURCED = 3
MAX_UNSOURCED_LINES = 4  # a file's undated places past this are one finding for the file


def unsourced(ctx: Context) -> Iterator[Finding]:
    """The exception, not the rule: an undated fact in a mostly dated file is flagged, and a run
    of more than FILE_LEVEL_UNSOURCED undated facts with no dated one between them (an undated
    section of a dated log) gets one finding for the run; a mostly undated file gets one
    finding for the file, and so does a file whose undated places would take more than
    MAX_UNSOURCED_LINES lines (details under dated items, here and there). Guidelines and
    relations never need a date."""
    by_path: dict[str, tuple[list[Fact], list[Fact]]] = {}
    for fact in ctx.facts:
        if fact.kind == "guideline" or fact.shape == "relation":
            continue
        needing, undated = by_path.setdefault(fact.path, ([], []))
        needing.append(fact)
        if _undated(fact):
            undated.append(fact)
    for path, (needing, undated) in by_path.items():
        if len(undated) > FILE_LEVEL_UNSOURCED and 2 * len(undated) > len(needing):
            yield _for_file(path, undated[0], f"{len(undated)} of {len(needing)} facts", "the file or its entries", "file")
            continue
        runs = list(_undated_runs(needing))
        lines = sum(len(run) if len(run) <= FILE_LEVEL_UNSOURCED else 1 for run in runs)
        if lines > MAX_UNSOURCED_LINES:  # scattered: one line for the file, not one per place
            places = ", ".join(str(run[0].line) for run in runs[:5]) + (", …" if len(runs) > 5 else "")
            yield _for_file(path, runs[0][0], f"{len(undated)} of {len(needing)} facts, in {len(runs)} places "
                            f"(lines {places}),", "their entries", "scattered")
            continue
        for run in runs:
            first = run[0]
            if len(run) <= FILE_LEVEL_UNSOURCED:
                for fact in run:
                    yield fact_finding("unsourced", fact, f"no observation date and no source: {quote(fact.claim)!r}")
                continue
            last = max(f.end_line or f.line for f in run)
            yield plain_finding(
                "unsourced", path, first.line, first.entity,
                f"{len(run)} facts from line {first.line} to {last} have no observation date and no source "
                f"(first: {quote(first.claim)!r}); date their section or entries",
                ("run", fact_key(first)), fact_ids=[first.id], fidelity=first.fidelity.value,
            )


def _for_file(path: str, first: Fact, which: str, advice: str, key: str) -> Finding:
    """One `unsourced` finding for a whole file's undated facts."""
    return plain_finding(
        "unsourced", path, first.line, "",
        f"{which} have no observation date and no source (first: {quote(first.claim)!r}); date {advice}",
        (key, os.path.basename(path)), fact_ids=[first.id], fidelity=first.fidelity.value,
    )


def _undated_runs(facts: list[Fact]) -> Iterator[list[Fact]]:
    """The undated facts of one file in runs that no dated fact interrupts, in file order."""
    run: list[Fact] = []
    for fact in sorted(facts, key=_place):
        if _undated(fact):
            run.append(fact)
        elif run:
            yield run
            run = []
    if run:
        yield run


def _undated(fact: Fact) -> bool:
    return fact.observed_at is None and fact.source is None


def _place(fact: Fact) -> tuple[int, int]:
    return fact.line, fact.obs


def per_fact(ctx: Context) -> Iterator[Finding]:
    for fact in ctx.facts:
        if fact.valid_to is not None:
            yield fact_finding(
                "superseded", fact, f"resolved history: valid until {fact.valid_to}: {quote(fact.claim)!r}"
            )
        if not (fact.valid_from and fact.valid_to):  # a window of one end is never out of order
            continue
        start, end = day_of(fact.valid_from), day_of(fact.valid_to)
        if start and end and start > end:
            yield fact_finding(
                "validity_order", fact,
                f"empty validity window: valid_from {fact.valid_from} is after valid_to {fact.valid_to}",
            )


def _content(fact: Fact) -> tuple[object, ...]:
    return (
        entity_form(fact.entity), fact.slot, normalize_claim(fact.value), normalize_claim(fact.claim),
        fact.observed_at, fact.valid_from, fact.valid_to, fact.source,
    )


def duplicate_ids(ctx: Context) -> Iterator[Finding]:
    given = [fact for fact in ctx.facts if fact.id_given]
    files = ctx.settings.focus
    if files is not None:  # a finding pairs two facts of one id: only the focus files' ids can touch them
        wanted = {fact.id for fact in given if fact.path in files}
        given = [fact for fact in given if fact.id in wanted]
    # Only an id given twice can be a finding (most stores have none): the ids seen again, in
    # one pass of set lookups (a Counter of 100k ids took three times as long).
    seen: set[str] = set()
    repeated: set[str] = set()
    for fact_id in map(_ID, given):
        (repeated if fact_id in seen else seen).add(fact_id)
    if not repeated:
        return
    first: dict[str, Fact] = {}
    for fact in [f for f in given if f.id in repeated]:
        earlier = first.setdefault(fact.id, fact)
        if earlier is not fact and _content(earlier) != _content(fact):
            yield fact_finding(
                "duplicate_id", fact,
                f"id {fact.id} is also used by {earlier.path}:{earlier.line} for different content",
                related=[earlier], symmetric=True,
            )


# Declarations read from the shape of a file, not written as entities: a heading with nothing
# under it, or a JSON key with an empty list or object, is as often a section or category written
# before its content ("## Discussion", `"interactions": []`) as a forgotten entity. Like the
# judges' unmeasured prose they are `review`; a graph node (a record that says it is an entity)
# keeps the rule's severity.
INFERRED_DECLARATIONS = frozenset({"heading", "map-key"})


def orphans(store: Store, ctx: Context) -> Iterator[Finding]:
    known = ctx.forms | {entity_form(name) for name in store.related_entities}
    for declaration in store.declarations:
        form = entity_form(declaration.entity)
        if form in known:
            continue
        finding = plain_finding(
            "orphan_entity", declaration.path, declaration.line, declaration.entity,
            f"entity {declaration.entity!r} is declared ({declaration.kind}) but holds no facts",
            (os.path.basename(declaration.path), form),
        )
        yield finding._replace(severity=Severity.REVIEW) if declaration.kind in INFERRED_DECLARATIONS else finding


def look_alikes(store: Store, ctx: Context) -> Iterator[Finding]:
    if not store.alias_pairs:
        return
    # Each name's first fact, in one C-level pass (later facts are written first and overwritten).
    first_fact = dict(zip(map(attrgetter("written_entity"), reversed(ctx.facts)), reversed(ctx.facts)))
    for name_a, form_a, name_b, form_b, distance in store.alias_pairs:
        fact = first_fact[name_b]
        other = first_fact[name_a]
        similarity = 1 - distance / max(len(form_a), len(form_b))
        message = (
            f"{name_a!r} (form {form_a!r}) and {name_b!r} (form {form_b!r}) differ by "
            f"{distance} edit(s), similarity {similarity:.2f} — NOT merged; confirm whether they "
            "are one entity"
        )
        yield fact_finding(
            "unresolved_alias", fact, message, related=[other], confidence=round(similarity, 2),
            extra={"names": (name_a, name_b)},
        )


def aged(ctx: Context, today: date) -> Iterator[Finding]:
    limit = ctx.settings.max_age_days
    if limit is None:
        return
    reference = date.fromisoformat(day_of(ctx.settings.as_of) or today.isoformat())
    cutoff = (reference - timedelta(days=limit)).isoformat()
    bodies: dict[tuple[str, str], int] = {}
    newest: dict[tuple[str, str, str], str] = {}
    for fact in ctx.active:
        key = (entity_form(fact.entity), ctx.norm_body(fact))
        bodies[key] = bodies.get(key, 0) + 1
        slot = ctx.slot_key(fact)
        if slot and fact.observed_at:
            newest[slot] = max(newest.get(slot, ""), day_of(fact.observed_at) or "")
    for fact in ctx.active:
        day = day_of(fact.observed_at)
        if not day or day >= cutoff:
            continue
        if bodies[(entity_form(fact.entity), ctx.norm_body(fact))] > 1:
            continue
        slot = ctx.slot_key(fact)
        if slot and newest.get(slot, "") > day:
            continue
        yield fact_finding(
            "aged", fact,
            f"observed {fact.observed_at}, older than {limit} days at {reference.isoformat()}, "
            "with no corroboration and no newer fact in its slot",
        )

