"""The as-of view as markdown tables (per entity) or as one JSON object."""

from __future__ import annotations

import json
from typing import Any

from memory_autopsy import __version__
from memory_autopsy.engine.context import fact_body
from memory_autopsy.formatters.visible import json_safe, visible
from memory_autopsy.model import Fact
from memory_autopsy.verdicts.asof import AsOfView
from memory_autopsy.verdicts.verdict import CAPPED, LOSER, WINNER, Judged

SHOWN = {WINNER: "CURRENT", LOSER: "LOSER", CAPPED: "CAPPED"}


def cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def slot_and_value(fact: Fact) -> tuple[str, str]:
    if fact.slot and fact.value:
        return fact.slot, fact.value
    return "—", fact_body(fact)


def format_text(view: AsOfView) -> str:
    lines = [f"# memory-autopsy as-of {view.day}", ""]
    lines.append(
        f"Store: {', '.join(view.stores) or '—'} | facts read: {view.facts_read} | "
        f"in effect: {len(view.beliefs)} | entities: {len(view.entities)}"
    )
    lines += [f"Conflicts resolved at this date: {view.conflicts_resolved}", ""]
    by_id = {j.fact.id: j.fact for j in view.beliefs}
    by_entity: dict[str, list[Judged]] = {}  # one pass: a pass over every belief per entity was quadratic
    for judged in view.beliefs:
        by_entity.setdefault(judged.fact.entity, []).append(judged)
    for entity in sorted(by_entity, key=str.casefold):
        lines += _entity_block(entity, by_entity[entity], by_id)
    lines += _outside(view) + _unanchored(view) + _aliases(view) + _problems(view)
    return "\n".join(visible(line) for line in lines).rstrip() + "\n"


def _entity_block(entity: str, judged: list[Judged], by_id: dict[str, Fact]) -> list[str]:
    rows = sorted(judged, key=lambda j: (slot_and_value(j.fact)[0], j.fact.observed_at or "", j.fact.order))
    lines = [f"## {entity}", "", "| Slot | Value | Observed | Class | Reliability | Verdict |",
             "|---|---|---|---|---|---|"]
    for item in rows:
        slot, value = slot_and_value(item.fact)
        lines.append(
            f"| {cell(slot)} | {cell(value)} | {item.fact.observed_at or '—'} | "
            f"{item.fact.source_class} | {item.reliability:.2f} | {SHOWN[item.verdict]} |"
        )
    notes = [_note(item, by_id) for item in rows]
    lines.append("")
    if any(notes):
        lines += [n for n in notes if n] + [""]
    return lines


def _note(item: Judged, by_id: dict[str, Fact]) -> str:
    slot, value = slot_and_value(item.fact)
    head = f"{slot} = {value!r} (id `{item.fact.id}`)"
    if item.verdict == CAPPED:
        return (f"- **CAPPED** {head} — unclassified claim, removed from the ranking by the "
                f"primary-source fact `{item.by}`")
    if item.verdict == LOSER:
        winner = by_id.get(item.by or "")
        why = f" ({winner.observed_at or 'undated'})" if winner else ""
        return f"- **LOSER** {head} — outranked by `{item.by}`{why}"
    hedges = [other for rule, other in item.conflicts if rule == "likely_conflict"]
    if hedges and not item.contested:
        listed = ", ".join(f"`{h}`" for h in hedges)
        return f"- **REVIEW** {head} — likely_conflict with {listed}: a hedge, left unresolved"
    return ""


def _outside(view: AsOfView) -> list[str]:
    if not view.out_of_window:
        return []
    lines = [f"## Not in effect on {view.day}", "", "| Entity | Value | Reason |", "|---|---|---|"]
    for item in view.out_of_window:
        lines.append(f"| {cell(item.fact.entity)} | {cell(slot_and_value(item.fact)[1])} | {item.reason} |")
    return lines + [""]


def _unanchored(view: AsOfView) -> list[str]:
    if not view.unanchored:
        return []
    lines = ["## Unanchored (no date, no validity window)", ""]
    for fact in view.unanchored:
        lines.append(f"- {fact.entity}: {slot_and_value(fact)[1]!r} (id `{fact.id}`)")
    return lines + [""]


def _aliases(view: AsOfView) -> list[str]:
    if not view.unresolved_aliases:
        return []
    lines = ["## Unresolved aliases (not merged)", ""]
    for a, b in view.unresolved_aliases:
        lines.append(f"- {a!r} and {b!r} look alike — answered separately; confirm whether they are one entity")
    return lines + [""]


def _problems(view: AsOfView) -> list[str]:
    if not view.problems:
        return []
    lines = ["## Unreadable input", ""]
    lines += [f"- {p.path}:{p.line}: {p.message}" for p in view.problems]
    return lines + [""]


def located(fact: Fact) -> dict[str, Any]:
    return {**fact.record(), "path": fact.path, "line": fact.line}


def format_json(view: AsOfView, entity: str | None = None) -> str:
    payload = {
        "tool": "memory-autopsy",
        "version": __version__,
        "command": "as-of",
        "as_of": view.day,
        "entity": entity,
        "stores": list(view.stores),
        "facts_read": view.facts_read,
        "in_effect": len(view.beliefs),
        "conflicts_resolved": view.conflicts_resolved,
        "beliefs": [_belief(j) for j in view.beliefs],
        "out_of_window": [
            {**located(o.fact), "reason": o.reason, "boundary": o.boundary} for o in view.out_of_window
        ],
        "unanchored": [located(f) for f in view.unanchored],
        "unresolved_aliases": [{"names": [a, b]} for a, b in view.unresolved_aliases],
        "problems": [{"path": p.path, "line": p.line, "message": p.message} for p in view.problems],
    }
    return json_safe(json.dumps(payload, indent=2, ensure_ascii=False)) + "\n"


def _belief(item: Judged) -> dict[str, Any]:
    return {
        **located(item.fact),
        "reliability": item.reliability,
        "verdict": SHOWN[item.verdict],
        "group": item.group,
        "by": item.by,
        "conflicts": [{"rule": rule, "fact_id": other} for rule, other in item.conflicts],
    }
