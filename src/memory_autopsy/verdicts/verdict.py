"""Verdicts: reliability capped by provenance, and the ranking that settles a conflict.

Reliability is min(wording weight, source-class ceiling, fidelity ceiling). Which claims
conflict is never decided here: the engine's findings say so (the same findings `scan`
reports), and this module only ranks the claims those findings tie together. Before anything
is compared, the provenance cap removes unclassified claims from a contested group when the
entity has a primary-source claim; then the later observation wins, then the higher source
class, then the higher capped reliability, then an explicit status verb, then the later
position in the sources.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

from memory_autopsy.dates import day_of
from memory_autopsy.model import Fact, Finding
from memory_autopsy.normalize import entity_form, normalize_claim
from memory_autopsy.vocabulary import STATUS_VERBS

CONFLICT_RULES = frozenset({"contradicted_explicit", "contradicted_implicit", "stale"})
HEDGE_RULES = frozenset({"likely_conflict"})
CLASS_RANK: Mapping[str, int] = MappingProxyType({"primary": 2, "secondary": 1, "unclassified": 0})

DEFAULT_CUE = 0.70
DEFAULT_CLASSES: Mapping[str, float] = MappingProxyType(
    {"primary": 1.0, "secondary": 0.5, "unclassified": 0.2}
)
DEFAULT_FIDELITY: Mapping[str, float] = MappingProxyType({"FULL": 1.0, "PARTIAL": 0.8, "RESIDUAL": 0.5})

WINNER, LOSER, CAPPED, HISTORY = "WINNER", "LOSER", "CAPPED", "HISTORY"


@dataclass(frozen=True, slots=True)
class Weights:
    """The reliability weights of cues, source classes and fidelities."""

    cues: Mapping[str, float]
    classes: Mapping[str, float]
    fidelity: Mapping[str, float]
    default_cue: float = DEFAULT_CUE

    @classmethod
    def build(cls, overrides: Mapping[str, float] | None = None) -> Weights:
        """Defaults overlaid with a flat table (`cues.verified`, `class.primary`, ...)."""
        cues, classes, bands = dict(STATUS_VERBS), dict(DEFAULT_CLASSES), dict(DEFAULT_FIDELITY)
        default_cue = DEFAULT_CUE
        for key, weight in (overrides or {}).items():
            group, _, name = key.partition(".")
            if group == "cues" and name == "default":
                default_cue = float(weight)
            elif group == "cues":
                cues[name.lower()] = float(weight)
            elif group == "class":
                classes[name.lower()] = float(weight)
            elif group == "fidelity":
                bands[name.upper()] = float(weight)
        return cls(MappingProxyType(cues), MappingProxyType(classes), MappingProxyType(bands), default_cue)

    def flat(self) -> Mapping[str, float]:
        table = {"cues.default": self.default_cue}
        table.update({f"cues.{k}": v for k, v in self.cues.items()})
        table.update({f"class.{k}": v for k, v in self.classes.items()})
        table.update({f"fidelity.{k}": v for k, v in self.fidelity.items()})
        return MappingProxyType(dict(sorted(table.items())))


def wording(fact: Fact, weights: Weights) -> tuple[float, str | None]:
    """The most cautious cue written in the claim (and which one), or the plain-claim weight."""
    forms, found_before = _cue_forms(weights.cues)
    asked = (fact.claim, fact.status_verb)
    found = found_before.get(asked)
    if found is None:
        text = f" {normalize_claim(fact.claim)} "
        found = [(w, cue) for form, w, cue in forms if form in text]
        if fact.status_verb and fact.status_verb.lower() in weights.cues:
            found.append((weights.cues[fact.status_verb.lower()], fact.status_verb.lower()))
        if len(found_before) >= MAX_WORDINGS:
            found_before.clear()
        found_before[asked] = found
    if not found:
        return weights.default_cue, None
    weight, cue = min(found)
    return weight, cue


MAX_WORDINGS = 65536
_FORMS: dict[int, tuple[Mapping[str, float], tuple[tuple[str, float, str], ...],
                        dict[tuple[str, str | None], list[tuple[float, str]]]]] = {}


def _cue_forms(cues: Mapping[str, float]) -> tuple[tuple[tuple[str, float, str], ...],
                                                   dict[tuple[str, str | None], list[tuple[float, str]]]]:
    """Each cue as a claim holds it (normalized, between spaces), with its weight, and the cues
    each claim already asked about was found to hold: made once per table, not once per cue per
    claim per call (a 100k store's `reconcile` asks three times a claim, and spent a fifth of
    its time normalizing the same twenty cues again)."""
    kept = _FORMS.get(id(cues))
    if kept is None or kept[0] is not cues:
        forms = tuple((f" {normalize_claim(cue)} ", w, cue) for cue, w in cues.items())
        kept = _FORMS[id(cues)] = (cues, forms, {})
        if len(_FORMS) > 8:  # tables come from rule files: a process sees few
            _FORMS.pop(next(iter(_FORMS)))
    return kept[1], kept[2]


def reliability(fact: Fact, weights: Weights) -> float:
    cue, _ = wording(fact, weights)
    ceiling = weights.classes.get(fact.source_class, weights.classes.get("unclassified", 0.2))
    band = weights.fidelity.get(fact.fidelity.value, 1.0)
    return round(min(cue, ceiling, band), 4)


@dataclass(frozen=True, slots=True)
class Judged:
    """One claim with its verdict; `by` names the claim that beat or capped it."""

    fact: Fact
    reliability: float
    verdict: str
    group: int | None = None
    by: str | None = None
    conflicts: tuple[tuple[str, str], ...] = ()

    @property
    def contested(self) -> bool:
        return self.group is not None


@dataclass(frozen=True, slots=True)
class Resolution:
    """Every fact's verdict, and how many contested groups were ranked."""

    judged: tuple[Judged, ...]
    groups: int


