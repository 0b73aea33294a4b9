"""Status by meaning: a task still pending in one place and done in another, in other words.

The status layer matches a pending task to done evidence by the task's words ("Add retry to
the sync job" / "✅ Added retry to the sync job"). A task and its evidence are often written
apart ("Main App.tsx integration" still to do, "Main App layout" built; "Window state
persistence" a future idea, "save/restore window geometry" recorded done). Similarity proposes
them, within one store (a heading whose title has a status is a side, as it is for the status
layer), blocked by shared frame words as layer 3's other pairs are; a pair is a
`status_conflict` (how `meaning`) only when:
- the cosine is at least STATUS_NEAR and both say enough (MIN_WORDS frame words each);
- the pending side is not newer than the done one (a task opened again after it was done);
- they are not two items of one list or table (siblings differ by design), and give the same
  numbers ("Phase 2" is not "Phase 3");
- both are in Latin script (the packaged model reads English), and no heuristic finding links
  them already or flags the pending side.
Its findings are `review`: they inform, they fail no run. Like the restatements (paraphrase),
only the packaged static model runs this: STATUS_NEAR was measured on it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Any

from memory_autopsy.embed.frames import frame_words
from memory_autopsy.embed.neighbours import TOP_K, cross_pairs
from memory_autopsy.embed.paraphrase import latin_script, same_numbers
from memory_autopsy.engine.context import Context, fact_body, observed_order, runs_of
from memory_autopsy.engine.status import PENDING, done_evidence, status_finding
from memory_autopsy.model import Fact, Finding, Severity

STATUS_NEAR = 0.65
MIN_WORDS = 3


def status_pairs(ctx: Context, facts: Sequence[Fact], vectors: Callable[[Sequence[Fact]], Any],
                 judged: set[frozenset[str]], flagged: set[str]) -> Iterator[Finding]:
    """status_conflict findings for pending facts among `facts` whose done evidence says it in
    other words; `flagged`: ids of facts a heuristic finding flags already."""
    by_store: dict[str, list[Fact]] = {}
    for fact in facts:
        if fact.status in PENDING and fact.id not in flagged or done_evidence(fact):
            by_store.setdefault(ctx.store_key(fact), []).append(fact)
    runs = runs_of(facts)
    for group in by_store.values():
        pending = [f for f in group if f.status in PENDING]
        done = [f for f in group if f.status not in PENDING]
        if not pending or not done:
            continue
        items = [*pending, *done]
        words = [frame_words(f, ctx.vocabulary) for f in items]
        near: dict[int, list[tuple[float, int]]] = {}
        for i, j, cosine in cross_pairs(words[:len(pending)], words[len(pending):], vectors(items), STATUS_NEAR):
            if len(words[i]) >= MIN_WORDS and len(words[len(pending) + j]) >= MIN_WORDS:
                near.setdefault(i, []).append((-cosine, j))
        best: dict[int, tuple[float, Fact]] = {}
        for i, scored in near.items():  # the most similar evidence first, TOP_K of it at most
            for minus, j in sorted(scored)[:TOP_K]:
                if _conflict(pending[i], done[j], judged, runs):
                    best[i] = (-minus, done[j])
                    break
        for i, (cosine, evidence) in sorted(best.items()):
            finding = status_finding(pending[i], evidence, "meaning")
            extra = dict(finding.extra)
            extra["cosine"] = round(cosine, 3)
            yield finding._replace(severity=Severity.REVIEW, confidence=cosine, layer="3",
                                   extra=tuple(sorted(extra.items())))


def _conflict(task: Fact, evidence: Fact, judged: set[frozenset[str]], runs: dict[int, int]) -> bool:
    if task.id == evidence.id or frozenset((task.id, evidence.id)) in judged:
        return False
    if observed_order(task, evidence) == 1:
        return False  # opened again after it was done
    if task.path == evidence.path and runs.get(task.order) == runs.get(evidence.order):
        return False  # items of one list or table
    body, other = fact_body(task), fact_body(evidence)
    return same_numbers(body, other) and latin_script(body) and latin_script(other)
