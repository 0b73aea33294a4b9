"""Building findings: severity from the catalogue, content fingerprints, related sides."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from memory_autopsy.engine.context import fact_body, observed_order
from memory_autopsy.model import Fact, Finding, Location
from memory_autopsy.normalize import entity_form, normalize_claim, short_hash
from memory_autopsy.rules import BY_ID

# v2: the flagged side leads the identity and each related side says whether it is older or
# newer; v1 sorted the sides together, so a pull request that swapped two dates (the stale
# value made current) kept a baselined fingerprint
FINGERPRINT_VERSION = "v2"
_SIDE = {-1: "newer", 1: "older"}  # what the related side is, from observed_order(flagged, it)


def fact_key(fact: Fact) -> str:
    """A fact's identity in fingerprints: its content, never its line or the working directory.
    The reader normalized the body already (`Context.norm_body` reads it the same way)."""
    return fact.norm or normalize_claim(fact_body(fact))


def finding_paths(finding: Finding) -> tuple[str, ...]:
    return (finding.path, *(r.path for r in finding.related))


def touches_changed(finding: Finding, changed: frozenset[str]) -> bool:
    """Run-level findings (no path) always concern the run; others need a changed side (what
    `ci` keeps of a run on changed files, and what a focused layer keeps of a full pass)."""
    return not finding.path or any(p in changed for p in finding_paths(finding))


def fingerprint(rule: str, entity: str, parts: Iterable[str]) -> str:
    """The hash of a finding's identity; `parts` in the order given (the callers order them)."""
    return short_hash(FINGERPRINT_VERSION, rule, entity_form(entity), *parts)


def sides(fact: Fact, related: Sequence[Fact], *, symmetric: bool = False) -> list[str]:
    """The identity of a finding's facts: the rule's verdict, never their lines.

    When dates order the sides, the rule decided which is current: the flagged fact leads, and
    each related fact is marked newer or older, so the same claims with their dates swapped
    are another finding. With no date between them (or `symmetric`: a copy and its original,
    where the later line is flagged) the rule decided nothing a move could change, and the
    sides are one sorted set, so moving lines keeps the fingerprint."""
    order = [observed_order(fact, other) for other in related]
    if symmetric or not any(order):
        return sorted([fact_key(fact), *map(fact_key, related)])
    marked = (f"{_SIDE.get(o or 0, 'unordered')}\x1e{fact_key(other)}" for o, other in zip(order, related))
    return ["flagged\x1e" + fact_key(fact), *sorted(marked)]


def fact_finding(
    rule: str,
    fact: Fact,
    message: str,
    *,
    related: Sequence[Fact] = (),
    confidence: float = 1.0,
    layer: str | None = None,
    extra: dict[str, Any] | None = None,
    symmetric: bool = False,
) -> Finding:
    """A finding on `fact`. `symmetric`: the rule names no side current (a later copy of a
    claim, two values neither of which is newer), so which side is flagged is no part of its
    identity (`sides`)."""
    spec = BY_ID[rule]
    parts = sides(fact, related, symmetric=symmetric)
    if fact.obs >= 0:  # a graph line holds many observations: name the one flagged
        message = f"{message} [obs {fact.obs}: {quote(fact.claim)!r}]"
    return Finding(
        rule=rule,
        severity=spec.severity,
        layer=layer or spec.layer,
        path=fact.path,
        line=fact.line,
        entity=fact.entity,
        fidelity=fact.fidelity.value,
        message=message,
        confidence=round(confidence, 3),
        fact_ids=(fact.id,),
        related=tuple(Location(o.path, o.line, o.id, o.obs) for o in related),
        fingerprint=fingerprint(rule, fact.entity, parts),
        extra=tuple(sorted((extra or {}).items())),
        obs=fact.obs,
    )


def plain_finding(
    rule: str, path: str, line: int, entity: str, message: str, identity: Sequence[str],
    *, fact_ids: Sequence[str] = (), related: Sequence[Location] = (), fidelity: str = "",
) -> Finding:
    spec = BY_ID[rule]
    return Finding(
        rule=rule, severity=spec.severity, layer=spec.layer, path=path, line=line, entity=entity,
        fidelity=fidelity, message=message, confidence=1.0, fact_ids=tuple(fact_ids),
        related=tuple(related), fingerprint=fingerprint(rule, entity, identity),
    )


def quote(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"
