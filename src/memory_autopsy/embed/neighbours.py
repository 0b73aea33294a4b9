"""Candidate pairs from similarity, blocked so that a hot entity cannot blow up.

Pure Python (numpy is not a dependency): vectors are normalized once, each fact is compared
only with facts of its own entity, and only with the next WINDOW of them in file order, so
the work is O(facts x WINDOW x dim) however large an entity grows; each fact then keeps at most
TOP_K partners (the most similar first), so the recheck sees O(facts x TOP_K) pairs.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Sequence
from typing import TypeVar

BAND_GREY = 0.45
WINDOW = 128
TOP_K = 8

T = TypeVar("T")

_sumprod: Callable[[Sequence[float], Sequence[float]], float] | None = getattr(math, "sumprod", None)


def normalized(vector: Sequence[float]) -> list[float]:
    norm = math.sqrt(dot(vector, vector))
    return [x / norm for x in vector] if norm > 0 else [0.0 for _ in vector]


def dot(a: Sequence[float], b: Sequence[float]) -> float:
    if _sumprod is not None:
        return float(_sumprod(a, b))
    return float(sum(map(operator.mul, a, b)))


def candidate_pairs(
    group: Sequence[T],
    vectors: Sequence[Sequence[float]],
    threshold: float = BAND_GREY,
    *,
    window: int = WINDOW,
    top_k: int = TOP_K,
) -> list[tuple[int, int, float]]:
    """(i, j, cosine) with i < j and cosine >= threshold; `vectors` are normalized, one per item."""
    scored: list[tuple[float, int, int]] = []
    for i in range(len(group)):
        for j in range(i + 1, min(len(group), i + 1 + window)):
            cosine = dot(vectors[i], vectors[j])
            if cosine >= threshold:
                scored.append((cosine, i, j))
    scored.sort(key=lambda item: (-item[0], item[1], item[2]))
    taken = [0] * len(group)
    kept: list[tuple[int, int, float]] = []
    for cosine, i, j in scored:
        if taken[i] < top_k and taken[j] < top_k:
            taken[i] += 1
            taken[j] += 1
            kept.append((i, j, cosine))
    return sorted(kept)
