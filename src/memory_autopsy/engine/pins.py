"""Layer 2b: an install line pinned to a version the store has since moved past.

"npx mcp-think-tank@2.0.7" pins the package `mcp-think-tank`; "MCP Think Tank: currently at
version 2.0.9", observed later, says the project moved on. The pin is `stale`: the agent will
install what its own memory calls the old release. The package name must be the entity's name
(hyphens and case aside), and only a later, higher current version flags the pin.
"""

from __future__ import annotations

from collections.abc import Iterator

from memory_autopsy.cues import CURRENT, PIN, PINS
from memory_autopsy.engine.context import Context, observed_order
from memory_autopsy.engine.findings import fact_finding, quote
from memory_autopsy.model import Fact, Finding
from memory_autopsy.normalize import entity_form


def find(ctx: Context) -> Iterator[Finding]:
    current: dict[str, tuple[tuple[int, ...], Fact]] = {}
    pins: list[tuple[str, tuple[int, ...], str, Fact]] = []
    for fact in ctx.cued(PINS):
        if "@" in fact.claim:
            for match in PIN.finditer(fact.claim):
                pins.append((entity_form(match["name"].lstrip("@")), _key(match["version"]),
                             match["version"], fact))
        said = CURRENT.search(fact.claim)
        if said is not None:
            form, key = entity_form(fact.entity), _key(said["version"])
            best = current.get(form)
            if best is None or key > best[0]:
                current[form] = (key, fact)
    flagged: set[int] = set()
    for form, key, version, fact in pins:
        now = current.get(form)
        if now is None or fact.order in flagged or key >= now[0] or observed_order(fact, now[1]) != -1:
            continue
        flagged.add(fact.order)
        yield fact_finding(
            "stale", fact,
            f"pins {form.replace(' ', '-')} {version}, but {now[1].where} (observed later) says "
            f"the current version is newer: {quote(now[1].claim)!r}",
            related=[now[1]],
        )


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))
