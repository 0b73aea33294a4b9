"""The judges: what a comparison finding is worth, from how it was found.

The layers propose pairs generously; a judge then decides how much a pair proves. Each finding
of a comparison rule is described by a few named features of its sides:

- `order`: `ordered` when dates say which side is newer, else `unordered`;
- `place`: `same_entry` (one dated entry or one graph entity's observations), `same_file`,
  `other_file`;
- `evidence`: `records` when every side is an explicit record (fidelity FULL), else `prose`;
- and, for a rule that matches in more than one way, how it matched (`how`: a status task by
  the `same` words, by `words` of the task or by its `title`; a near duplicate by `letters` or
  by `words`).

`lexicon/judges.json` holds, for each description and its coarser levels (`keys_of`), how many
of its findings were true and false on the dev part of the real-memory eval
(`eval/calibrate.py` counts them; nothing of the test part). The slot layer's findings are one
family whatever their rule: a slot read with two values in prose is the same evidence whether
dates ordered it (contradicted_implicit) or not (likely_conflict). A finding keeps its rule's
severity only where the most specific description with at least `min_support` findings was
right at least `min_precision` of the time; otherwise it is `review`: shown, never failing a
default run. Support is counted in repositories too: a description decides only when its
findings came from at least `min_repositories` dev repositories, since the findings of one
repository share its habits of writing and measure one store, not the rule (the eval is split
by repository for the same reason); a description seen in fewer is passed over for a coarser one. A description the dev part never saw keeps the rule's severity for explicit
records (what the synthetic eval measures) and is `review` for prose, which proves nothing
by itself. A severity the rule file sets for a rule is applied after, and wins.

Counts on the dev part as the engine reads it now are fitted: a false alarm read there was
fixed as a class, and its store then counts the judge right. So a prose description is also
judged at first sight (`first_sight` in judges.json): each addition to the eval, committed
before any change it measured, scanned by the engine of that commit (eval/first_sight.py). A
prose description that keeps its rule's severity on the dev counts keeps it only if the same
description was right at least `min_precision` of the time at first sight too. First sight that
saw too few of its findings to decide (the same support a verdict needs) leaves the verdict to
the dev counts; a coarser description's first sight does not judge a finer one, as the dev
counts do not.

Findings of the grounding layer (engine/grounding.py) have no second claim: their other side is
what the repository holds. Their evidence is `repository`, and their description is the rule
and how the repository answered (`how`: a missing path git lists `nowhere`, under `one` other
folder, under `several`, or `moved` by a rename; a version against a `manifest` or the
project's `own_version`; a script no `npm`, `make` or `just` file defines; a task open for a
file that is `done_elsewhere`): rule/how/repository, then rule/repository. Their counts come
from the dev part of the grounding eval (eval/grounding), and they are judged as prose is: a
description measured right at least `min_precision` of the time keeps the rule's severity,
any other is `review`.

Before judging, two clean-ups of the pairs themselves: a pair whose sides lie in two memory
stores is dropped unless the rule file groups the stores (engine.stores), and a pair reported
twice in the same words at the same places (two cells of one table row) is reported once.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import NamedTuple

from memory_autopsy.engine.context import observed_order
from memory_autopsy.engine.slots import SLOT
from memory_autopsy.engine.stores import Stores
from memory_autopsy.model import Fact, Fidelity, Finding, Severity

# The rules whose findings compare claims: their sides must share a store.
PAIR_RULES = frozenset({
    "duplicate", "near_duplicate", "contradicted_explicit", "contradicted_implicit", "likely_conflict",
    "stale", "status_conflict", "numeric_drift",
})
# Of those, the ones a judge grades: the rest are informational or for review already.
JUDGED = frozenset({
    "near_duplicate", "contradicted_explicit", "contradicted_implicit", "stale", "status_conflict",
    "numeric_drift",
})


REPOSITORY = "repository"  # the evidence of a grounding finding: what the repository holds
PROSE = "prose"  # the evidence of a pair whose sides are not all explicit records

JUDGES_FILE = Path(__file__).resolve().parent.parent / "lexicon" / "judges.json"


Counts = Mapping[str, tuple[int, int, int]]


def as_counts(table: Mapping[str, Sequence[int]]) -> dict[str, tuple[int, int, int]]:
    """A counts table as judges.json or eval/calibrate.py holds it ([true, false, repositories])."""
    return {key: (int(tp), int(fp), int(repositories)) for key, (tp, fp, repositories) in table.items()}


class Judges(NamedTuple):
    # description -> (true, false) findings on the dev part, and the repositories they came from
    counts: Counts
    min_precision: float
    min_support: int
    min_repositories: int = 1
    # the same, at first sight: each addition's dev stores as the engine of its commit read them
    first_sight: Counts = {}

    def verdict(self, keys: Iterable[str], records: bool) -> tuple[str, bool]:
        """The description that decides and whether it keeps the rule's severity."""
        key, keeps = self._decide(self.counts, tuple(keys), records)
        if keeps and key.endswith(f"/{PROSE}"):
            keeps = self._decide(self.first_sight, (key,), True)[1]
        return key, keeps

    def _decide(self, counts: Counts, keys: tuple[str, ...], unseen: bool) -> tuple[str, bool]:
        for key in keys:
            tp, fp, repositories = counts.get(key, (0, 0, 0))
            if tp + fp >= self.min_support and repositories >= self.min_repositories:
                return key, tp >= self.min_precision * (tp + fp)
        return "", unseen


