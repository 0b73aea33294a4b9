"""Layer 1: exact duplicates by normalized hash, near-duplicates by trigram prefix filtering."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator, Sequence

from memory_autopsy.engine.context import Context
from memory_autopsy.engine.findings import fact_finding, quote
from memory_autopsy.model import Fact, Finding
from memory_autopsy.normalize import trigrams

THRESHOLD = 0.91
_T2 = THRESHOLD * THRESHOLD


def exact(ctx: Context) -> tuple[list[Finding], set[int]]:
    """Later copies of a claim already stored for the same entity; returns their orders too."""
    first: dict[tuple[str, str], Fact] = {}
    findings: list[Finding] = []
    flagged: set[int] = set()
    for form, facts in ctx.by_entity.items():
        for fact in facts:
            key = (form, ctx.norm_body(fact))
            original = first.setdefault(key, fact)
            if original is fact:
                continue
            flagged.add(fact.order)
            findings.append(
                fact_finding(
                    "duplicate", fact,
                    f"identical to {original.path}:{original.line} {quote(original.claim)!r} "
                    "(normalized hash match)",
                    related=[original],
                )
            )
    return findings, flagged


def near(ctx: Context, skip: set[int]) -> Iterator[Finding]:
    for facts in ctx.by_entity.values():
        if len(facts) > 1:
            yield from _near_in_entity(ctx, [f for f in facts if f.order not in skip])


def _near_in_entity(ctx: Context, facts: Sequence[Fact]) -> Iterator[Finding]:
    grams = [trigrams(ctx.norm_body(f)) for f in facts]
    frequency: Counter[str] = Counter()
    for gram in grams:
        frequency.update(gram)
    index: dict[str, list[int]] = {}
    for i, (fact, gram) in enumerate(zip(facts, grams)):
        size = len(gram)
        if size < 4:
            continue
        ordered = sorted(gram, key=lambda g: (frequency[g], g))
        prefix = ordered[: size - math.ceil(_T2 * size) + 1]
        match = _best_match(ctx, facts, grams, index, i, prefix)
        if match is not None:
            j, score = match
            other = facts[j]
            yield fact_finding(
                "near_duplicate", fact,
                f"near-duplicate of {other.path}:{other.line} {quote(other.claim)!r} "
                f"(trigram similarity {score:.2f})",
                related=[other], confidence=score,
            )
        for gram_key in prefix:
            index.setdefault(gram_key, []).append(i)


def _best_match(
    ctx: Context, facts: Sequence[Fact], grams: Sequence[frozenset[str]],
    index: dict[str, list[int]], i: int, prefix: Sequence[str],
) -> tuple[int, float] | None:
    gram, size = grams[i], len(grams[i])
    seen: set[int] = set()
    for key in prefix:
        for j in index.get(key, ()):
            if j in seen:
                continue
            seen.add(j)
            other = grams[j]
            if not _T2 * size <= len(other) <= size / _T2:
                continue
            score = len(gram & other) / math.sqrt(size * len(other))
            if score >= THRESHOLD and _same_claim_kind(ctx, facts[i], facts[j]):
                return j, score
    return None


def _same_claim_kind(ctx: Context, a: Fact, b: Fact) -> bool:
    """A changed number or a retraction is a change of value, never a near-duplicate."""
    digits_a = [t for t in ctx.norm_body(a).split() if any(c.isdigit() for c in t)]
    digits_b = [t for t in ctx.norm_body(b).split() if any(c.isdigit() for c in t)]
    if digits_a != digits_b:
        return False
    return (a.status_verb is None) == (b.status_verb is None) and a.value == b.value if a.slot and b.slot else (
        (a.status_verb is None) == (b.status_verb is None)
    )
