"""Time travel: what a store held to be true on a given date.

A record with a validity window is in effect at D when valid_from <= D < valid_to (the
window is an assertion about the world, trusted even when the record was observed later; a
window with no start starts at the observation). A record with no window is believed from its
observation date. A record with neither is `unanchored`: reported, never guessed into the
answer. Conflicts among the records in effect are found by the linter's own engine, run on
exactly those records, and settled by `verdict.resolve`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from memory_autopsy.dates import day_of
from memory_autopsy.model import Fact, Problem, Store
from memory_autopsy.normalize import entity_form
from memory_autopsy.settings import Settings
from memory_autopsy.verdicts.verdict import Judged, Weights, resolve

IN_EFFECT, NOT_YET_VALID, EXPIRED, UNANCHORED = "in_effect", "not_yet_valid", "expired", "unanchored"


@dataclass(frozen=True, slots=True)
class OutOfWindow:
    """A fact outside the as-of date's window, and why."""

    fact: Fact
    reason: str
    boundary: str


@dataclass(frozen=True, slots=True)
class AsOfView:
    """What was believed on a day: the beliefs in effect, the facts out of their window, the undated."""

    day: str
    stores: tuple[str, ...]
    facts_read: int
    beliefs: tuple[Judged, ...]
    out_of_window: tuple[OutOfWindow, ...]
    unanchored: tuple[Fact, ...]
    unresolved_aliases: tuple[tuple[str, str], ...]
    conflicts_resolved: int
    problems: tuple[Problem, ...] = ()

    @property
    def entities(self) -> list[str]:
        return list(dict.fromkeys(j.fact.entity for j in self.beliefs))


def placement(fact: Fact, day: str) -> tuple[str, str]:
    """(state at `day`, the boundary date that decided it)."""
    start = day_of(fact.valid_from) or (day_of(fact.observed_at))
    end = day_of(fact.valid_to)
    if not (fact.valid_from or fact.valid_to or fact.observed_at):
        return UNANCHORED, ""
    if start and day < start:
        return NOT_YET_VALID, start
    if end and day >= end:
        return EXPIRED, end
    return IN_EFFECT, start or ""


def as_of(
    store: Store, day: str, settings: Settings, weights: Weights, entity: str | None = None
) -> AsOfView:
    from memory_autopsy.pipeline import lint_loaded

    placed = [(fact, *placement(fact, day)) for fact in store.facts]
    in_effect = [f._replace(valid_to=None) for f, state, _ in placed if state == IN_EFFECT]
    quiet = replace(settings, as_of=None, max_age_days=None)
    report = lint_loaded(Store(facts=tuple(in_effect), paths=store.paths), quiet)
    judged = resolve(in_effect, report.findings, weights).judged
    keep = _entity_filter(store.facts, entity)
    originals = {f.order: f for f in store.facts}
    beliefs = tuple(replace(j, fact=originals[j.fact.order]) for j in judged if keep(j.fact))
    outside = [OutOfWindow(f, s, b) for f, s, b in placed if s in (NOT_YET_VALID, EXPIRED) and keep(f)]
    return AsOfView(
        day=day,
        stores=store.paths,
        facts_read=len(store.facts),
        beliefs=beliefs,
        out_of_window=tuple(sorted(outside, key=lambda o: (o.boundary, o.fact.order), reverse=True)),
        unanchored=tuple(f for f, s, _ in placed if s == UNANCHORED and keep(f)),
        unresolved_aliases=_aliases(store, entity),
        conflicts_resolved=len({j.group for j in beliefs if j.group is not None}),
        problems=store.problems,
    )


def _entity_filter(facts: Sequence[Fact], entity: str | None) -> Callable[[Fact], bool]:
    if entity is None:
        return lambda fact: True
    wanted = entity_form(entity)
    names = {entity_form(f.entity) for f in facts if wanted in _forms(f)}
    return lambda fact: entity_form(fact.entity) in names


def _forms(fact: Fact) -> set[str]:
    return {entity_form(n) for n in (fact.entity, fact.written_entity, *fact.aliases) if n}


def knows_entity(store: Store, entity: str) -> bool:
    wanted = entity_form(entity)
    return any(wanted in _forms(f) for f in store.facts)


def _aliases(store: Store, entity: str | None) -> tuple[tuple[str, str], ...]:
    pairs = [(pair[0], pair[2]) for pair in store.alias_pairs]
    if entity is None:
        return tuple(pairs)
    wanted = entity_form(entity)
    return tuple((a, b) for a, b in pairs if wanted in (entity_form(a), entity_form(b)))
