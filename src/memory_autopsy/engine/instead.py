"""Layer 2c: a rule that tells the agent to use a command another rule has replaced.

"Use `cargo run --` instead of relying on `kk` on the PATH" retires the command `kk`; a
guideline elsewhere that still says "Use `kk lint` to validate content" sends the agent to the
retired command. Only a tool the replacement names after a verb of use ("instead of relying
on / using / running / calling X") and a guideline that opens with a verb of use on the same
tool ("Use X …", "Run X …") are matched. With no observation order nothing proves which rule
is newer: the finding is a `likely_conflict` for review; a guideline observed after the
replacement is left alone.
"""

from __future__ import annotations

from collections.abc import Iterator

from memory_autopsy.cues import REPLACED, REPLACES, USES, USES_TOOL
from memory_autopsy.engine.context import Context, observed_order
from memory_autopsy.engine.findings import fact_finding, quote
from memory_autopsy.model import Fact, Finding


def find(ctx: Context) -> Iterator[Finding]:
    retired: dict[str, Fact] = {}
    for fact in ctx.cued(REPLACES):
        for match in REPLACED.finditer(fact.claim):
            retired.setdefault(match["old"].casefold(), fact)
    if not retired:
        return
    for fact in ctx.cued(USES_TOOL):
        if fact.kind != "guideline" or REPLACED.search(fact.claim):
            continue
        uses = USES.match(fact.claim)
        if uses is None:
            continue
        rule = retired.get(uses["tool"].casefold())
        if rule is None or rule is fact or observed_order(fact, rule) == 1:
            continue
        yield fact_finding(
            "likely_conflict", fact,
            f"uses {uses['tool']}, but {rule.where} replaces it: {quote(rule.claim)!r}",
            related=[rule], confidence=0.7,
        )
