"""Layer 3 as an engine Layer: embed the claims, propose pairs, let the recheck decide.

Any failure of the endpoint becomes one `degraded` finding (no location) and the heuristic
findings stand: the layer never raises once it runs. Only settings that would send the API key
in clear text to another host are a usage error, raised when the layer is made, before the run
connects anywhere.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from memory_autopsy.embed.batch import Progress, embed_texts, terminal_progress
from memory_autopsy.embed.cache import EmbeddingCache, default_cache_dir
from memory_autopsy.embed.client import HttpEmbedder, clear_text_key, is_static, resolve
from memory_autopsy.embed.frames import frame_words
from memory_autopsy.embed.neighbours import BAND_GREY, candidate_pairs
from memory_autopsy.embed.paraphrase import paraphrases
from memory_autopsy.embed.protocol import Embedder, EmbedError
from memory_autopsy.embed.recheck import judged_pairs, recheck
from memory_autopsy.embed.static import StaticEmbedder
from memory_autopsy.embed.status_pairs import status_pairs
from memory_autopsy.engine.context import Context, fact_body
from memory_autopsy.engine.findings import plain_finding
from memory_autopsy.model import Fact, Fidelity, Finding
from memory_autopsy.settings import Settings

# The vectors of some facts, in their order: a list of lists, or a numpy array's rows.
Block = Callable[[Sequence[Fact]], Any]


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
        # Restatements are sought with the packaged model only: its threshold was measured on it
        static = isinstance(self._embedder, StaticEmbedder) or (
            self._embedder is None and is_static(self._settings.embed, self._environ))
        alone = _prose(ctx, copies) if static else []
        # A heading that marks its title with a status is a side of a status conflict, as an item is
        titles = [h for h in ctx.headings if fact_body(h).strip()] if static else []
        if not groups and len(alone) + len(titles) < 2:
            return []
        where = "the embedding endpoint"
        try:
            embedder = self._embedder or self._chosen_embedder()
            where = f"{embedder.endpoint} (model {embedder.model})"
            texts = list(dict.fromkeys(fact_body(f) for facts in (*groups, alone, titles) for f in facts))
            block = self._vectors(embedder, texts)
        except EmbedError as error:
            return [
                degraded(f"embedding layer skipped, heuristic findings stand: {where}: {error}")
            ]
        findings: list[Finding] = []
        for facts in groups:
            words = [frame_words(f, ctx.vocabulary) for f in facts]
            for i, j, cosine in candidate_pairs(words, block(facts), BAND_GREY):
                finding = recheck(ctx, facts[i], facts[j], cosine, judged)
                if finding is not None:
                    findings.append(finding)
        judged |= judged_pairs(findings)[0]
        findings.extend(paraphrases(ctx, alone, block, judged))
        if alone or titles:
            flagged = {f.fact_ids[0] for f in (*found, *findings) if f.rule == "status_conflict" and f.fact_ids}
            findings.extend(status_pairs(ctx, [*alone, *titles], block, judged, flagged))
        return findings

    def _vectors(self, embedder: Embedder, texts: list[str]) -> Block:
        """The facts' vectors, in their order. The packaged model embeds a store faster than
        the cache reads it back: its rows stay one numpy array, scored in bulk, never cached."""
        if isinstance(embedder, StaticEmbedder):
            matrix = embedder.matrix(texts)
            row = {text: i for i, text in enumerate(texts)}
            return lambda facts: matrix[[row[fact_body(f)] for f in facts]]
        vectors = embed_texts(texts, embedder, self._cache(embedder), self._settings.embed.batch_size, self._progress)
        return lambda facts: [vectors[fact_body(f)] for f in facts]

    def _chosen_embedder(self) -> Embedder:
        if is_static(self._settings.embed, self._environ):
            return StaticEmbedder(self._cache_dir())
        endpoint = resolve(self._settings.embed, self._environ)
        try:
            return HttpEmbedder(endpoint, self._environ)
        except EmbedError as error:
            raise EmbedError(f"{endpoint.url}: {error}") from None

    def _cache(self, embedder: Embedder) -> EmbeddingCache | None:
        embed = self._settings.embed
        if not embed.use_cache:
            return None
        return EmbeddingCache(self._cache_dir(), embedder.endpoint, embedder.model)

    def _cache_dir(self) -> str:
        return os.path.expanduser(str(self._settings.embed.cache_dir or default_cache_dir(self._environ)))


def _groups(ctx: Context, copies: set[tuple[str, int]]) -> list[list[Fact]]:
    """Active facts per entity, copies left out; only entities with a pair to compare."""
    groups = []
    for facts in ctx.active_by_entity.values():
        kept = [f for f in facts if (f.path, f.line) not in copies and f.shape != "relation" and fact_body(f).strip()]
        if len(kept) > 1:
            groups.append(sorted(kept, key=lambda f: f.order))
    return groups


def _prose(ctx: Context, copies: set[tuple[str, int]]) -> list[Fact]:
    """Every active prose fact of the run, copies left out: restatements are sought store-wide."""
    return [f for f in ctx.active if f.fidelity is not Fidelity.FULL and (f.path, f.line) not in copies
            and f.shape != "relation" and fact_body(f).strip()]


def degraded(message: str) -> Finding:
    """A run condition, not a fact: no path, no line."""
    return plain_finding("degraded", "", 0, "", message, ["embedding-layer"])