class _Union:
    def __init__(self) -> None:
        self.parent: dict[int, int] = {}

    def find(self, item: int) -> int:
        self.parent.setdefault(item, item)
        while self.parent[item] != item:
            self.parent[item] = self.parent[self.parent[item]]
            item = self.parent[item]
        return item

    def union(self, a: int, b: int) -> None:
        self.parent[self.find(b)] = self.find(a)


def edges(facts: Sequence[Fact], findings: Iterable[Finding]) -> list[tuple[str, Fact, Fact]]:
    """(rule, flagged, other) for every finding whose two sides are among `facts`."""
    index = {(f.path, f.line, f.id): f for f in facts}
    found: list[tuple[str, Fact, Fact]] = []
    for finding in findings:
        if not finding.fact_ids:
            continue
        flagged = index.get((finding.path, finding.line, finding.fact_ids[0]))
        for location in finding.related:
            other = index.get((location.path, location.line, location.fact_id))
            if flagged is not None and other is not None and other is not flagged:
                found.append((finding.rule, flagged, other))
    return found


def resolve(facts: Sequence[Fact], findings: Iterable[Finding], weights: Weights) -> Resolution:
    """Verdicts for `facts` given the engine's findings about them (history is never ranked)."""
    links = [(rule, a, b) for rule, a, b in edges(facts, findings) if a.active and b.active]
    groups, copies = _Union(), _Union()
    conflicts: dict[int, list[tuple[str, str]]] = {}
    contested: set[int] = set()
    for rule, a, b in links:
        if rule in CONFLICT_RULES | HEDGE_RULES:
            conflicts.setdefault(a.order, []).append((rule, b.id))
            conflicts.setdefault(b.order, []).append((rule, a.id))
        if rule in CONFLICT_RULES:
            groups.union(a.order, b.order)
            contested |= {a.order, b.order}
        elif rule == "duplicate" and entity_form(a.entity) == entity_form(b.entity):
            # A pasted block's claims may be about another entity ("gateway = kong" under two
            # headings): a copy shares a verdict only with the same claim about the same entity.
            groups.union(a.order, b.order)
            copies.union(a.order, b.order)
    members: dict[int, list[Fact]] = {}
    for fact in facts:
        members.setdefault(groups.find(fact.order), []).append(fact)
    primaries = _primaries(facts)
    verdicts: dict[int, tuple[str, int | None, str | None]] = {}
    number = 0
    for group in members.values():
        if not any(f.order in contested for f in group) or len(group) < 2:
            continue
        number += 1
        verdicts.update(_rank_group(group, number, primaries, _Copies(copies), weights))
    judged = tuple(
        _judged(f, verdicts.get(f.order), conflicts.get(f.order, []), weights) for f in facts
    )
    return Resolution(judged, number)


