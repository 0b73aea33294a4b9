"""Cues: what the store-wide layers look for in a claim, read once per fact.

Numeric drift reads quantities ("2129 tests passing", "40% remaining"), stale pins read
`name@1.2.3` and "currently at version 2.0.9", replaced tools read "instead of using X" and
"Use X": each of these layers searched every claim of the store on every run. Each layer still
reads the claim itself; `cues()` only says which of these a claim holds at all, as bits the
reader computes once per fact and the parse cache keeps, so a warm run's layers visit the facts that hold their cue and skip the rest without
searching them again (a cold run searches each claim once, as the layers did). A bit is set
whenever the layer's own reading could find something: a cue may be set in vain, never missing.
Layers whose first test is cheaper than a search (rejected names, open questions) read no cue.
"""

from __future__ import annotations

import re
from functools import lru_cache

# --- quantities (numeric drift) ---------------------------------------------------------------

_COUNTED = (
    r"tests?|specs?|files?|endpoints?|components?|requirements?|errors?|warnings?|issues?|"
    r"vulnerabilit(?:y|ies)|packages?|dependencies|modules?|pages?|routes?|commands?|rules?|"
    r"tables?|models?|tools?|screens?|migrations?|services?|workflows?|lines?"
)
# Thousands groups are bounded: `111,` repeated would otherwise be rescanned from every comma.
COUNT = re.compile(
    rf"(?:\b(?P<adj>[a-z][a-z-]{{1,20}})\s+)?(?<![\d.])(?P<n>\d{{1,3}}(?:,\d{{3}}){{1,4}}|\d{{1,7}})\+?\s+"
    rf"(?:(?P<adj2>[a-z][a-z-]{{1,20}})\s+)?(?P<noun>{_COUNTED})\b(?:\s+(?P<state>[a-z]+))?",
    re.I,
)
PERCENT = re.compile(r"(?<![\d.])(?P<n>\d{1,3})\s?%\s+(?P<word>complete|completed|done|remaining|left)\b", re.I)
_DIGIT = re.compile(r"\d")
_STATES = frozenset("passing pass passed failing fail failed remaining left open implemented total".split())
_DONE = frozenset({"complete", "completed", "done"})
_STATE_HINT = re.compile("|".join(sorted({w[:4] if w.startswith(("pass", "fail")) else w for w in _STATES})), re.I)


@lru_cache(maxsize=65536)
def quantities(claim: str) -> tuple[tuple[tuple[str, ...], int], ...]:
    """(quantity key, number) pairs stated in a claim; a share remaining is read as done."""
    found: dict[tuple[str, ...], int] = {}
    if _DIGIT.search(claim) is None:
        return ()
    counted = _STATE_HINT.search(claim) is not None  # a count needs a state word after its noun
    if not counted and "%" not in claim:
        return ()
    for match in COUNT.finditer(claim) if counted else ():
        adjective = (match["adj2"] or match["adj"] or "").lower()
        state = (match["state"] or "").lower()
        noun = match["noun"].lower().rstrip("s").removesuffix("ie")
        if state not in _STATES:
            continue  # "496 tests, 39 files": a bare count says nothing about which total it is
        found.setdefault(("count", adjective if adjective not in _STATES else "", noun, state),
                         int(match["n"].replace(",", "")))
    for match in PERCENT.finditer(claim) if "%" in claim else ():
        share = int(match["n"])
        found.setdefault(("percent", "done"), share if match["word"].lower() in _DONE else 100 - share)
    return tuple(found.items())


# --- pins and current versions (stale pins) ---------------------------------------------------

_VERSION = r"v?(?P<version>\d{1,6}(?:\.\d{1,6}){1,3})"
PIN = re.compile(r"(?<![\w@/.-])(?P<name>@?[a-z0-9][\w.-]{0,80}?)@" + _VERSION + r"\b", re.I)
CURRENT = re.compile(
    r"\b(?:(?:currently|now)\s+(?:at|on)\s+(?:version\s+|v(?=\d))|current\s+version\s*(?:is|:)?\s*"
    r"|latest\s+version\s*(?:is|:)\s*)" + _VERSION + r"\b",
    re.I,
)

# --- replaced tools -----------------------------------------------------------------------------

REPLACED = re.compile(
    r"\b(?:instead of|rather than)\s+(?:relying on|using|running|calling|invoking)\s+(?:the\s+)?"
    r"(?P<old>[\w][\w./-]{0,80})",
    re.I,
)
USES = re.compile(r"(?:use|run|call|invoke|execute)\s+(?P<tool>[\w][\w./-]{0,80})", re.I)

NUMBERS, PINS, REPLACES, USES_TOOL = CUES = (1, 2, 4, 8)
ALL = -1  # a fact whose cues were never read (built outside a reader): every layer visits it


def cues(claim: str) -> int:
    """The cue bits of a claim."""
    bits = NUMBERS if quantities(claim) else 0
    if ("@" in claim and PIN.search(claim)) or CURRENT.search(claim):
        bits |= PINS
    if REPLACED.search(claim):
        bits |= REPLACES
    if USES.match(claim):
        bits |= USES_TOOL
    return bits
