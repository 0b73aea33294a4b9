"""Building findings: severity from the catalogue, content fingerprints, related sides."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from memory_autopsy.engine.context import fact_body
from memory_autopsy.model import Fact, Finding, Location
from memory_autopsy.normalize import entity_form, normalize_claim, short_hash
from memory_autopsy.rules import BY_ID

FINGERPRINT_VERSION = "v1"


def fact_key(fact: Fact) -> str:
    """A fact's identity in fingerprints: its content, never its line or the working directory.
    The reader normalized the body already (`Context.norm_body` reads it the same way)."""
    return fact.norm or normalize_claim(fact_body(fact))


def fingerprint(rule: str, entity: str, parts: Iterable[str]) -> str:
    return short_hash(FINGERPRINT_VERSION, rule, entity_form(entity), *sorted(parts))


def fact_finding(
    rule: str,
    fact: Fact,
    message: str,
    *,
    related: Sequence[Fact] = (),
    confidence: float = 1.0,
    layer: str | None = None,
    extra: dict[str, Any] | None = None,
) -> Finding:
    spec = BY_ID[rule]
    parts = [fact_key(fact)] + [fact_key(other) for other in related]
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
