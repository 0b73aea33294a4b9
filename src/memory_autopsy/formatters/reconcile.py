"""The reconcile matrix: every claim of every entity with its verdict, and the canonical claim."""

from __future__ import annotations

import json
from typing import Any

from memory_autopsy import __version__
from memory_autopsy.engine.context import fact_body
from memory_autopsy.formatters.asof import cell, located
from memory_autopsy.formatters.visible import json_safe, visible
from memory_autopsy.model import Fact, Report, Store
from memory_autopsy.verdicts.verdict import (
    CAPPED,
    LOSER,
    WINNER,
    Judged,
    Weights,
    deciding,
    rank_key,
    resolve,
)


def matrix(report: Report, weights: Weights) -> dict[str, list[Judged]]:
    """Entity -> judged claims, entities sorted by name, claims in source order."""
    judged = resolve(report.facts, report.findings, weights).judged
    entities: dict[str, list[Judged]] = {}
    for item in judged:
        entities.setdefault(item.fact.entity, []).append(item)
    return {name: entities[name] for name in sorted(entities, key=str.casefold)}


def canonical(claims: list[Judged], weights: Weights) -> Judged | None:
    pool = [j for j in claims if j.verdict == WINNER] or [j for j in claims if j.verdict != CAPPED]
    if not pool:
        return None
    return max(pool, key=lambda j: rank_key(j.fact, weights))


def format_text(store: Store, report: Report, weights: Weights) -> str:
    table = matrix(report, weights)
    lines = ["# memory-autopsy reconcile", ""]
    lines += [f"Sources: {len(store.paths)} | Entities: {len(table)} | Claims considered: {len(report.facts)}", ""]
    by_id = {f.id: f for f in report.facts}
    for entity, claims in table.items():
        lines += [f"## {entity}", "", "| Source | Claim | Observed | Status | Class | Reliability | Verdict |",
                  "|---|---|---|---|---|---|---|"]
        lines += [_row(j) for j in claims] + [""]
        notes = [_note(j, by_id, weights) for j in claims]
        lines += [n for n in notes if n] + ([""] if any(notes) else [])
        best = canonical(claims, weights)
        if best is not None:
            lines += [_canonical_line(best), ""]
    return "\n".join(visible(line) for line in lines).rstrip() + "\n"


def _row(item: Judged) -> str:
    fact = item.fact
    return (
        f"| {fact.path}:{fact.line} | {cell(fact_body(fact))} | {fact.observed_at or '—'} | "
        f"{fact.status_verb or '—'} | {fact.source_class} | {item.reliability:.2f} | {item.verdict} |"
    )


def _note(item: Judged, by_id: dict[str, Fact], weights: Weights) -> str:
    where = f"`{item.fact.path}:{item.fact.line}` {fact_body(item.fact)!r}"
    if item.verdict == CAPPED:
        return (f"- **CAPPED** {where} — unclassified claim, removed from the ranking by the "
                f"primary-source fact `{item.by}`")
    if item.verdict == LOSER:
        winner = by_id.get(item.by or "")
        if winner is None:
            return f"- **LOSER** {where} — outranked by `{item.by}`"
        return (f"- **LOSER** {where} — outranked by `{item.by}` ({winner.path}:{winner.line}; "
                f"{deciding(winner, item.fact, weights)})")
    return ""


def _canonical_line(item: Judged) -> str:
    fact = item.fact
    return (
        f"**Canonical**: {fact_body(fact)} *({_observed(fact)} | "
        f"class {fact.source_class} | reliability {item.reliability:.2f})*"
    )


def _observed(fact: Fact) -> str:
    return f"observed {fact.observed_at}" if fact.observed_at else "undated"


def format_json(store: Store, report: Report, weights: Weights) -> str:
    entities = []
    for entity, claims in matrix(report, weights).items():
        best = canonical(claims, weights)
        entities.append({
            "entity": entity,
            "canonical": best.fact.id if best is not None else None,
            "claims": [_claim(j) for j in claims],
        })
    payload = {
        "tool": "memory-autopsy",
        "version": __version__,
        "command": "reconcile",
        "sources": list(store.paths),
        "claims_considered": len(report.facts),
        "weights": dict(weights.flat()),
        "entities": entities,
    }
    return json_safe(json.dumps(payload, indent=2, ensure_ascii=False)) + "\n"


def _claim(item: Judged) -> dict[str, Any]:
    return {
        **located(item.fact),
        "reliability": item.reliability,
        "verdict": item.verdict,
        "by": item.by,
        "conflicts": [{"rule": rule, "fact_id": other} for rule, other in item.conflicts],
    }
