"""Layer 1: exact duplicates by normalized hash, near-duplicates by trigram prefix filtering."""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from functools import lru_cache

from memory_autopsy.engine.context import Context
from memory_autopsy.engine.findings import fact_finding, quote
from memory_autopsy.model import Fact, Fidelity, Finding
from memory_autopsy.normalize import STOPWORDS, stem, trigrams

THRESHOLD = 0.91
# Claims kept per blocking key: a hot entity of templated claims stays linear.
BUCKET_LIMIT = 8
_MOD = (1 << 61) - 1  # blocking keys are hashes modulo a Mersenne prime
_BASE = 1_000_003

Key = tuple[int, int]  # (word count, hash of the words)


def exact(ctx: Context, in_blocks: set[int] | None = None) -> tuple[list[Finding], set[int]]:
    """Later copies of a claim already stored for the same entity; returns their orders too.
    Facts inside a copied block are reported once, for the block."""
    first: dict[tuple[str, str, str | None, str | None], Fact] = {}
    findings: list[Finding] = []
    flagged: set[int] = set(in_blocks or ())
    for form, facts in ctx.by_entity.items():
        if not ctx.in_focus(form):
            continue
        for fact in facts:
            key = (form, ctx.norm_body(fact), fact.valid_from, fact.valid_to)
            original = first.setdefault(key, fact)
            if original is fact or fact.order in flagged:
                continue
            if fact.status != original.status or _repeated_event(fact, original):
                continue  # `- [ ] x` beside `- [x] x` is a status conflict; a log repeats events
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
    """Prose claims only: two explicit records that nearly match are a slot question. Within one
    file: memory split over files (a memory bank's progress and active context) restates by
    design, while the same claim restated in one file is a slip."""
    for form, facts in ctx.by_entity.items():
        if not ctx.in_focus(form):
            continue
        by_file: dict[str, list[Fact]] = {}
        for fact in facts:
            if fact.order not in skip and fact.fidelity is not Fidelity.FULL:
                by_file.setdefault(fact.path, []).append(fact)
        for prose in by_file.values():
            if len(prose) > 1:
                found = list(_near_in_entity(ctx, prose))
                yield from found
                taken = {f.fact_ids[0] for f in found}
                yield from _restatements(ctx, [f for f in prose if f.id not in taken])


def _near_in_entity(ctx: Context, facts: Sequence[Fact]) -> Iterator[Finding]:
    """Block by word-deletion keys (claims one word apart), then let trigram cosine decide."""
    buckets: dict[Key, list[int]] = {}
    grams: dict[int, frozenset[str]] = {}
    for i, fact in enumerate(facts):
        words = ctx.norm_body(fact).split()
        if len(words) < 2:
            continue
        keys = deletion_keys(words)
        match = _best_match(ctx, facts, grams, buckets, i, keys)
        if match is not None:
            j, score = match
            other = facts[j]
            yield fact_finding(
                "near_duplicate", fact,
                f"near-duplicate of {other.path}:{other.line} {quote(other.claim)!r} "
                f"(trigram similarity {score:.2f})",
                related=[other], confidence=score,
            )
        for key in keys:
            bucket = buckets.setdefault(key, [])
            if len(bucket) < BUCKET_LIMIT:
                bucket.append(i)


RESTATED = 0.8  # Jaccard of stemmed content words for a restatement in other word order
MIN_RESTATED_WORDS = 5
_AUXILIARY = frozenset("was were is are be been being has have had will would".split())


def _restatements(ctx: Context, facts: Sequence[Fact]) -> Iterator[Finding]:
    """"Updates X to support Y" restated as "X was updated to support Y": the same content words
    (stemmed) in another order and voice. Blocked by one-word deletions of the sorted word set."""
    seen: dict[Key, list[tuple[Fact, frozenset[str]]]] = {}
    for fact in facts:
        words = content_words(ctx.norm_body(fact))
        if len(words) < MIN_RESTATED_WORDS:
            continue
        keys = set_deletion_keys(words)
        match = _restated(ctx, fact, words, keys, seen)
        if match is not None:
            other, score = match
            yield fact_finding(
                "near_duplicate", fact,
                f"restates {other.where} {quote(other.claim)!r} in other words (shared words {score:.2f})",
                related=[other], confidence=score,
            )
            continue
        for key in keys:
            bucket = seen.setdefault(key, [])
            if len(bucket) < BUCKET_LIMIT:
                bucket.append((fact, words))


