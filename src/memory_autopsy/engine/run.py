"""The engine entry: run every layer over a Store and return a Report."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import date
from functools import partial
from operator import attrgetter
from typing import Protocol

from memory_autopsy import parallel
from memory_autopsy.engine import (
    blocks,
    deprecated,
    duplicates,
    grounding,
    hygiene,
    instead,
    judges,
    numeric,
    pins,
    reachability,
    rejected,
    settled,
    slots,
    status,
    tool_versions,
    transitions,
)
from memory_autopsy.engine.context import Context
from memory_autopsy.engine.stores import Stores
from memory_autopsy.engine.suppressions import Suppressions
from memory_autopsy.grounds import Repository
from memory_autopsy.model import Fact, Finding, Report, Store
from memory_autopsy.normalize import entity_form
from memory_autopsy.settings import Settings


class Layer(Protocol):
    """An optional extra layer (the embedding layer) run after the heuristics."""

    def __call__(self, ctx: Context, found: list[Finding]) -> list[Finding]: ...


def lint_store(
    store: Store,
    settings: Settings | None = None,
    *,
    extra_layer: Layer | None = None,
    today: date | None = None,
    repository: Repository | None = None,
) -> Report:
    settings = settings or Settings()
    if settings.focus is not None and settings.focus.issuperset(store.paths):
        # Every file in focus (a store of one file, changed): the full run, with nothing to narrow.
        settings = replace(settings, focus=None)
    facts, headings = store.facts, store.headings
    if settings.as_of:
        facts = tuple(f for f in facts if _known_at(f, settings.as_of[:10]))
        headings = tuple(f for f in headings if _known_at(f, settings.as_of[:10]))
    focus = None
    if settings.focus is not None:
        focus = frozenset(entity_form(f.entity) for f in facts if f.path in settings.focus)
    from memory_autopsy.engine.memo import memo_for  # it reads the cache's keys: ingest imports engine

    memo = memo_for(settings, store, len(facts))
    stores = Stores(store.paths or {f.path for f in facts}, settings.store_groups)
    ctx = Context(facts, settings, focus_forms=focus, cue_lexicon=store.cue_lexicon,
                  cue_vocabulary=store.cue_vocabulary, stores=stores, headings=headings)
    found: list[Finding] = []
    found += hygiene.bad_input(store)
    # Provenance and windows judge each file's facts alone: a focused run reads the focus only.
    own = ctx if settings.focus is None else Context([f for f in facts if f.path in settings.focus], settings)
    found += hygiene.unsourced(own)
    found += hygiene.per_fact(own)
    found += hygiene.duplicate_ids(ctx)
    found += hygiene.orphans(store, ctx)
    found += hygiene.look_alikes(store, ctx)
    pasted, in_blocks = blocks.find(ctx)
    found += pasted
    judge = per_entity if settings.jobs == 1 else partial(_judged, jobs=settings.jobs)
    found += judge(ctx, in_blocks) if memo is None else memo.findings(ctx, in_blocks, judge)
    found += duplicates.across_entities(ctx, in_blocks)
    found += duplicates.restated_across(ctx, in_blocks)
    found += transitions.across(ctx)
    found += status.find(ctx)
    found += numeric.find(ctx)
    found += deprecated.find(ctx)
    found += pins.find(ctx)
    found += pins.project_version(ctx)
    found += tool_versions.find(ctx)
    found += rejected.find(ctx)
    found += settled.find(ctx)
    found += instead.find(ctx)
    found += hygiene.aged(ctx, today or date.today())
    if repository is not None:
        found += grounding.find(own, repository, settings.exclude, reachability.importers(settings.budgets))  # each fact alone: the focus only
    if extra_layer is not None:
        found += extra_layer(ctx, found)
    found = judges.judge(found, ctx.with_headings, stores)
    if store.files:  # after the judges: only a finding they let fail is made an error
        reach = reachability.analyse(store, settings.budgets)
        found += reachability.find(store, facts, reach)
        found = reachability.escalate(found, facts, reach)
    ctx.release()
    if memo is not None:
        memo.save()
    kept, suppressed = _apply_settings(found, settings, ctx)
    return Report(
        engine=settings.engine,
        facts=facts,
        findings=tuple(sorted(kept, key=sort_key)),
        paths=store.paths,
        suppressed=suppressed,
    )


def per_entity(ctx: Context, in_blocks: set[int]) -> list[Finding]:
    """The layers that judge each entity's facts alone (the facts a pasted block holds aside):
    copies, near copies, explicit retractions, slot conflicts. engine.memo keeps their findings
    per entity between runs."""
    found: list[Finding] = []
    exact, copies = duplicates.exact(ctx, in_blocks)
    found += exact
    found += duplicates.near(ctx, copies)
    explicit, pairs = transitions.find(ctx)
    found += explicit
    found += slots.find(ctx, {flagged for flagged, _ in pairs})
    return found


def _judged(ctx: Context, in_blocks: set[int], jobs: int) -> list[Finding]:
    """`per_entity` with the entities dealt out, by their facts, to up to `jobs` processes
    (memory_autopsy.parallel); a child that fails has its entities judged here."""
    sizes = {form: len(facts) for form, facts in ctx.by_entity.items()}
    jobs = parallel.jobs_of(jobs, sum(sizes.values()))
    if jobs < 2 or len(sizes) < 2:
        return per_entity(ctx, in_blocks)
    parts = [ctx.narrowed(group) for group in parallel.dealt(sizes, jobs)]
    children = [parallel.fork(partial(_judged_piece, part, in_blocks)) for part in parts[1:]]
    with parallel.beside(children):
        found = per_entity(parts[0], in_blocks)
    for part, child in zip(parts[1:], children):
        try:
            found += [finding for piece in child.pieces() for finding in piece]
        except parallel.ChildFailed:
            found += per_entity(part, in_blocks)
    return found


def _judged_piece(ctx: Context, in_blocks: set[int]) -> list[list[Finding]]:
    return [per_entity(ctx, in_blocks)]


def _known_at(fact: Fact, day: str) -> bool:
    """In scope at a date as `as-of` reads it: a window is trusted, else the observation."""
    if fact.valid_from or fact.valid_to:
        return not fact.valid_from or fact.valid_from[:10] <= day
    return not fact.observed_at or fact.observed_at[:10] <= day


# A report's order: by file, line, rule and fingerprint (read in C: a large store's report
# sorts tens of thousands of findings).
sort_key = attrgetter("path", "line", "rule", "fingerprint")


def _apply_settings(
    found: Iterable[Finding], settings: Settings, ctx: Context
) -> tuple[list[Finding], int]:
    ignores = Suppressions(ctx.with_headings)  # an ignore above a heading too
    kept: list[Finding] = []
    suppressed = 0
    for finding in found:
        severity = settings.severity_of(finding.rule, finding.severity)
        if severity is None:
            continue
        if ignores.silences(finding):
            suppressed += 1
            continue
        if severity is not finding.severity:
            finding = finding._replace(severity=severity)
        kept.append(finding)
    return kept, suppressed
