"""Layer 3 as an engine Layer: embed the claims, propose pairs, let the recheck decide.

Any failure of the endpoint becomes one `degraded` finding (no location) and the heuristic
findings stand: the layer never raises once it runs. Only settings that would send the API key
in clear text to another host are a usage error, raised when the layer is made, before the run
connects anywhere.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from memory_autopsy.embed.batch import Progress, embed_texts, terminal_progress
from memory_autopsy.embed.cache import EmbeddingCache, default_cache_dir
from memory_autopsy.embed.client import HttpEmbedder, clear_text_key, resolve
from memory_autopsy.embed.frames import frame_words
from memory_autopsy.embed.neighbours import BAND_GREY, candidate_pairs
from memory_autopsy.embed.protocol import Embedder, EmbedError
from memory_autopsy.embed.recheck import judged_pairs, recheck
from memory_autopsy.engine.context import Context, fact_body
from memory_autopsy.engine.findings import plain_finding
from memory_autopsy.model import Fact, Finding
from memory_autopsy.settings import Settings


class EmbeddingLayer:
    """Implements engine.run.Layer; the embedder, environment and progress are injectable."""

    def __init__(
        self,
        settings: Settings,
        embedder: Embedder | None = None,
        *,
        environ: Mapping[str, str] | None = None,
        progress: Progress | None = None,
    ) -> None:
        self._settings = settings
        self._embedder = embedder
        self._environ = os.environ if environ is None else environ
        self._progress = progress if progress is not None else terminal_progress()
        if embedder is None:
            clear_text_key(settings.embed, self._environ)

    def __call__(self, ctx: Context, found: list[Finding]) -> list[Finding]:
        judged, copies = judged_pairs(found)
        groups = _groups(ctx, copies)
        if not groups:
            return []
        where = "the embedding endpoint"
        try:
            embedder = self._embedder or self._http_embedder()
            where = f"{embedder.endpoint} (model {embedder.model})"
            texts = [fact_body(f) for facts in groups for f in facts]
            vectors = embed_texts(
                texts,
                embedder,
                self._cache(embedder),
                self._settings.embed.batch_size,
                self._progress,
            )
        except EmbedError as error:
            return [
                degraded(f"embedding layer skipped, heuristic findings stand: {where}: {error}")
            ]
        findings: list[Finding] = []
        for facts in groups:
            block = [vectors[fact_body(f)] for f in facts]
            words = [frame_words(f, ctx.vocabulary) for f in facts]
            for i, j, cosine in candidate_pairs(words, block, BAND_GREY):
                finding = recheck(ctx, facts[i], facts[j], cosine, judged)
                if finding is not None:
                    findings.append(finding)
        return findings

    def _http_embedder(self) -> Embedder:
        endpoint = resolve(self._settings.embed, self._environ)
        try:
            return HttpEmbedder(endpoint, self._environ)
        except EmbedError as error:
            raise EmbedError(f"{endpoint.url}: {error}") from None

    def _cache(self, embedder: Embedder) -> EmbeddingCache | None:
        embed = self._settings.embed
        if not embed.use_cache:
            return None
        directory = embed.cache_dir or default_cache_dir(self._environ)
        return EmbeddingCache(os.path.expanduser(str(directory)), embedder.endpoint, embedder.model)


def _groups(ctx: Context, copies: set[tuple[str, int]]) -> list[list[Fact]]:
    """Active facts per entity, copies left out; only entities with a pair to compare."""
    groups = []
    for facts in ctx.active_by_entity.values():
        kept = [f for f in facts if (f.path, f.line) not in copies and fact_body(f).strip()]
        if len(kept) > 1:
            groups.append(sorted(kept, key=lambda f: f.order))
    return groups


def degraded(message: str) -> Finding:
    """A run condition, not a fact: no path, no line."""
    return plain_finding("degraded", "", 0, "", message, ["embedding-layer"])
