"""Layer 2b: a line that still relies on a name the store rejects.

A memory rejects a name in so many words: "Do NOT use `table_matchmaking`", "never call
`legacy_sync()`", "`venv/` (legacy — may only exist under themes/venv/)". Another state line
that still takes that name as its value ("arena/regular from `table_matchmaking`", "**Venv**:
`venv/` with playwright installed") tells the agent the opposite: it is `stale`, naming the
rejection. Only code-like names count (`snake_case`, `dotted.name`, `path/`, `camelCase`): a
plain word ("margins", "comments") is too common to pin a rejection on. A line that itself
negates, retires or replaces stays quiet, as do guidelines, events and tasks, and a line dated
after the rejection (the name may be back).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memory_autopsy import lazyre
from memory_autopsy.cues import REJECTS, rejection_words, retiring_words
from memory_autopsy.engine.context import Context, observed_order
from memory_autopsy.engine.findings import fact_finding, quote
from memory_autopsy.model import Fact, Finding
from memory_autopsy.normalize import holds_any

# A code-like name: snake_case, dotted.name, a/path or path/, camelCase. Segments never hold a
# separator, so a name parses one way only (no backtracking on a long run of them).
NAME = (
    r"(?:_?[A-Za-z][A-Za-z0-9-]*(?:[_./]+[A-Za-z0-9-]+)+/?|[A-Za-z][A-Za-z0-9-]{2,}/|[a-z]+[A-Z][A-Za-z0-9]*)"
)
NAME_ANYWHERE = re.compile(r"(?<![\w./-])" + NAME + r"(?![\w/])")
# A prohibition of the name itself: not of one version of it ("don't use node.js 16") and not
# under a condition ("never call sync_all() in production"): another line may use it rightly.
_PROHIBITION = lazyre.compile(
    r"\b(?i:do\s+not|don'?t|never|stop)\s+(?i:use|using|rely\s+on|depend\s+on|call|read)\s+(?P<name>" + NAME + r")"
    r"(?![\w/])(?!\W{0,3}v?\d)(?!\W{0,3}(?i:for|in|on|when|while|with|without|unless|except|inside|outside|to|if)\b)"
)
_MARKED = lazyre.compile(
    r"(?<![\w./-])(?P<name>" + NAME + r")\s*(?:\(\s*|[—–-]\s+|,\s*|\bis\s+|\bare\s+)(?P<word>[A-Za-z]+)"
)
# A name taken as a clause's value: right after a frame word, or opening a labelled value.
_FRAME_WORD = lazyre.compile(r"(?i:\b(?:from|uses?|using|via|through|with|reads?|in))\s+$")
_CLAUSE = lazyre.compile(r"[;.](?:\s|$)")
_QUIET = lazyre.compile(
    r"(?i)\b(?:not|never|no|no\s+longer|don'?t|avoid|wrong|legacy|deprecated|obsolete|rejected|removed|"
    r"replaced|instead|historical|used\s+to|old|formerly|previously|was|were)\b"
)
_PARENS = lazyre.compile(r"\([^()]*\)")
LABEL_WIDTH = 40
MAX_NAMES = 200


def find(ctx: Context) -> Iterator[Finding]:
    rejections = _rejections(ctx)
    if not rejections:
        return
    named = _names_pattern(rejections)
    files = ctx.settings.focus
    # With a focus (the hook's changed files), a fact elsewhere matters only when it relies on a
    # name a changed file rejects: a finding touches a changed file through either side.
    elsewhere = named if files is None else _names_pattern(
        {name: fact for name, fact in rejections.items() if fact.path in files})
    for fact in ctx.active:
        if fact.kind != "state" or fact.valid_to:
            continue
        pattern = named if files is None or fact.path in files else elsewhere
        if pattern is None or not pattern.search(fact.claim):
            continue
        hit = _relied_on(fact.claim, rejections, fact)
        if hit is not None:
            name, rejection = hit
            yield stale_by_name(
                fact, name, rejection,
                f"relies on {name!r}, which {rejection.where} rejects ({quote(rejection.claim)!r})",
            )


def stale_by_name(fact: Fact, name: str, other: Fact, message: str) -> Finding:
    """A `stale` finding pinned on a code-like name, with the fact that outdates it."""
    return fact_finding("stale", fact, message, related=[other],
                        extra={"name": name, "survivor_date": other.observed_at})


def _rejections(ctx: Context) -> dict[str, Fact]:
    """Each rejected name and the fact whose rejection reaches furthest: an undated one (it has
    no order with anything), else the newest (a line dated after it may have brought the name
    back). One per name keeps the lookup per claim constant."""
    retiring = retiring_words(ctx.lexicon)
    hint = rejection_words(retiring)
    found: dict[str, Fact] = {}
    for fact in ctx.cued(REJECTS):
        text = ctx.norm_body(fact)  # lower-cased once for every layer: a substring test is cheap
        if not holds_any(text, hint):
            continue
        claim = fact.claim
        names = [m["name"] for m in _PROHIBITION.finditer(claim)]
        names += [m["name"] for m in _MARKED.finditer(claim) if m["word"].casefold() in retiring]
        for name in names:
            name = name.rstrip(".")
            kept = found.get(name)
            if kept is None or kept.observed_at and (not fact.observed_at or fact.observed_at > kept.observed_at):
                found[name] = fact
    return found


def _names_pattern(rejections: dict[str, Fact]) -> re.Pattern[str] | None:
    """A search that finds a claim naming a rejected name (or, past MAX_NAMES names, any
    code-like name: an alternation that long would cost more than the lookup it saves); None
    for no name."""
    if not rejections:
        return None
    if len(rejections) > MAX_NAMES:
        return NAME_ANYWHERE
    alternation = "|".join(re.escape(n) for n in sorted(rejections, key=len, reverse=True))
    return re.compile(r"(?<![\w./-])(?:" + alternation + r")(?![\w/])")


def _relied_on(claim: str, rejections: dict[str, Fact], fact: Fact) -> tuple[str, Fact] | None:
    for clause in _CLAUSE.split(claim):
        if _QUIET.search(_PARENS.sub(" ", clause)):  # "(so we don't mislabel)" negates nothing around it
            continue
        colon = clause.find(":", 0, LABEL_WIDTH + 1)
        value_at = -1  # where a labelled value starts: past the colon, blanks and emphasis
        if colon != -1:
            value_at = colon + 1
            while value_at < len(clause) and clause[value_at] in " *_`":
                value_at += 1
        for match in NAME_ANYWHERE.finditer(clause):
            name = match.group().rstrip(".")
            rejection = rejections.get(name)
            if rejection is None or (rejection.path, rejection.line) == (fact.path, fact.line):
                continue
            if observed_order(rejection, fact) == -1:
                continue  # dated after the rejection: the name may be back
            start = match.start()
            if start == value_at or _FRAME_WORD.search(clause, max(0, start - 12), start):
                return name, rejection
    return None
