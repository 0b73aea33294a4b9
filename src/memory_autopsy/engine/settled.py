"""Layer 2b: an open question the store has since answered.

A claim marked open in so many words ("Likely uses `conftest.py` for fixtures (needs
confirmation)", "(TBD)", "要確認"; `open_question_words` in the lexicon) names a code-like
thing. When another line of the store, not itself open, not older, states that same name as a
plain fact ("edited the fixtures in `conftest.py`"), the hedge is stale: the agent keeps
treating as unknown what its own memory already knows. The open line is flagged, naming the
answer; a line with no code-like name is left alone (plain words match too loosely).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from memory_autopsy.cues import OPEN, open_mark
from memory_autopsy.engine.context import Context, observed_order
from memory_autopsy.engine.findings import quote
from memory_autopsy.engine.rejected import NAME_ANYWHERE, stale_by_name
from memory_autopsy.model import Fact, Finding
from memory_autopsy.normalize import few_words, holds_any

KEEP = 2


def find(ctx: Context) -> Iterator[Finding]:
    marks = ctx.lexicon.open_question_words
    if not marks:
        return
    open_facts: list[tuple[Fact, str, frozenset[str]]] = []
    for fact in ctx.cued(OPEN):
        mark = open_mark(fact.claim, marks)
        if mark:
            names = frozenset(n.rstrip(".") for n in NAME_ANYWHERE.findall(fact.claim))
            if names:
                open_facts.append((fact, mark, names))
    if not open_facts:
        return
    wanted = {name for _, _, names in open_facts for name in names}
    stated = _statements(ctx.active, wanted, marks)
    for fact, mark, names in open_facts:
        answer = _answer(fact, names, stated)
        if answer is not None:
            name, other = answer
            yield stale_by_name(
                fact, name, other,
                f"still open ({mark!r}), but {other.where} states {name!r} as fact ({quote(other.claim)!r})",
            )


def _statements(facts: Sequence[Fact], wanted: set[str], marks: tuple[str, ...]) -> dict[str, list[Fact]]:
    """Per wanted name, the facts that state it plainly (no open mark of their own) and can
    answer an open line: the first undated ones (no order with anything) and the newest dated
    ones, KEEP of each (one may share the open line), in store order. A bounded list per name
    keeps the answer lookup linear however often a name is stated."""
    undated: dict[str, list[Fact]] = {}
    newest: dict[str, list[Fact]] = {}
    # A wanted name a claim states is a piece of its text: with a few names wanted, a claim
    # holding none of them is passed over without the name pattern's search.
    held = few_words(wanted)
    for fact in facts:
        if fact.kind in ("guideline", "task"):
            continue
        if held is not None and not holds_any(fact.claim, held):
            continue
        names = {n.rstrip(".") for n in NAME_ANYWHERE.findall(fact.claim)} & wanted
        if not names or open_mark(fact.claim, marks):
            continue
        for name in names:
            if not fact.observed_at:
                kept = undated.setdefault(name, [])
                if len(kept) < KEEP:
                    kept.append(fact)
            else:
                kept = newest.setdefault(name, [])
                kept.append(fact)
                kept.sort(key=lambda f: (f.observed_at or "", -f.order), reverse=True)
                del kept[KEEP:]
    return {name: sorted(undated.get(name, []) + newest.get(name, []), key=lambda f: f.order)
            for name in undated.keys() | newest.keys()}


def _answer(fact: Fact, names: frozenset[str], stated: dict[str, list[Fact]]) -> tuple[str, Fact] | None:
    for name in sorted(names):
        for other in stated.get(name, ()):
            if (other.path, other.line) != (fact.path, fact.line) and observed_order(other, fact) != -1:
                return name, other
    return None
