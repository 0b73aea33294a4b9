"""Layer 2b: one quantity of one subject stated with different numbers ("1800+ tests pass",
later "2129 tests pass"; "90% complete" beside "40% remaining").

A quantity is a number with the noun it counts, the word before that noun ("unit tests" and
"integration tests" are two quantities) and a state word after it ("passing", "remaining").
Only an observation order proves drift: the older statement is flagged and the newer named;
two statements of one dated entry tell a story ("from 1800 to 2129 tests") and are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from functools import lru_cache
from types import MappingProxyType

from memory_autopsy.engine.context import Context, observed_order
from memory_autopsy.engine.findings import fact_finding, quote
from memory_autopsy.model import Fact, Finding

_COUNTED = (
    r"tests?|specs?|files?|endpoints?|components?|requirements?|errors?|warnings?|issues?|"
    r"vulnerabilit(?:y|ies)|packages?|dependencies|modules?|pages?|routes?|commands?|rules?|"
    r"tables?|models?|tools?|screens?|migrations?|services?|workflows?|lines?"
)
# Thousands groups are bounded: `111,` repeated would otherwise be rescanned from every comma.
_COUNT = re.compile(
    rf"(?:\b(?P<adj>[a-z][a-z-]{{1,20}})\s+)?(?<![\d.])(?P<n>\d{{1,3}}(?:,\d{{3}}){{1,4}}|\d{{1,7}})\+?\s+"
    rf"(?:(?P<adj2>[a-z][a-z-]{{1,20}})\s+)?(?P<noun>{_COUNTED})\b(?:\s+(?P<state>[a-z]+))?",
    re.I,
)
_PERCENT = re.compile(r"(?<![\d.])(?P<n>\d{1,3})\s?%\s+(?P<word>complete|completed|done|remaining|left)\b", re.I)
_DIGIT = re.compile(r"\d")
_STATES = frozenset("passing pass passed failing fail failed remaining left open implemented total".split())
_DONE = frozenset({"complete", "completed", "done"})
_STATE_HINT = re.compile("|".join(sorted({w[:4] if w.startswith(("pass", "fail")) else w for w in _STATES})), re.I)


def find(ctx: Context) -> Iterator[Finding]:
    latest: dict[tuple[str, ...], Fact] = {}
    statements: list[tuple[Fact, tuple[str, ...], int]] = []
    for fact in ctx.active:
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


@lru_cache(maxsize=65536)
def quantities(claim: str) -> tuple[tuple[tuple[str, ...], int], ...]:
    """(quantity key, number) pairs stated in a claim; a share remaining is read as done."""
    found: dict[tuple[str, ...], int] = {}
    if _DIGIT.search(claim) is None:
        return ()
    counted = _STATE_HINT.search(claim) is not None  # a count needs a state word after its noun
    if not counted and "%" not in claim:
        return ()
    for match in _COUNT.finditer(claim) if counted else ():
        adjective = (match["adj2"] or match["adj"] or "").lower()
        state = (match["state"] or "").lower()
        noun = match["noun"].lower().rstrip("s").removesuffix("ie")
        if state not in _STATES:
            continue  # "496 tests, 39 files": a bare count says nothing about which total it is
        found.setdefault(("count", adjective if adjective not in _STATES else "", noun, state),
                         int(match["n"].replace(",", "")))
    for match in _PERCENT.finditer(claim) if "%" in claim else ():
        share = int(match["n"])
        found.setdefault(("percent", "done"), share if match["word"].lower() in _DONE else 100 - share)
    return tuple(found.items())


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
