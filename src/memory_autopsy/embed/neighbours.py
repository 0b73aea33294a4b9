"""Candidate pairs from similarity, blocked so that a hot entity cannot blow up.

Pure Python (numpy is not a dependency), so the number of dot products is what must be
bounded. Facts are compared only within their entity, and only when they share a frame word:
the recheck needs a shared content word to read a conflict, so a pair without one could never
become a finding and is not worth a dot product. Each word's posting list contributes at most
WINDOW partners per fact (the next ones in file order), and each fact is compared with at most
WINDOW partners in all, so the work is O(facts x WINDOW x dim) however large an entity grows.
Each fact then keeps at most TOP_K partners, the most similar first.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Collection, Sequence
from typing import Any

BAND_GREY = 0.45
WINDOW = 64
TOP_K = 8

_sumprod: Callable[[Sequence[float], Sequence[float]], float] | None = getattr(
    math, "sumprod", None
)


def normalized(vector: Sequence[float]) -> list[float]:
    norm = math.sqrt(dot(vector, vector))
    return [x / norm for x in vector] if norm > 0 else [0.0 for _ in vector]


def dot(a: Sequence[float], b: Sequence[float]) -> float:
    if _sumprod is not None:
        return float(_sumprod(a, b))
    return float(sum(map(operator.mul, a, b)))


def blocked_partners(words: Sequence[Collection[str]], window: int = WINDOW) -> list[list[int]]:
    """For each item i, the later items j (at most `window`) that share a word with it."""
    postings: dict[str, list[int]] = {}
    for i, item_words in enumerate(words):
        for word in item_words:
            postings.setdefault(word, []).append(i)
    partners: list[set[int]] = [set() for _ in words]
    for ids in postings.values():
        for pos, i in enumerate(ids):
            partners[i].update(ids[pos + 1 : pos + 1 + window])
    return [sorted(p)[:window] for p in partners]


BULK = 1 << 16  # pairs scored at once: two gathers of 64 MB at 256 dimensions


def _scored_in_bulk(partners: list[list[int]], matrix: Any, threshold: float) -> list[tuple[float, int, int]]:
    import numpy as np  # present whenever a numpy matrix is: the static model's extra brings it

    left = np.fromiter((i for i, later in enumerate(partners) for _ in later), dtype=np.int64)
    right = np.fromiter((j for later in partners for j in later), dtype=np.int64)
    scored: list[tuple[float, int, int]] = []
    for start in range(0, len(left), BULK):
        i, j = left[start:start + BULK], right[start:start + BULK]
        cosine = np.einsum("ij,ij->i", matrix[i], matrix[j])
        keep = np.nonzero(cosine >= threshold)[0]
        scored.extend(zip(cosine[keep].tolist(), i[keep].tolist(), j[keep].tolist()))
    return scored


def _scored(partners: list[list[int]], vectors: Any, threshold: float) -> list[tuple[float, int, int]]:
    """(cosine, i, j) for each item i and each of its partners j with cosine >= threshold: the
    rows of one numpy array in bulk, lists of floats one pair at a time."""
    if hasattr(vectors, "shape"):
        return _scored_in_bulk(partners, vectors, threshold)
    return [(cosine, i, j) for i, later in enumerate(partners) for j in later
            if (cosine := dot(vectors[i], vectors[j])) >= threshold]


def cross_pairs(
    left: Sequence[Collection[str]],
    right: Sequence[Collection[str]],
    vectors: Any,
    threshold: float,
    *,
    window: int = WINDOW,
) -> list[tuple[int, int, float]]:
    """(i, j, cosine) for an item i of `left` and an item j of `right` that share a word, at
    most `window` partners each, with cosine >= threshold; `vectors` holds the left items' rows
    and then the right items' (j is counted from the first right item)."""
    postings: dict[str, list[int]] = {}
    for j, item_words in enumerate(right):
        for word in item_words:
            listed = postings.setdefault(word, [])
            if len(listed) < window:
                listed.append(len(left) + j)
    partners = [sorted({j for word in item_words for j in postings.get(word, ())})[:window] for item_words in left]
    partners += [[] for _ in right]
    return sorted((i, j - len(left), cosine) for cosine, i, j in _scored(partners, vectors, threshold))


def candidate_pairs(
    words: Sequence[Collection[str]],
    vectors: Any,
    threshold: float = BAND_GREY,
    *,
    window: int = WINDOW,
    top_k: int = TOP_K,
) -> list[tuple[int, int, float]]:
    """(i, j, cosine) with i < j and cosine >= threshold; `vectors` are normalized, one per item
    (lists of floats, or the rows of one numpy array, scored in bulk)."""
    scored = _scored(blocked_partners(words, window), vectors, threshold)
    scored.sort(key=lambda item: (-item[0], item[1], item[2]))
    taken = [0] * len(vectors)
    kept: list[tuple[int, int, float]] = []
    for cosine, i, j in scored:
        if taken[i] < top_k and taken[j] < top_k:
            taken[i] += 1
            taken[j] += 1
            kept.append((i, j, cosine))
    return sorted(kept)
