"""`why ID` / `why FILE:LINE`: one fact's provenance, what corroborates it, contradicts it and
supersedes it."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from memory_autopsy import __version__, lazyre
from memory_autopsy.engine.context import fact_body
from memory_autopsy.errors import UsageError
from memory_autopsy.model import Fact, Finding, Report
from memory_autopsy.normalize import entity_form, normalize_claim
from memory_autopsy.verdicts.verdict import CONFLICT_RULES, HEDGE_RULES, Weights, reliability
from memory_autopsy.vocabulary import DEFAULT_VOCABULARY, Vocabulary

ORDERED = CONFLICT_RULES  # flagged side is the older one unless the finding is layer 2c


@dataclass(frozen=True, slots=True)
class Link:
    """Another fact and how it bears on the one explained."""

    fact: Fact
    why: str


@dataclass(frozen=True, slots=True)
class Explanation:
    """Why a fact stands as it does: what corroborates, contradicts or supersedes it."""

    fact: Fact
    reliability: float
    same_id: tuple[Fact, ...]
    corroborated_by: tuple[Link, ...]
    contradicted_by: tuple[Link, ...]
    superseded_by: tuple[Link, ...]
    supersedes: tuple[Link, ...]
    # every finding that names the fact, on either side, with the side it is on ("flagged": the
    # finding's own location; "related": the other side)
    findings: tuple[tuple[Finding, str], ...] = ()


def find_fact(wanted: str, facts: tuple[Fact, ...]) -> list[Fact]:
    """Facts with this id, or with this unique id prefix (at least 4 characters)."""
    key = wanted.strip().lower()
    exact = [f for f in facts if f.id.lower() == key]
    if exact:
        return exact
    prefixed = [f for f in facts if len(key) >= 4 and f.id.lower().startswith(key)]
    if len({f.id for f in prefixed}) > 1:
        listed = ", ".join(sorted({f.id for f in prefixed}))
        raise UsageError(f"why: id prefix {wanted!r} is ambiguous: {listed}")
    if not prefixed:
        raise UsageError(f"why: no fact with id {wanted!r} in the given stores "
                         "(ids are printed by `scan --json` and `as-of`)")
    return prefixed


_LOCATION = lazyre.compile(r"^(?P<path>.+):(?P<line>\d+)(?:#obs-(?P<obs>\d+))?$")


def parse_location(text: str) -> tuple[str, int, int] | None:
    """`path:line` (or `path:line#obs-N`, as the findings print it) as (path, line, obs)."""
    match = _LOCATION.match(text.strip())
    if match is None or int(match["line"]) < 1:
        return None
    return match["path"], int(match["line"]), int(match["obs"]) if match["obs"] else -1


def facts_at(path: str, line: int, obs: int, facts: Sequence[Fact], headings: Sequence[Fact] = ()) -> list[Fact]:
    """The facts read from that line: those starting on it, else a heading's claim on it (a
    status conflict may flag one), else the item spanning it."""
    mine = [f for f in facts if f.path == path and (obs < 0 or f.obs == obs)]
    exact = [f for f in mine if f.line == line] or [h for h in headings if h.path == path and h.line == line]
    if exact:
        return exact
    spanning = [f for f in mine if f.line <= line <= f.last_line]
    if spanning:
        return spanning
    near = sorted({f.line for f in mine}, key=lambda n: (abs(n - line), n))[:3]
    hint = f" (facts nearby: lines {', '.join(map(str, sorted(near)))})" if near else ""
    raise UsageError(f"why: no fact on {path}:{line}{'#obs-' + str(obs) if obs >= 0 else ''}{hint}")


def explain(
    wanted: str, report: Report, weights: Weights, vocabulary: Vocabulary = DEFAULT_VOCABULARY
) -> Explanation:
    matches = find_fact(wanted, report.facts)
    return explain_fact(matches[0], report, weights, vocabulary, tuple(matches[1:]))


def explain_fact(
    fact: Fact, report: Report, weights: Weights, vocabulary: Vocabulary = DEFAULT_VOCABULARY,
    same_id: tuple[Fact, ...] = (), headings: Sequence[Fact] = (),
) -> Explanation:
    """What the report says of the fact; `headings`: the store's heading claims, which a status
    conflict may name as a side."""
    index = {(f.path, f.line, f.id): f for f in (*report.facts, *headings)}
    contradicted: list[Link] = []
    superseded: list[Link] = []
    supersedes: list[Link] = []
    for finding, role, other in _pairings(fact, report.findings, index):
        if finding.rule not in CONFLICT_RULES | HEDGE_RULES:
            continue
        contradicted.append(Link(other, f"[{finding.rule}] {finding.message}"))
        if finding.rule in ORDERED and finding.layer != "2c":
            target = superseded if role == "flagged" else supersedes
            target.append(Link(other, f"[{finding.rule}] newer observation ({other.observed_at or 'undated'})"
                               if role == "flagged" else f"[{finding.rule}] older claim it outdates"))
    if fact.valid_to:
        superseded.insert(0, Link(fact, f"valid_to {fact.valid_to}: the record itself is resolved history"))
    return Explanation(
        fact=fact,
        reliability=reliability(fact, weights),
        same_id=same_id,
        corroborated_by=tuple(_corroborating(fact, report.facts, vocabulary)),
        contradicted_by=tuple(contradicted),
        superseded_by=tuple(superseded),
        supersedes=tuple(supersedes),
        findings=tuple(_naming(fact, report.findings, index)),
    )


def _naming(fact: Fact, findings: tuple[Finding, ...], index: dict[tuple[str, int, str], Fact]
            ) -> Iterator[tuple[Finding, str]]:
    """The findings of any rule that name the fact: flagged on it, or with it as another side."""
    for finding in findings:
        if finding.fact_ids and index.get((finding.path, finding.line, finding.fact_ids[0])) is fact:
            yield finding, "flagged"
        elif any(index.get((r.path, r.line, r.fact_id)) is fact for r in finding.related if r.fact_id):
            yield finding, "related"


ACCEPT = ("accept it: `memory-autopsy baseline` records it (commit the file), or "
          "`<!-- memory-autopsy: ignore {rule} -->` on the line above the flagged fact")


def _finding_lines(finding: Finding, role: str) -> list[str]:
    from memory_autopsy.rules import BY_ID

    rule = BY_ID.get(finding.rule)
    code = f" {rule.code}" if rule else ""
    here = "flagged here" if role == "flagged" else f"flagged at {finding.path}:{finding.line}, this fact is its other side"
    others = [f"{r.path}:{r.line}" for r in finding.related]
    lines = [f"- **{finding.rule}**{code} ({finding.severity.value}; {here}): {finding.message}"]
    if others:
        lines.append(f"  - other side: {', '.join(others)}")
    if rule:
        lines.append(f"  - the rule: {rule.summary} (`memory-autopsy rules {finding.rule}`)")
    fix = ("keep one copy and drop the other" if finding.rule in ("duplicate", "near_duplicate")
           else "make the sides agree (edit or drop the one that is wrong)" if others
           else "edit or drop the line as the message says")
    lines.append(f"  - fix: {fix}; " + ACCEPT.format(rule=finding.rule))
    return lines


def _pairings(
    fact: Fact, findings: tuple[Finding, ...], index: dict[tuple[str, int, str], Fact]
) -> Iterator[tuple[Finding, str, Fact]]:
    for finding in findings:
        flagged = index.get((finding.path, finding.line, finding.fact_ids[0])) if finding.fact_ids else None
        others = [index.get((r.path, r.line, r.fact_id)) for r in finding.related]
        if flagged is fact:
            yield from ((finding, "flagged", o) for o in others if o is not None)
        elif flagged is not None and any(o is fact for o in others):
            yield finding, "related", flagged


def _slot(fact: Fact, vocabulary: Vocabulary) -> str:
    slot = fact.slot.strip().lower().replace(" ", "_")
    return vocabulary.slot_aliases.get(slot, slot)


def _corroborating(fact: Fact, facts: tuple[Fact, ...], vocabulary: Vocabulary) -> list[Link]:
    form, body = entity_form(fact.entity), normalize_claim(fact_body(fact))
    value, slot = normalize_claim(fact.value), _slot(fact, vocabulary)
    found = []
    for other in facts:
        if other is fact or entity_form(other.entity) != form:
            continue
        if normalize_claim(fact_body(other)) == body:
            found.append(Link(other, "same claim"))
        elif value and _slot(other, vocabulary) == slot and normalize_claim(other.value) == value:
            found.append(Link(other, "same slot and value"))
    return found


def _line(link: Link) -> str:
    fact = link.fact
    when = f"observed {fact.observed_at}" if fact.observed_at else "undated"
    return f"- `{fact.id}` {fact.path}:{fact.line} {fact_body(fact)!r} ({when}, {fact.source_class}) — {link.why}"


def format_text(item: Explanation) -> str:
    fact = item.fact
    lines = [f"# why {fact.id}", "", f"**{fact.entity}**: {fact_body(fact)}", ""]
    lines += [
        f"- slot: {fact.slot or '—'} | value: {fact.value or '—'} | status verb: {fact.status_verb or '—'}",
        (f"- provenance: {fact.path}:{fact.line} | observed {fact.observed_at or '—'} | "
         f"source {fact.source or '—'} | class {fact.source_class} | fidelity {fact.fidelity.value} | "
         f"reliability {item.reliability:.2f}"),
        (f"- window: valid_from {fact.valid_from or '—'} | valid_to {fact.valid_to or '—'} "
         f"({'active' if fact.active else 'history'})"),
    ]
    lines += [f"- the same id is also at {o.path}:{o.line}" for o in item.same_id]
    lines += ["", f"## Findings ({len(item.findings)})", ""]
    lines += [line for finding, role in item.findings for line in _finding_lines(finding, role)] or ["- nothing"]
    for title, links in (("Corroborated by", item.corroborated_by), ("Contradicted by", item.contradicted_by),
                         ("Superseded by", item.superseded_by), ("Supersedes", item.supersedes)):
        lines += ["", f"## {title} ({len(links)})", ""]
        lines += [_line(link) for link in links] or ["- nothing"]
    return "\n".join(lines) + "\n"


def _linked(link: Link) -> dict[str, Any]:
    return {**link.fact.record(), "path": link.fact.path, "line": link.fact.line, "why": link.why}


def format_json(item: Explanation) -> str:
    return json.dumps(as_dict(item), indent=2, ensure_ascii=False) + "\n"


def format_location_json(location: str, items: Sequence[Explanation]) -> str:
    """`why FILE:LINE --json`: the line asked about and one explanation per fact read from it."""
    payload = {"tool": "memory-autopsy", "version": __version__, "command": "why", "location": location,
               "facts": [as_dict(item) for item in items]}
    return json.dumps(payload, indent=2, ensure_ascii=False) + "\n"


def as_dict(item: Explanation) -> dict[str, Any]:
    fact = item.fact
    payload = {
        "tool": "memory-autopsy",
        "version": __version__,
        "command": "why",
        "fact": {**fact.record(), "path": fact.path, "line": fact.line},
        "provenance": {
            "path": fact.path, "line": fact.line, "observed_at": fact.observed_at, "source": fact.source,
            "source_class": fact.source_class, "fidelity": fact.fidelity.value,
            "reliability": item.reliability,
        },
        "same_id": [{"path": o.path, "line": o.line} for o in item.same_id],
        "corroborated_by": [_linked(link) for link in item.corroborated_by],
        "contradicted_by": [_linked(link) for link in item.contradicted_by],
        "superseded_by": [_linked(link) for link in item.superseded_by],
        "supersedes": [_linked(link) for link in item.supersedes],
        "findings": [{"rule": f.rule, "severity": f.severity.value, "side": role, "path": f.path, "line": f.line,
                      "message": f.message, "related": [{"path": r.path, "line": r.line} for r in f.related],
                      "fingerprint": f.fingerprint, "accept": ACCEPT.format(rule=f.rule)}
                     for f, role in item.findings],
    }
    return payload
