"""Layer 2c: one tool given two versions in one store ("Python 3.8+ with uv" in the brief,
"Python 3.13+: minimum version for typing.Protocol" in the tech context; "react-native 0.76.1"
in a dependency list, "React Native Version: 0.81.5" in a later note).

A version is read where it cannot be a measure: after the word "version" ("React Native Version:
0.81.5", "Node v20"), as a full release ("react-native 0.76.1"), or as a minimum ("Python 3.8+").
The name before it is the tool's, as a product is written (capitalized, or with a hyphen or a
".js": "react-native", "Next.js"), and the grounding layer's aliases make "Node.js" and "node"
one tool. Two statements conflict when no version satisfies both: two minimums that differ, two
releases that differ where both are precise, a release below a minimum. "React 18" and "React
18.2.0" agree, as "Node 20+" and "Node 22.19.0" do; "Node version 18 in CI" and "Node version 20
locally" say where each holds, and are two statements of two places.

Claims that tell a history are passed over ("upgraded from Python 3.8 to 3.13", "was on React
17", a transition), as are claims naming one tool at two versions (a support matrix), open
tasks, and a version under a plan, a wish or a negation ("we plan to support Python
3.13+"). Two statements of one slot ("runs on Python 3.8+" twice over) are left to the slot
layer, which compares them already. The older statement is flagged where dates order them, else the lower version, as
the slot layer flags a superseded version. The finding is one of two values read for one slot
in prose, and is judged as the slot layer's are (`how`: slot).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import NamedTuple

from memory_autopsy import lazyre
from memory_autopsy.claims import find_transition
from memory_autopsy.clauses import qualified
from memory_autopsy.engine.context import Context, observed_order
from memory_autopsy.engine.findings import fact_finding, quote
from memory_autopsy.engine.grounding import ALIASES
from memory_autopsy.engine.slots import SLOT
from memory_autopsy.engine.status import PENDING
from memory_autopsy.model import NAMED_SHAPES, Fact, Finding

# A product name, then its version: "Python 3.8+", "React Native Version: 0.81.5", "Node v20",
# "react-native 0.76.1" ("v" only before a dotted version: "Spec v2" numbers a document).
# A product is capitalized, or written with a hyphen or a ".js".
_MENTION = lazyre.compile(
    r"(?<![\w.@/-])(?P<name>[A-Z][\w+#-]*(?:\.js)?(?:[ -][A-Z][\w+#-]*)?|[a-z][\w+#]*(?:-[\w+#]+)+|[a-z][\w+#-]*\.js)"
    r"[ \t]*(?:\*\*)?[ \t]*"
    r"(?P<word>(?i:version)[ \t]*:?[ \t]*(?:\*\*)?[ \t]*v?|v(?=\d+\.))?"
    r"(?P<version>\d{1,4}(?:\.\d{1,4}){0,2})(?P<plus>\+)?(?![\w.]*\d)(?![\w/%-])"
)
_DIGIT = lazyre.compile(r"\d")
# Where a version holds, written right after it: "Node version 18 in CI", "Python 3.12 locally".
_SCOPE = lazyre.compile(r"[ \t]*[),]?[ \t]*(?P<scope>(?i:in|on|for|under|inside|within)[ \t]+[\w-]+|(?i:locally))\b")
# Words that number something other than a release ("Phase 2.1", "Step 3+"), or a verb or
# preposition read as a name ("supports 3.8+", "requires 3.10+").
_NOT_TOOLS = frozenset("""phase step sprint version chapter section task plan iteration iter milestone release part
stage level day week round story epic ticket issue pr adr the with and to from at of in on by for is was uses using
use requires require support supports than over under about approximately up only all total top max min minimum
maximum port page line lines item items tests test files file build patch revision rev schema protocol""".split())
# A claim that tells how the version changed, not which it is.
_HISTORY = lazyre.compile(
    r"\b(?i:from|upgrad\w*|bump\w*|migrat\w*|previously|formerly|was|were|instead|downgrad\w*|replac\w*|switch\w*)\b|->|\u2192"
)

MAX_VERSIONS = 64


class Version(NamedTuple):
    minimum: bool  # "3.8+": this release or any later
    release: tuple[int, ...]
    scope: str  # where it holds, as written after it ("in ci"), or ""


class Mention(NamedTuple):
    tool: str
    version: Version
    shown: str  # as written ("Python 3.8+")


def find(ctx: Context) -> Iterator[Finding]:
    by_tool: dict[tuple[str, str], list[tuple[Fact, Mention]]] = {}
    for fact in ctx.active:
        if fact.kind not in ("state", "guideline") or fact.status in PENDING or _DIGIT.search(fact.claim) is None:
            continue
        mentions = _mentions(fact.claim)
        if not mentions or _HISTORY.search(fact.claim) or find_transition(fact.claim, ctx.vocabulary) is not None:
            continue
        for mention in mentions:
            by_tool.setdefault((ctx.store_key(fact), mention.tool), []).append((fact, mention))
    for said in by_tool.values():
        yield from _conflicts(ctx, said)


def _mentions(claim: str) -> list[Mention]:
    """The tools a claim gives one version each (a tool named at two versions is left out)."""
    found: dict[str, set[tuple[Version, str]]] = {}
    for match in _MENTION.finditer(claim):
        written = match["name"]
        name = _tool(written)
        if name in _NOT_TOOLS or len(name) < 2:
            continue
        version = match["version"]
        if not (match["word"] or match["plus"] or version.count(".") == 2):
            continue  # "PF 1.64", "Latency 1.22": a measure, not a release
        if qualified(claim[: match.start()]):
            continue  # "We plan to support Python 3.13+", "not on Node 18.19.0": not what it runs
        shown = f"{written} {version}{match['plus'] or ''}"
        scope = _SCOPE.match(claim, match.end())
        where = " ".join(scope["scope"].casefold().split()) if scope else ""
        release = tuple(int(part) for part in version.split("."))
        found.setdefault(name, set()).add((Version(bool(match["plus"]), release, where), shown))
    return [Mention(name, *next(iter(said))) for name, said in found.items() if len(said) == 1]


def _tool(written: str) -> str:
    name = written.casefold()
    name = ALIASES.get(name, name)
    return name.removesuffix(".js").replace("-", " ").strip()


def _conflicts(ctx: Context, said: Sequence[tuple[Fact, Mention]]) -> Iterator[Finding]:
    """Each statement that a later or higher one of the same tool contradicts, named beside the
    newest such statement (the highest where no date orders them). Statements are compared by
    version: each version stands for its newest dated and its first undated statement, so the
    work grows with the statements times the versions, and a tool given more than MAX_VERSIONS
    versions in one store is a table of releases, not a claim. Two statements of one slot
    ("runs on Python 3.12+") are the slot layer's to compare, and two items of one list or table
    ("- Python 3.11.4 in the api image", "- Python 3.12.1 in the worker image") are two subjects."""
    by_version: dict[Version, list[tuple[Fact, Mention]]] = {}
    for fact, mention in said:
        by_version.setdefault(mention.version, []).append((fact, mention))
    if len(by_version) < 2 or len(by_version) > MAX_VERSIONS:
        return
    standing = {version: _standing(group) for version, group in by_version.items()}
    for version, group in by_version.items():
        rivals = [pair for other, pairs in standing.items()
                  if other.scope == version.scope and _disagree(version, other) for pair in pairs]
        for fact, mine in group if rivals else ():
            newer = [(other, theirs) for other, theirs in rivals if _superseded(fact, mine, other, theirs)
                     and not (fact.slot and ctx.slot_key(fact) == ctx.slot_key(other)) and not _siblings(ctx, fact, other)]
            if not newer:
                continue
            kept, now = max(newer, key=lambda pair: (pair[0].observed_at or "", pair[1].version.release))
            why = "observed later" if observed_order(fact, kept) == -1 else "no date orders them; the lower version is flagged"
            yield fact_finding(
                "stale", fact,
                f"gives {mine.shown} here, but {kept.where} gives {now.shown} ({why}): {quote(kept.claim)!r}",
                related=[kept], layer="2c", extra={"how": SLOT},
            )


def _siblings(ctx: Context, a: Fact, b: Fact) -> bool:
    return a.shape not in NAMED_SHAPES and b.shape not in NAMED_SHAPES and ctx.one_run(a, b)


def _standing(group: Sequence[tuple[Fact, Mention]]) -> list[tuple[Fact, Mention]]:
    """The statements that speak for one version: its newest dated one and its first undated one."""
    dated = [pair for pair in group if pair[0].observed_at]
    undated = [pair for pair in group if not pair[0].observed_at]
    newest = [max(dated, key=lambda pair: pair[0].observed_at or "")] if dated else []
    return newest + undated[:1]


def _disagree(a: Version, b: Version) -> bool:
    """No version satisfies both: "3.8+" and "3.13+", "0.76.1" and "0.81.5", "3.13+" and "3.8.10"."""
    if a.minimum and b.minimum:
        return a.release != b.release
    if a.minimum or b.minimum:
        floor, release = (a.release, b.release) if a.minimum else (b.release, a.release)
        return release[: len(floor)] < floor
    shared = min(len(a.release), len(b.release))
    return a.release[:shared] != b.release[:shared]


def _superseded(a: Fact, mine: Mention, b: Fact, theirs: Mention) -> bool:
    """Whether b's statement supersedes a's: b is newer, or no date orders them and b's version is higher."""
    order = observed_order(a, b)
    return order == -1 if order is not None else mine.version.release < theirs.version.release
