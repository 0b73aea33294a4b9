"""Layer 2b: an install line pinned to a version the store has since moved past.

"npx mcp-think-tank@2.0.7" pins the package `mcp-think-tank`; "MCP Think Tank: currently at
version 2.0.9", observed later, says the project moved on. The pin is `stale`: the agent will
install what its own memory calls the old release. The package name must be the entity's name
(hyphens and case aside), and only a later, higher current version flags the pin.

The project's own version, too: "Current Version: 1.0.0" or "**Version:** 1.0.0" (a claim
that opens with it, so that it names no other subject: "Python version: 3.11" is Python's) in a
store that records a later release ("Released v1.0.1", a changelog table row for 1.0.1, "1.0.1
shipped", "RELEASED 2026-07-17: Version 1.0.1 - …") or says elsewhere that the current version
is higher ("Canonical current version: 1.0.1") is `stale`. A higher version is itself the time
cue: no dates are needed. Releases are read in the claim's own store (and, in a graph, of its
own entity).
"""

from __future__ import annotations

from collections.abc import Iterator

from memory_autopsy import lazyre
from memory_autopsy.cues import CURRENT, PIN, PINS, VERSION_LABEL, version_pattern
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


# "Released v1.0.1", "bumped the version to 1.0.1", "v1.0.1 shipped", "Version 1.0.2 tagged and published"
_RELEASED = lazyre.compile(
    r"\b(?i:released|shipped|published|tagged|bumped[ \t]+(?:the[ \t]+)?version[ \t]+to)[ \t]+" + version_pattern("v")
    + r"\b|(?<![\w.])" + version_pattern("after") + r"[ \t]+(?i:(?:was[ \t]+|is[ \t]+)?(?:released|shipped|published|tagged))\b"
)
# An entry labelled a release: "RELEASED 2026-07-17 (TICKET-0162): Version 1.0.8 - …"
_RELEASE_LABEL = lazyre.compile(
    r"[\W_]{0,8}(?i:released|shipped|published)\b[^:\n]{0,80}:[\W_]{0,4}(?i:version[ \t]+)?" + version_pattern("v") + r"\b"
)
_RELEASE_WORDS = ("releas", "shipped", "publish", "tagged", "bumped")
_BARE_VERSION = lazyre.compile(version_pattern("v"))
_OPENS = lazyre.compile(r"[\W_]{0,8}")  # marks before a claim's first word
_WORDS = lazyre.compile(r"[^\s*_`:\-–—]+")


def project_version(ctx: Context) -> Iterator[Finding]:
    """`stale` for a current-version claim behind a release its own store records."""
    said: list[tuple[tuple[int, ...], str, Fact]] = []
    newest: dict[tuple[str, str], tuple[tuple[int, ...], str, Fact]] = {}
    records: list[tuple[str, Fact]] = []  # the project's version said current anywhere in a claim
    for fact in ctx.cued(PINS):
        opened = _OPENS.match(fact.claim)
        current = CURRENT.match(fact.claim, opened.end() if opened else 0) or VERSION_LABEL.match(fact.claim)
        if current is not None:
            said.append((_key(current["version"]), current["version"], fact))
        elif (anywhere := CURRENT.search(fact.claim)) is not None and _the_projects(fact.claim[:anywhere.start()]):
            records.append((anywhere["version"], fact))  # "Canonical current version: 0.1.17"
    if not said:
        return
    # Two claims that say the project's version is current disagree: a version only grows, so
    # the higher one is the later
    records += [(version, fact) for _, version, fact in said]
    for version, fact in records:
        place, key = _place(ctx, fact), _key(version)
        if place not in newest or key > newest[place][0]:
            newest[place] = (key, version, fact)
    for fact in ctx.active:
        for version in _released(fact):
            place, key = _place(ctx, fact), _key(version)
            if place not in newest or key > newest[place][0]:
                newest[place] = (key, version, fact)
    for key, version, fact in said:
        release = newest.get(_place(ctx, fact))
        if release is None or release[0] <= key:
            continue
        recorded = "records release" if _released(release[2]) else "says the current version is"
        yield fact_finding(
            "stale", fact,
            f"says the current version is {version}, but {release[2].where} {recorded} "
            f"{release[1]}: {quote(release[2].claim)!r}",
            related=[release[2]], extra={"how": "release"},
        )


# Words before "current version" that leave it the project's ("Canonical current version: …");
# any other names whose it is ("Node.js current version is 22", "React's current version").
_OF_THE_PROJECT = frozenset("the our its canonical actual official real true project app application project's app's".split())


def _the_projects(before: str) -> bool:
    return all(word in _OF_THE_PROJECT for word in _WORDS.findall(before.casefold()))


def _place(ctx: Context, fact: Fact) -> tuple[str, str]:
    """Where a version is compared: the fact's store, and in a graph its entity."""
    return ctx.store_key(fact), fact.entity if fact.shape == "graph" else ""


def _released(fact: Fact) -> list[str]:
    """The versions a fact records released: a changelog row (its subject a bare version) or a
    release in words."""
    if fact.shape == "table" and (row := _BARE_VERSION.fullmatch(fact.entity.strip())):
        return [row["v"]]
    lowered = fact.claim.lower()
    if not any(word in lowered for word in _RELEASE_WORDS):
        return []
    found = [m["v"] or m["after"] for m in _RELEASED.finditer(fact.claim)]
    labelled = _RELEASE_LABEL.match(fact.claim)
    return [labelled["v"], *found] if labelled else found


def _key(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))
