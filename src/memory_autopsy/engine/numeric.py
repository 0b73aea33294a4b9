"""Layer 2b: one quantity of one subject stated with different numbers ("1800+ tests pass",
later "2129 tests pass"; "90% complete" beside "40% remaining").

A quantity is a number with the noun it counts, the word before that noun ("unit tests" and
"integration tests" are two quantities) and a state word after it ("passing", "remaining").
Only an observation order proves drift: the older statement is flagged and the newer named;
two statements of one dated entry tell a story ("from 1800 to 2129 tests") and are left alone.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import lru_cache
from types import MappingProxyType

from memory_autopsy.cues import NUMBERS, quantities
from memory_autopsy.engine.context import Context, observed_order
from memory_autopsy.engine.findings import fact_finding, quote
from memory_autopsy.model import Fact, Finding


def find(ctx: Context) -> Iterator[Finding]:
    latest: dict[tuple[str, ...], Fact] = {}
    statements: list[tuple[Fact, tuple[str, ...], int]] = []
    for fact in ctx.cued(NUMBERS):
        if fact.kind == "guideline" or not fact.observed_at:
            continue
        for key, number in quantities(fact.claim):
            if key[0] == "count" and fact.kind == "event":
                continue  # "Fixed 5 failing tests" counts a change, not the total
            statements.append((fact, key, number))
            best = latest.get(key)
            if best is None or observed_order(fact, best) == 1:
                latest[key] = fact
    flagged: set[int] = set()
    for fact, key, number in statements:
        newest = latest[key]
        if fact.order in flagged or observed_order(fact, newest) != -1:
            continue
        if fact.entry and fact.entry == newest.entry:
            continue
        newer = _stated(newest.claim)[key]
        if newer != number:
            flagged.add(fact.order)
            yield _finding(fact, newest, key, number, newer)


@lru_cache(maxsize=1024)
def _stated(claim: str) -> Mapping[tuple[str, ...], int]:
    """quantities() as a mapping, built once per claim (not once per statement compared with it)."""
    return MappingProxyType(dict(quantities(claim)))


def _finding(older: Fact, newer: Fact, key: tuple[str, ...], was: int, now: int) -> Finding:
    what = "share done" if key[0] == "percent" else " ".join(w for w in key[1:] if w)
    unit = "%" if key[0] == "percent" else ""
    message = (
        f"{what}: {was}{unit} here, {now}{unit} at {newer.where} "
        f"(observed {older.observed_at} -> {newer.observed_at}: {quote(newer.claim)!r})"
    )
    return fact_finding("numeric_drift", older, message, related=[newer],
                        extra={"survivor_date": newer.observed_at})