def _judged(
    fact: Fact, verdict: tuple[str, int | None, str | None] | None,
    conflicts: list[tuple[str, str]], weights: Weights,
) -> Judged:
    name, group, by = verdict or ((WINNER if fact.active else HISTORY), None, None)
    return Judged(fact, reliability(fact, weights), name, group, by, tuple(dict.fromkeys(conflicts)))


def _primaries(facts: Sequence[Fact]) -> dict[str, Fact]:
    found: dict[str, Fact] = {}
    for fact in facts:
        if fact.active and fact.source_class == "primary":
            found.setdefault(entity_form(fact.entity), fact)
    return found


@dataclass(frozen=True, slots=True)
class _Copies:
    """Exact copies of a claim share its verdict."""

    classes: _Union

    def same(self, a: Fact, b: Fact) -> bool:
        return self.classes.find(a.order) == self.classes.find(b.order)


def _rank_group(
    group: list[Fact], number: int, primaries: Mapping[str, Fact], copies: _Copies, weights: Weights
) -> dict[int, tuple[str, int | None, str | None]]:
    # Every copy competes with its own date, as in the engine's slot layer (a re-observation
    # of a claim is newer evidence for it); copies then share the verdict of their claim.
    primary = primaries.get(entity_form(group[0].entity))
    capped = [f for f in group if primary is not None and f.source_class == "unclassified"]
    pool = [f for f in group if f not in capped] or list(group)
    capped = [f for f in capped if f not in pool]
    winner = max(pool, key=lambda f: rank_key(f, weights))
    in_group_primary = next((f for f in group if f.source_class == "primary"), primary)
    result: dict[int, tuple[str, int | None, str | None]] = {}
    for fact in group:
        if fact in capped:
            result[fact.order] = (CAPPED, number, in_group_primary.id if in_group_primary else None)
        elif fact is winner or _agrees(fact, winner, copies):
            result[fact.order] = (WINNER, number, None)
        else:
            result[fact.order] = (LOSER, number, winner.id)
    return result


def _agrees(fact: Fact, winner: Fact, copies: _Copies) -> bool:
    if copies.same(fact, winner):
        return True
    return bool(fact.slot) and fact.slot == winner.slot and (
        normalize_claim(fact.value) == normalize_claim(winner.value)
    )


def rank_key(fact: Fact, weights: Weights) -> tuple[str, str, int, float, bool, int]:
    """A total order (so a ranking never depends on input order); larger ranks higher.

    Undated claims rank below dated ones: with no observation they can never be "later".
    Times break a same-day tie only when both sides carry one, as in the engine's ordering.
    """
    stamp = fact.observed_at or ""
    return (
        day_of(stamp) or "",
        stamp if len(stamp) > 10 else "",
        CLASS_RANK.get(fact.source_class, 0),
        reliability(fact, weights),
        fact.status_verb is not None,
        fact.order,
    )


CRITERIA = ("later observation", "later observation", "higher source class", "higher reliability",
            "explicit status verb", "later in the sources")


def deciding(winner: Fact, loser: Fact, weights: Weights) -> str:
    """Which ranking criterion put `winner` above `loser` (for the explanations)."""
    for label, left, right in zip(CRITERIA, rank_key(winner, weights), rank_key(loser, weights)):
        if left != right:
            return label
    return "tie"
