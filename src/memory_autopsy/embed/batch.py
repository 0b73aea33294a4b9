"""Texts to vectors: the cache first, then the endpoint in batches, with progress for long runs."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from memory_autopsy.embed.cache import EmbeddingCache, as_float32
from memory_autopsy.embed.client import check_vectors
from memory_autopsy.embed.neighbours import normalized
from memory_autopsy.embed.protocol import Embedder, EmbedError

Progress = Callable[[int, int], None]
PROGRESS_MIN = 256  # texts to send before a run counts as long enough to show progress


def embed_texts(
    texts: Sequence[str],
    embedder: Embedder,
    cache: EmbeddingCache | None,
    batch_size: int,
    progress: Progress | None = None,
) -> dict[str, list[float]]:
    """Normalized float32 vectors for every distinct text; raises EmbedError on any failure."""
    found: dict[str, list[float]] = {}
    missing: list[str] = []
    for text in dict.fromkeys(texts):
        cached = cache.get(text) if cache is not None else None
        if cached is None:
            missing.append(text)
        else:
            found[text] = cached
    dim = len(next(iter(found.values()))) if found else None
    step = max(1, batch_size)
    try:
        for start in range(0, len(missing), step):
            batch = missing[start : start + step]
            vectors = check_vectors(embedder.embed(batch), len(batch), dim)
            dim = len(vectors[0]) if vectors else dim
            for text, vector in zip(batch, vectors):
                found[text] = as_float32(vector)
                if cache is not None:
                    cache.put(text, found[text])
            if progress is not None and len(missing) >= PROGRESS_MIN:
                progress(min(start + step, len(missing)), len(missing))
    finally:
        if cache is not None:
            cache.save()
    _check_cached_dims(found, dim, embedder)
    return {text: normalized(vector) for text, vector in found.items()}


def _check_cached_dims(found: dict[str, list[float]], dim: int | None, embedder: Embedder) -> None:
    if any(len(vector) != dim for vector in found.values()):
        raise EmbedError(
            "vectors of the wrong size (the endpoint and the cache disagree; run with --no-cache)"
        )


def terminal_progress(stream: TextIO | None = None) -> Progress | None:
    """A progress line on stderr, only when stderr is a terminal (never in pipes or CI logs)."""
    err = stream or sys.stderr
    try:
        if not err.isatty():
            return None
    except (AttributeError, ValueError):
        return None

    def report(done: int, total: int) -> None:
        end = "\n" if done >= total else ""
        err.write(f"\rmemory-autopsy: embedded {done}/{total} texts{end}")
        err.flush()

    return report