def _restated(
    ctx: Context, fact: Fact, words: frozenset[str], keys: Sequence[Key],
    seen: dict[Key, list[tuple[Fact, frozenset[str]]]],
) -> tuple[Fact, float] | None:
    for key in keys:
        for other, other_words in seen.get(key, ()):
            score = len(words & other_words) / len(words | other_words)
            if score >= RESTATED and fact.status == other.status and _digits(ctx, fact) == _digits(ctx, other) \
                    and not _repeated_event(fact, other):
                return other, score
    return None


def deletion_keys(words: Sequence[str]) -> list[Key]:
    """The words and each one-word deletion of them, in order, as polynomial hashes: linear in
    the claim, where the joined strings were len(words) strings of len(words) words (a 64 KB
    claim took gigabytes). A collision only adds a candidate the trigram score must accept."""
    codes = [hash(w) % _MOD for w in words]
    n = len(codes)
    prefix = [0] * (n + 1)
    for k, code in enumerate(codes):
        prefix[k + 1] = (prefix[k] * _BASE + code) % _MOD
    deletions: list[Key] = []
    suffix, power = 0, 1  # the hash of codes[k + 1 :] and _BASE ** its length
    for k in range(n - 1, -1, -1):
        deletions.append((n - 1, (prefix[k] * power + suffix) % _MOD))
        suffix, power = (codes[k] * power + suffix) % _MOD, power * _BASE % _MOD
    return [(n, prefix[n])] + deletions[::-1]


def set_deletion_keys(words: frozenset[str]) -> list[Key]:
    """The set and each set less one word, as sums of word hashes (order-free), in set order."""
    codes = [hash(w) % _MOD for w in words]
    total = sum(codes) % _MOD
    return [(len(codes), total)] + [(len(codes) - 1, (total - code) % _MOD) for code in codes]


@lru_cache(maxsize=65536)
def content_words(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in text.split() if w not in STOPWORDS and w not in _AUXILIARY)


def _grams(ctx: Context, facts: Sequence[Fact], cache: dict[int, frozenset[str]], i: int) -> frozenset[str]:
    gram = cache.get(i)
    if gram is None:
        gram = cache[i] = trigrams(ctx.norm_body(facts[i]))
    return gram


def _best_match(
    ctx: Context, facts: Sequence[Fact], cache: dict[int, frozenset[str]],
    buckets: dict[Key, list[int]], i: int, keys: Sequence[Key],
) -> tuple[int, float] | None:
    seen: set[int] = set()
    for key in keys:
        for j in buckets.get(key, ()):
            if j in seen:
                continue
            seen.add(j)
            gram, other = _grams(ctx, facts, cache, i), _grams(ctx, facts, cache, j)
            score = len(gram & other) / math.sqrt(len(gram) * len(other))
            if score >= THRESHOLD and _same_claim_kind(ctx, facts[i], facts[j]):
                return j, score
    return None


def _repeated_event(a: Fact, b: Fact) -> bool:
    """"Ran pytest" in two dated entries happened twice: history, not a copy."""
    return a.kind == b.kind == "event" and a.entry != b.entry and a.observed_at != b.observed_at


def _digits(ctx: Context, fact: Fact) -> list[str]:
    return [t for t in ctx.norm_body(fact).split() if any(c.isdigit() for c in t)]


def _same_claim_kind(ctx: Context, a: Fact, b: Fact) -> bool:
    """A changed number, status or retraction is a change of value, never a near-duplicate."""
    if a.status != b.status or _repeated_event(a, b):
        return False
    if _digits(ctx, a) != _digits(ctx, b):
        return False
    return (a.status_verb is None) == (b.status_verb is None) and a.value == b.value if a.slot and b.slot else (
        (a.status_verb is None) == (b.status_verb is None)
    )