@lru_cache(maxsize=1)
def default_judges() -> Judges:
    data = json.loads(JUDGES_FILE.read_text(encoding="utf-8"))
    return Judges(as_counts(data["counts"]), float(data["min_precision"]), int(data["min_support"]),
                  int(data["min_repositories"]), as_counts(data.get("first_sight", {})))


def describe(finding: Finding, fact: Fact, related: list[Fact]) -> tuple[str, str, str]:
    """(order, place, evidence) of a finding whose flagged fact is `fact`."""
    ordered = any(observed_order(fact, other) is not None for other in related)
    if any(o.path == fact.path and fact.entry and o.entry == fact.entry for o in related):
        place = "same_entry"
    elif all(o.path == fact.path for o in related):
        place = "same_file"
    else:
        place = "other_file"
    records = fact.fidelity is Fidelity.FULL and all(o.fidelity is Fidelity.FULL for o in related)
    return ("ordered" if ordered else "unordered"), place, ("records" if records else PROSE)


def keys_of(rule: str, how: str, order: str, place: str, evidence: str) -> tuple[str, ...]:
    """From the most specific description to the coarsest, never across evidence (records are
    not judged by how prose fared): rule[/how]/order/place/evidence, rule[/how]/order/evidence,
    rule[/how]/evidence, rule/evidence. Order comes before place: whether dates say which side
    is newer is what a pair proves most by. Findings of the slot layer are one family, `slot`,
    whatever their rule."""
    if how == SLOT:
        rule, how = SLOT, ""
    named = f"{rule}/{how}" if how else rule
    return f"{named}/{order}/{place}/{evidence}", f"{named}/{order}/{evidence}", f"{named}/{evidence}", f"{rule}/{evidence}"


def grounding_keys(rule: str, how: str) -> tuple[str, str]:
    """A grounding finding's description and its coarser level: rule/how/repository, rule/repository."""
    return f"{rule}/{how}/{REPOSITORY}", f"{rule}/{REPOSITORY}"


def judge(found: list[Finding], facts: Iterable[Fact], stores: Stores) -> list[Finding]:
    """The findings with cross-store pairs dropped, repeats folded and severities judged."""
    judges = default_judges()
    # A fact's id is its content's: a copy in another file has the same id, so a side is found by
    # its place as well.
    wanted = {i for f in found if f.rule in PAIR_RULES for i in (*f.fact_ids[:1], *(r.fact_id for r in f.related))}
    by_place = {(fact.path, fact.line, fact.id, fact.obs): fact for fact in facts if fact.id in wanted} if wanted else {}
    out: list[Finding] = []
    seen: set[tuple[object, ...]] = set()
    for finding in found:
        if finding.get("evidence") == REPOSITORY:
            out.append(_graded_keys(finding, judges, grounding_keys(finding.rule, str(finding.get("how") or "")), False))
            continue
        if finding.rule not in PAIR_RULES or not finding.fact_ids:
            out.append(finding)
            continue
        fact = by_place.get((finding.path, finding.line, finding.fact_ids[0], finding.obs))
        related = [by_place[r] for r in finding.related if r in by_place]
        if fact is None or not related:
            out.append(finding)
            continue
        if not all(stores.together(fact, other) for other in related):
            continue
        place_key = (finding.rule, finding.path, finding.line, finding.obs, finding.message,
                     tuple((r.path, r.line, r.obs) for r in finding.related))
        if place_key in seen:
            continue
        seen.add(place_key)
        if finding.rule in JUDGED or finding.get("how") == SLOT:
            finding = _graded(finding, judges, describe(finding, fact, related))
        out.append(finding)
    return out


def _graded(finding: Finding, judges: Judges, description: tuple[str, str, str]) -> Finding:
    keys = keys_of(finding.rule, str(finding.get("how") or ""), *description)
    return _graded_keys(finding, judges, keys, description[2] == "records")


def _graded_keys(finding: Finding, judges: Judges, keys: tuple[str, ...], records: bool) -> Finding:
    _, keeps = judges.verdict(keys, records)
    extra = dict(finding.extra)
    extra["judge"] = keys[0]
    severity = finding.severity
    if not keeps and severity.rank > Severity.REVIEW.rank:
        severity = Severity.REVIEW
    return finding._replace(severity=severity, extra=tuple(sorted(extra.items())))
