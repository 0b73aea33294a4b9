"""The deterministic recheck: similarity proposed a pair; structure decides what it is.

| the pair is ...                            | decision                                |
|--------------------------------------------|-----------------------------------------|
| two canonical records                      | slot-equality already decided (2c)      |
| two proved slots, or already paired        | stays as the heuristics judged it       |
| agreeing on any shared frame               | nothing (a paraphrase)                  |
| prose, no order, similarity >= 0.60        | likely_conflict (a hedge)               |
| prose, no order, similarity < 0.60         | nothing                                 |
| prose, ordered, one side record or anchor  | contradicted_implicit or stale (older)  |
| prose, ordered, two bare frames            | nothing                                 |

The composite confidence is the mean of the cosine and what the structure proved, read on the
weaker side: canonical record 1.0, anchor verb frame 0.6, copula/prepositional frame 0.35. An
observation order is a time cue worth 0.6, so a dated pair scores at least 0.6; but a dated
verdict is an error, so it also needs one side proved by a record or an anchor. Two bare
frames with dates are left alone: "had an outage in X" / "in Y" are events, not states.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import combinations

from memory_autopsy.claims import find_transition, is_versioned_slot, negated
from memory_autopsy.embed.frames import Reading, read_pair, values_alike
from memory_autopsy.engine.context import Context, fact_body, observed_order
from memory_autopsy.engine.findings import fact_finding
from memory_autopsy.model import NAMED_SHAPES, Fact, Fidelity, Finding
from memory_autopsy.normalize import STOPWORDS, WORD, stem

HEDGE = 0.60
TIME_CUE = 0.6
HIGH = 0.75


def composite(cosine: float, structured: float) -> float:
    """The documented blend: the plain mean of the two signals."""
    return (cosine + structured) / 2


def judged_pairs(found: Iterable[Finding]) -> tuple[set[frozenset[str]], set[tuple[str, int]]]:
    """Fact-id pairs some heuristic finding already links, and the places of flagged copies."""
    pairs: set[frozenset[str]] = set()
    copies: set[tuple[str, int]] = set()
    for finding in found:
        ids = set(finding.fact_ids) | {r.fact_id for r in finding.related if r.fact_id}
        pairs.update(frozenset(pair) for pair in combinations(sorted(ids), 2))
        if finding.rule in ("duplicate", "near_duplicate"):
            copies.add((finding.path, finding.line))
    return pairs, copies


def recheck(
    ctx: Context, a: Fact, b: Fact, cosine: float, judged: set[frozenset[str]]
) -> Finding | None:
    if a.id == b.id or frozenset((a.id, b.id)) in judged:
        return None
    if a.fidelity is Fidelity.FULL and b.fidelity is Fidelity.FULL:
        return None
    if ctx.slot_key(a) is not None and ctx.slot_key(b) is not None:
        # One proved slot: the heuristics' slot analysis judged the pair. Two different slots
        # (or one slot for two purposes, "for billing" / "for search"): independent facts.
        return None
    if retracts(ctx, a) or retracts(ctx, b):
        return None
    reading = read_pair(a, b, ctx.vocabulary)
    if reading is None or reading.agree:
        return None
    if reading.strength < 1.0 and not values_alike(reading.left, reading.right, ctx.vocabulary):
        return None  # a verb, an adjective or a description is no value: no slot to conflict on
    order = observed_order(a, b)
    if order is None:
        if _siblings(ctx, a, b):
            return None  # items of one list written side by side to differ: two subjects
        return _hedge(a, b, reading, cosine) if cosine >= HEDGE else None
    if reading.proven < TIME_CUE:
        return None  # two bare frames with dates: events ("had an outage in X") are not states
    if order == -1:
        return _dated(ctx, a, b, reading.left, reading.right, reading, cosine)
    return _dated(ctx, b, a, reading.right, reading.left, reading, cosine)


def _siblings(ctx: Context, a: Fact, b: Fact) -> bool:
    """Two items of one markdown list or table that open with two subjects ("Product pages
    cache …" / "Search results pages keep …"). Not items naming one subject ("billing-store:
    …" on both; "our session tokens live in redis" / "session tokens are kept in memcached"),
    nor a graph's observations (one entity's, not items written to differ)."""
    if a.shape in NAMED_SHAPES or b.shape in NAMED_SHAPES:
        return False
    if fact_body(a) != a.claim or fact_body(b) != b.claim:
        return False
    return ctx.one_run(a, b) and _opening(a.claim) != _opening(b.claim)


SUBJECT_WORDS = 2  # the content words an item opens with: its subject, as near as words tell


def _opening(claim: str) -> tuple[str, ...]:
    words = (w for w in WORD.findall(claim.casefold()) if w not in STOPWORDS)
    return tuple(stem(w) for _, w in zip(range(SUBJECT_WORDS), words))


def retracts(ctx: Context, fact: Fact) -> bool:
    """Retractions and negations belong to layer 2; a frame reading of them means nothing."""
    return negates(ctx, fact) or turns(ctx, fact)


def negates(ctx: Context, fact: Fact) -> bool:
    """The claim says what is not so ("never merge to main", "doesn't cache")."""
    return negated(ctx.norm_body(fact))


def turns(ctx: Context, fact: Fact) -> bool:
    """The claim carries a transition: something moved, was replaced or dropped."""
    return find_transition(fact_body(fact), ctx.vocabulary) is not None


def _signals(cosine: float, structured: float) -> tuple[str, float, str]:
    band = "high" if cosine >= HIGH else "moderate"
    score = composite(cosine, structured)
    detail = f"composite confidence {score:.2f} (cosine {cosine:.2f} + structured {structured:.2f})"
    return band, score, detail


def _hedge(a: Fact, b: Fact, reading: Reading, cosine: float) -> Finding:
    first, other = (a, b) if a.order <= b.order else (b, a)
    left, right = (reading.left, reading.right) if first is a else (reading.right, reading.left)
    band, score, detail = _signals(cosine, reading.strength)
    message = (
        f"{band} claim similarity ({cosine:.2f}) with prose-only: slot {reading.slot!r} "
        f"value conflict ({left!r} -> {right!r}); {detail}"
    )
    return fact_finding(
        "likely_conflict",
        first,
        message,
        related=[other],
        layer="3",
        confidence=score,
        extra=_extra(cosine, reading.strength, reading),
    )


def _dated(
    ctx: Context, older: Fact, newer: Fact, old: str, new: str, reading: Reading, cosine: float
) -> Finding:
    structured = max(reading.strength, TIME_CUE)
    band, score, detail = _signals(cosine, structured)
    bump = reading.verdict == "version" or is_versioned_slot(reading.slot, ctx.vocabulary)
    rule = "stale" if bump else "contradicted_implicit"
    what = "superseded by a later observation" if bump else "value conflict"
    message = (
        f"{band} claim similarity ({cosine:.2f}) with dated frame analysis: slot "
        f"{reading.slot!r} {what} ({old!r} -> {new!r}; observed {older.observed_at} -> "
        f"{newer.observed_at}); {detail}"
    )
    extra = _extra(cosine, structured, reading) | {"survivor_id": newer.id}
    return fact_finding(
        rule, older, message, related=[newer], layer="3", confidence=score, extra=extra
    )


def _extra(cosine: float, structured: float, reading: Reading) -> dict[str, object]:
    # No survivor_date: a layer-3 finding is never planned as an automatic supersede.
    return {"cosine": round(cosine, 3), "structured": structured, "frame_slot": reading.slot}
