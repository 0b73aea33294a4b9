"""Layer 2: a fact carrying a transition trigger retracts what another fact asserts."""

from __future__ import annotations

from collections.abc import Sequence

from memory_autopsy.claims import Transition, find_transition
from memory_autopsy.engine.context import Context, fact_body, observed_order
from memory_autopsy.engine.findings import fact_finding, quote
from memory_autopsy.model import Fact, Finding
from memory_autopsy.normalize import normalize_claim

# Words of a normalized claim that negate it ("isn't" normalizes to "isn t").
_NEGATING = frozenset({"not", "never", "isn", "doesn", "don", "aren", "wasn", "weren", "won"})


def find(ctx: Context) -> tuple[list[Finding], set[tuple[int, int]]]:
    """Findings plus the (flagged, trigger) pairs, so later layers do not repeat them."""
    findings: list[Finding] = []
    pairs: set[tuple[int, int]] = set()
    flagged: set[int] = set()
    for facts in ctx.active_by_entity.values():
        retractions = _retractions(ctx, facts)
        if not retractions:
            continue
        needed = {word for _, transition in retractions for word in transition.anchors}
        index, words_of = _anchor_index(ctx, facts, {f.order for f, _ in retractions}, needed)
        for trigger_fact, transition in retractions:
            for target in _candidates(index, transition):
                if target.order in flagged or target.order == trigger_fact.order:
                    continue
                anchor = transition.matches(words_of[target.order])
                if anchor is None or observed_order(trigger_fact, target) == -1:
                    continue
                flagged.add(target.order)
                pairs.add((target.order, trigger_fact.order))
                findings.append(_finding(target, trigger_fact, transition, anchor))
    return findings, pairs


def _retractions(ctx: Context, facts: Sequence[Fact]) -> list[tuple[Fact, Transition]]:
    found = []
    for fact in facts:
        if fact.fidelity.value == "FULL":
            continue
        transition = find_transition(fact_body(fact), ctx.vocabulary)
        if transition is not None:
            found.append((fact, transition))
    return found


def _candidates(index: dict[str, list[Fact]], transition: Transition) -> list[Fact]:
    seen: dict[int, Fact] = {}
    for anchor in transition.anchors:
        for fact in index.get(anchor, ()):
            seen.setdefault(fact.order, fact)
    return sorted(seen.values(), key=lambda f: f.order)


def _anchor_index(
    ctx: Context, facts: Sequence[Fact], skip: set[int], needed: set[str]
) -> tuple[dict[str, list[Fact]], dict[int, set[str]]]:
    """Word index of the facts that mention an anchor some retraction of the entity names."""
    synonyms = ctx.vocabulary.synonyms
    spelled = needed | {raw for raw, canonical in synonyms.items() if canonical in needed}
    index: dict[str, list[Fact]] = {}
    words_of: dict[int, set[str]] = {}
    for fact in facts:
        if fact.order in skip:
            continue
        if spelled.isdisjoint(ctx.norm_body(fact).split()) and spelled.isdisjoint(
            normalize_claim(fact.value).split()
        ):
            continue
        words = ctx.words(fact)
        if words & _NEGATING or " no longer " in f" {ctx.norm_body(fact)} ":
            continue
        words_of[fact.order] = words
        for word in words:
            index.setdefault(word, []).append(fact)
    return index, words_of


def _finding(target: Fact, trigger: Fact, transition: Transition, anchor: str) -> Finding:
    when = "newer" if observed_order(trigger, target) == 1 else "unordered"
    message = (
        f"{when} fact has transition trigger {transition.trigger!r} on shared anchor {anchor!r}: "
        f"{quote(trigger.claim)!r} ({trigger.path}:{trigger.line})"
    )
    return fact_finding(
        "contradicted_explicit", target, message, related=[trigger],
        extra={"trigger": transition.trigger, "anchor": anchor, "survivor_date": trigger.observed_at},
    )
