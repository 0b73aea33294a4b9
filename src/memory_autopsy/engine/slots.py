"""Layers 2b/2c: facts filling one (entity, slot) with different values.

Ordered pairs are judged against the newest observation; unordered pairs (equal dates or an
undated side) are confirmed only by two explicit records, and hedged when prose is involved.
Each group is walked once: no pairwise loop over an entity's facts. An older fact is judged
against the distinct values of the newest date, so a newest date holding more than
`MAX_NEWEST_VALUES` of them has no value to judge against: only the unordered pass reports it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from memory_autopsy.claims import (
    canonical_token,
    compare_values,
    frame_subject,
    is_versioned_slot,
    two_subjects,
    value_shape,
    version_key,
)
from memory_autopsy.dates import day_of
from memory_autopsy.engine.context import Context, observed_order
from memory_autopsy.engine.findings import fact_finding, quote
from memory_autopsy.model import Fact, Fidelity, Finding
from memory_autopsy.normalize import normalize_claim, tokens

ANCHOR_CUE = 0.6
# What the judges call a finding of this layer, whatever its rule: one slot read with two values
# (engine.judges grades a slot's contradicted_implicit by how its likely_conflicts fared too).
SLOT = "slot"
# More distinct values than this at the newest date: no newest value (every older fact would
# be compared with every one of them, quadratic in the slot).
MAX_NEWEST_VALUES = 64


def find(ctx: Context, skip: set[int]) -> Iterator[Finding]:
    groups: dict[tuple[str, str, str], list[Fact]] = {}
    slot_key = ctx.slot_key
    for fact in ctx.active_in_focus:
        if fact.slot and fact.order not in skip and fact.kind in ("state", "event") and not _status_cell(ctx, fact):
            groups.setdefault(slot_key(fact), []).append(fact)  # type: ignore[arg-type]
    files = ctx.settings.focus
    for facts in groups.values():
        if len(facts) < 2 or _all_same(facts):
            continue
        if files is not None and not any(f.path in files for f in facts):
            continue  # every finding of a group is about its facts: none touches a changed file
        yield from _group(ctx, facts[0].slot.split("|")[0], facts)


def _status_cell(ctx: Context, fact: Fact) -> bool:
    """A table's status column is the status layer's business, not a slot value."""
    return fact.shape == "table" and fact.slot in ctx.lexicon.status_columns


def _all_same(facts: Sequence[Fact]) -> bool:
    first = normalize_claim(facts[0].value)
    return all(normalize_claim(f.value) == first for f in facts[1:])


def _day(fact: Fact) -> str:
    return day_of(fact.observed_at) or ""


def _group(ctx: Context, slot: str, facts: list[Fact]) -> Iterator[Finding]:
    dated = [f for f in facts if f.observed_at]
    top = max((_day(f) for f in dated), default="")
    survivors = [f for f in dated if _day(f) == top]
    distinct = list({normalize_claim(f.value): f for f in reversed(survivors)}.values())[::-1]
    older = [f for f in dated if _day(f) != top] if len(distinct) <= MAX_NEWEST_VALUES else []
    for fact in older:
        verdicts = [(s, compare_values(fact.value, s.value, ctx.vocabulary)) for s in distinct
                    if _one_subject(ctx, fact, s)]
        if not verdicts or any(v in ("same", "refine") for _, v in verdicts):
            continue
        survivor, verdict = verdicts[0]
        if fact.kind != "state" or (fact.entry and fact.entry == survivor.entry):
            continue  # an event is history; one dated entry is one story
        if observed_order(fact, survivor) == -1:
            yield _ordered(ctx, slot, fact, survivor, verdict)
    pool = sorted(survivors + [f for f in facts if not f.observed_at], key=lambda f: f.order)
    if len(pool) > 1:
        yield from _unordered(ctx, slot, pool)


def _ordered(ctx: Context, slot: str, older: Fact, newer: Fact, verdict: str) -> Finding:
    shown = _values(ctx, older, newer)
    when = f"observed {older.observed_at} -> {newer.observed_at}"
    if verdict == "version" or is_versioned_slot(slot, ctx.vocabulary):
        return fact_finding(
            "stale", older, f"{_said(slot)} {shown[0]} here, superseded by {shown[1]} at {newer.where} ({when})",
            related=[newer], extra=_extra(newer, ""),
        )
    return fact_finding(
        "contradicted_implicit", older, f"{_said(slot)} {shown[0]} here, but {shown[1]} at {newer.where} ({when})",
        related=[newer], extra=_extra(newer),
    )


def _unordered(ctx: Context, slot: str, pool: list[Fact]) -> Iterator[Finding]:
    first = pool[0]
    for other in pool[1:]:
        if not _one_subject(ctx, first, other):
            continue
        verdict = compare_values(first.value, other.value, ctx.vocabulary)
        if verdict in ("same", "refine"):
            continue
        why = f"no observation order: {first.observed_at or 'undated'} and {other.observed_at or 'undated'}"
        if verdict == "version":
            low, high = sorted((first, other), key=lambda f: version_key(f.value, ctx.vocabulary))
            if version_key(low.value, ctx.vocabulary) != version_key(high.value, ctx.vocabulary):
                was, now = _values(ctx, low, high)
                yield fact_finding(
                    "stale", low, f"{_said(slot)} {was} here, but {now} at {high.where} ({why}; "
                    "the lower version is flagged)", related=[high], layer="2c", extra=_extra(high, ""),
                )
                continue
        if first.fidelity is Fidelity.FULL and other.fidelity is Fidelity.FULL:
            yield fact_finding(
                "contradicted_implicit", first,
                f"{_said(slot)} {first.value!r} here, but {other.value!r} at {other.where} ({why} — "
                "two canonical records disagree, neither is newer)",
                related=[other], layer="2c", extra=_extra(other), symmetric=True,
            )
        else:
            was, now = _values(ctx, first, other)
            yield fact_finding(
                "likely_conflict", first,
                f"{_said(slot)} {was} here, perhaps {now} at {other.where} ({why}; read from prose "
                "alone, so nothing proves it)",
                related=[other], layer="2c", confidence=ANCHOR_CUE, symmetric=True, extra={"how": SLOT},
            )


def _one_subject(ctx: Context, a: Fact, b: Fact) -> bool:
    """Whether two claims of one slot may be about one thing: not when each names a subject of
    its own besides its entity and neither holds the other ("The API runs on Node 18" / "The
    web app runs on Node 20" under one heading: two services, two values, no change), nor two
    dated rows of one log table (what each row's Fix or Outcome column says is its own record,
    as two dated entries' are), nor two rows of one table: a table names each subject once in
    its first column, so a first cell repeated down it is a group, not a key ("| 2024 | Use
    FastAPI | … |" and "| 2024 | Use Recharts | … |", "| Core | logger.c | 67/68 |" and "| Core |
    raii.h | 18/18 |"), and each row is a record of its own."""
    if _log_rows(a, b) or _one_table(ctx, a, b):
        return False
    return not two_subjects(_own_subject(ctx, a), _own_subject(ctx, b))


def _log_rows(a: Fact, b: Fact) -> bool:
    return a.shape == b.shape == "table" and a.path == b.path and bool(a.entry) and bool(b.entry) and a.entry != b.entry


def _one_table(ctx: Context, a: Fact, b: Fact) -> bool:
    """Two rows of one table: rows in one run of adjoining lines (a table's header and rule
    part it from the table before it)."""
    return a.shape == b.shape == "table" and a.line != b.line and ctx.one_run(a, b)


def _own_subject(ctx: Context, fact: Fact) -> frozenset[str]:
    said = frame_subject(fact.body or fact.claim, ctx.vocabulary)
    if not said:
        return said
    return said - {canonical_token(word, ctx.vocabulary) for word in tokens(fact.entity)}


def _values(ctx: Context, a: Fact, b: Fact) -> tuple[str, str]:
    """The two values as a message shows them: their heads, or whole when the heads are one."""
    ha = value_shape(a.value, ctx.vocabulary).head or a.value
    hb = value_shape(b.value, ctx.vocabulary).head or b.value
    if ha == hb:
        ha, hb = quote(a.value, 40), quote(b.value, 40)
    return repr(ha), repr(hb)


def _said(slot: str) -> str:
    """A slot as a message names it: the verb of a verb-frame slot ("anchor:uses": uses)."""
    return slot.removeprefix("anchor:")


def _extra(survivor: Fact, how: str = SLOT) -> dict[str, object]:
    """A version superseded is judged as every stale value is (`how` empty); two values of one
    slot, as the slot layer's findings are."""
    extra: dict[str, object] = {"survivor_date": survivor.observed_at, "survivor_id": survivor.id}
    return extra | {"how": how} if how else extra
