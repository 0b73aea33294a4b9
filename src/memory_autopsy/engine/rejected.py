"""Layer 2b: a line that still relies on a name the store rejects.

A memory rejects a name in so many words: "Do NOT use `table_matchmaking`", "never call
`legacy_sync()`", "`venv/` (legacy — may only exist under themes/venv/)", or records it gone:
"Deleted: tests/test_quick.py", "`CORE_SCALE`/`CORONA_SCALE` consts removed", "renamed from
GodRaysPlugin → `PostFxPlugin`", "Renamed `fetchUsers` to `loadMembers`", "the Time tab
(formerly `game_tab`)", "Replaced `multiClick`
with `on:click`", "Migrated from setState to Provider", each code-like name of a list: "Dropped
columns: seed, output_size, image_data" (a thing "moved from `stores/`" leaves the folder,
which stays). Another state line that still takes that name as its value
("arena/regular from `table_matchmaking`", "**Venv**: `venv/` with playwright installed") or
runs it ("python tests/test_quick.py") tells the agent the opposite: it is `stale`, naming the
rejection. A name recorded gone is gone wherever a state line names it ("`GodRaysPlugin` is
constructed with …", "falls back to `initialTrips`"); one only discouraged or legacy is still
there to describe, and only a line that takes it as a value relies on it. Only code-like names
count (`snake_case`, `dotted.name`, `path/`, `camelCase`, and `PascalCase` of two humps where a
record removes or renames it; constants joined by slashes, "CORE_SCALE/CORONA_SCALE", are names
each): a plain word ("margins", "comments") is too common to pin a rejection on. A word between a name and "removed" names the name's own kind ("consts", "file")
or a thing built on it, which went while the name stays ("`minTrackingFrames` gate removed").
A line that itself negates, retires, replaces, deletes or renames stays quiet, as do
guidelines, events and tasks, and a line dated after the rejection (the name may be back).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from memory_autopsy import lazyre
from memory_autopsy.clauses import qualified
from memory_autopsy.cues import GONE_WORDS, REJECTS, rejection_words, retiring_words
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
# A name run by a command ("`uv run src/cli.py` (legacy direct)", "`python -m app.cli` (legacy
# module)"): the mark retires that way of running it, not the file or module, which stays.
_ARGUMENT = lazyre.compile(r"(?:\b(?:run|exec|npx|python3?|node|bun|deno|bash|sh)|\s-m)\s+[`'\"]?$")
# A type name of two humps or more ("GodRaysPlugin", "DebugOverlay2"): code-like only where a
# record removes or renames it, and looked up only as a name some record did.
TYPE_NAME = r"[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+"
_CONSTANT = lazyre.compile(r"[A-Z][A-Z0-9_]*")
_ANY_NAME = lazyre.compile(r"(?<![\w./-])(?:" + NAME + "|" + TYPE_NAME + r")(?![\w/])")
# A short description may stand between the verb and the name ("Removed the quick test script
# tests/test_quick.py", "deleted the unused helper `sync_all`"): lowercase words, none a
# preposition ("removed the import from `x.py`" removes nothing of x.py) nor a word that opens a
# clause of time, means or cause ("detections dropped before reaching `BallTracker`", "removed
# by calling `reset_all`": what is removed came before the verb), nor a copy's ("removed
# duplicate localStorage logic": the copy goes, the name stays).
_DESCRIBED = (
    r"(?:(?!(?:from|in|into|of|to|for|on|at|with|within|inside|under|and|or|all|any|its|their|before|after|"
    r"when|while|until|once|by|via|through|during|since|because|if|unless|as|so|then|than|between|per|"
    r"duplicated?|duplicates|double|doubled|repeated|copied|second|extra|stray)\b)"
    r"[a-z]{2,20}[ \t]+){0,3}"
)
# "Deleted: tests/test_quick.py", "removed `old_sync`", "renamed from GodRaysPlugin → PostFx…"
# Not its uses: "removed console.log statements", "removed `x` from the list" leave x in place;
# nor some of its parts: "deleted unused shadcn/ui components", "removed `utils/` files" leave
# the library or folder (a part named in the singular is the name's own kind: "`Button` component").
_ITS_USES = (r"(?![`*'\"]?[ \t]+(?i:statements?|calls?|imports?|usages?|references?|uses|lines?|logs?|from|in|"
             r"components|files|modules|functions|methods|classes|tests|fields|props|hooks|routes|endpoints|"
             r"tables|columns|types|helpers|scripts|packages|dependencies|icons|styles|pages|screens)\b)")
# "`CORE_SCALE`/`CORONA_SCALE` consts removed", "debug2-styles.ts was deleted", "GodRaysPlugin → PostFxPlugin (renamed)".
# A word between the name and the verb names the name's own kind ("consts", "file"); any other
# names a thing built on it, which went while the name stays ("`minTrackingFrames` gate removed").
_OWN_KIND = (r"(?i:const|constants?|consts|files?|functions?|methods?|class(?:es)?|fields?|modules?|folders?|"
             r"director(?:y|ies)|dirs?|packages?|dependenc(?:y|ies)|deps?|scripts?|types?|variables?|vars?|enums?|"
             r"tables?|columns?|endpoints?|routes?|hooks?|components?|helpers?|utils?|plugins?|crates?|librar(?:y|ies)|"
             r"services?|props?|settings?|options?|flags?|keys?|params?|parameters?|commands?|stubs?|mocks?|"
             r"fixtures?|structs?|interfaces?|traits?|models?|schemas?|workflows?|jobs?|tasks?|targets?|pipelines?|"
             r"tools?|integrations?|apps?|binar(?:y|ies)|images?|containers?|servers?)")
_WORD = r"[A-Za-z][A-Za-z0-9-]{1,40}"
# "Deleted: x", "removed the old `x`", "Dropped columns: x, y", "Files deleted: x".
_GONE_LEAD = (r"(?:\b(?:(?i:deleted|removed|dropped|replaced|renamed\s+from|formerly|"
              r"(?:migrated|switched)\s+(?:away\s+)?from)(?:\s+" + _OWN_KIND + r"\s*:)?|"
              + _OWN_KIND + r"\s+(?i:deleted|removed|dropped)\s*:)\s*:?\s+(?:(?i:the|a|an)\s+)?"
              r"(?i:old\s+|legacy\s+|unused\s+|redundant\s+)?" + _DESCRIBED + ")")
_GONE = lazyre.compile(_GONE_LEAD + r"[`*'\"]?(?P<name>" + NAME + "|" + TYPE_NAME + r")(?![\w/])" + _ITS_USES)
# More names of one record's list: "Deleted: `a.py`, `b.py` and `c.py`"; kept only when nothing
# after the list makes it a use of them ("removed `a`, `b` from the config").
_MORE = lazyre.compile(r"[`*'\"]?[ \t]{0,3}(?:,|&|\+|\b(?i:and|or)\b)[ \t]{0,3}(?i:and[ \t]{1,3})?[`*'\"]?(?P<name>"
                       + NAME + "|" + TYPE_NAME + r"|" + _WORD + r")(?![\w/])")
_LIST_END = lazyre.compile(r"(?<![ \t])[`*'\"]?" + _ITS_USES)  # read from a run of blanks' start only: linear
# A list a label opens ("Dropped columns: seed, output_size, image_data"): its items may be plain
# words, and only its code-like ones are recorded.
_COLON_LIST = lazyre.compile(r"\b(?:(?i:deleted|removed|dropped)(?:\s+" + _OWN_KIND + r")?|" + _OWN_KIND
                             + r"\s+(?i:deleted|removed|dropped))\s*:[ \t]*[`*'\"]?(?P<name>" + _WORD + r")(?![\w/])")
_GONE_AFTER = lazyre.compile(
    r"(?<![\w./-])(?P<name>" + NAME + "|" + TYPE_NAME + r")[`*'\"]?"
    r"(?:[ \t]*/[ \t]*[`*'\"]?(?P<second>" + NAME + "|" + TYPE_NAME + r")[`*'\"]?)?"
    r"[ \t]+(?:" + _OWN_KIND + r"[ \t]+)?(?i:(?:was|were|has\s+been|have\s+been|is|are)[ \t]+)?(?i:deleted|removed)\b"
)
_RENAMED = lazyre.compile(
    r"(?<![\w./-])(?P<name>" + NAME + "|" + TYPE_NAME + r")[`*'\"]?[ \t]*(?:→|->)[ \t]*[`*'\"]?(?:" + NAME + "|" + TYPE_NAME + r")"
    r"[`*'\"]?[ \t]*\(?(?i:renamed)\b"
)
# "Renamed `fetchUsers` to `loadMembers`", "`old_sync` was renamed to `sync`": the name before
# "to" is renamed away (a thing "renamed to `x`" names only where it went).
_RENAMED_TO = lazyre.compile(
    r"\b(?i:renamed)[ \t]+(?:(?i:the)[ \t]+)?(?:" + _OWN_KIND + r"[ \t]+)?[`*'\"]?(?P<name>" + NAME + "|" + TYPE_NAME
    + r")[`*'\"]?[ \t]+(?i:to|into|as)[ \t]"
    r"|(?<![\w./-])(?P<before>" + NAME + "|" + TYPE_NAME + r")[`*'\"]?[ \t]+(?:" + _OWN_KIND + r"[ \t]+)?"
    r"(?i:(?:was|were|has[ \t]+been|have[ \t]+been|is|are|got)[ \t]+)?(?i:renamed)[ \t]+(?i:to|into|as)[ \t]"
)
# A name taken as a clause's value: right after a frame word, or opening a labelled value.
_FRAME_WORD = lazyre.compile(
    r"(?i:\b(?:from|uses?|using|via|through|with|reads?|in|run|runs|python3?|node|bash|pytest))\s+$")
_CLAUSE = lazyre.compile(r"[;.](?:\s|$)")
_QUIET = lazyre.compile(
    r"(?i)\b(?:not|never|no|no\s+longer|don'?t|avoid|wrong|legacy|deprecated|obsolete|rejected|removed|"
    r"replaced|instead|historical|used\s+to|old|formerly|previously|was|were|"
    r"delete[ds]?|deleting|remove[s]?|removing|rename[ds]?|renaming)\b"
)
_PARENS = lazyre.compile(r"\([^()]*\)")
LABEL_WIDTH = 40
# A removal record or a line relying on a gone name is a claim, not a pasted document: past this
# many characters a text is a narrative ("…still has references to X that need removing").
MAX_RECORD = 400
MAX_NAMES = 200
MAX_LISTED = 50  # names one record lists after its first


def find(ctx: Context) -> Iterator[Finding]:
    rejections, gone = _rejections(ctx)
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
        hit = _relied_on(fact.claim, rejections, gone, fact)
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


def _rejections(ctx: Context) -> tuple[dict[str, Fact], set[str]]:
    """Each rejected name and the fact whose rejection reaches furthest: an undated one (it has
    no order with anything), else the newest (a line dated after it may have brought the name
    back). One per name keeps the lookup per claim constant. Also the names whose fact records
    them removed or renamed, not only discouraged or legacy (the thing is still there to
    describe, so a line opening with it is no reliance)."""
    retiring = retiring_words(ctx.lexicon)
    hint = rejection_words(retiring)
    found: dict[str, Fact] = {}
    gone: set[str] = set()
    for fact in ctx.cued(REJECTS):
        text = ctx.norm_body(fact)  # lower-cased once for every layer: a substring test is cheap
        if not holds_any(text, hint):
            continue
        claim = fact.claim
        names = [m["name"] for m in _PROHIBITION.finditer(claim)]
        names += [m["name"] for m in _MARKED.finditer(claim)
                  if m["word"].casefold() in retiring and not _ARGUMENT.search(claim, max(0, m.start() - 16), m.start())]
        removed = gone_names(claim) if len(claim) <= MAX_RECORD and holds_any(text, GONE_WORDS) else []
        names += removed
        for name in (one for said in names for one in _alternatives(said.rstrip("."))):
            kept = found.get(name)
            if kept is None or kept.observed_at and (not fact.observed_at or fact.observed_at > kept.observed_at):
                found[name] = fact
                if name in removed:
                    gone.add(name)
                else:
                    gone.discard(name)
    return found, gone


def gone_names(claim: str) -> list[str]:
    """The names a claim records removed or renamed away, each of slashed constants apart; not
    under a condition, a plan or a negation in the clause before ("Once `RabbitMQ` is removed,
    …", "when `old_jobs` are deleted")."""
    names = [m["name"] for m in _RENAMED.finditer(claim) if not qualified(claim[:m.start()])]
    names += [m["name"] or m["before"] for m in _RENAMED_TO.finditer(claim) if not qualified(claim[:m.start()])]
    for match in _GONE.finditer(claim):
        if not qualified(claim[:match.start()]):
            names.append(match["name"])
            names += _listed(claim, match.end())
    for match in _COLON_LIST.finditer(claim):  # a list opening with a plain word
        if not _ANY_NAME.fullmatch(match["name"]) and not qualified(claim[:match.start()]):
            names += _listed(claim, match.end())
    for match in _GONE_AFTER.finditer(claim):
        if not qualified(claim[:match.start()]):
            names += [n for n in (match["name"], match["second"]) if n]
    return [one for name in names for one in _alternatives(name.rstrip("."))]


def _listed(claim: str, at: int) -> list[str]:
    """The names a record's list goes on with from `at`, up to MAX_LISTED."""
    more: list[str] = []
    while len(more) < MAX_LISTED and (match := _MORE.match(claim, at)):
        more.append(match["name"])
        at = match.end()
    return [n for n in more if _ANY_NAME.fullmatch(n)] if more and _LIST_END.match(claim, at) else []


def _alternatives(name: str) -> list[str]:
    """The names a name stands for: constants joined by slashes are alternatives, not a path
    ("CORE_SCALE/CORONA_SCALE", "SUNRISE/SUNSET/MAX_ELEVATION/")."""
    if "/" in name:
        parts = [part for part in name.split("/") if part]
        if len(parts) > 1 and all(_CONSTANT.fullmatch(part) for part in parts):
            return parts
    return [name]


def _names_pattern(rejections: dict[str, Fact]) -> re.Pattern[str] | None:
    """A search that finds a claim naming a rejected name (or, past MAX_NAMES names, any
    code-like name: an alternation that long would cost more than the lookup it saves); None
    for no name."""
    if not rejections:
        return None
    if len(rejections) > MAX_NAMES:
        return _ANY_NAME
    alternation = "|".join(re.escape(n) for n in sorted(rejections, key=len, reverse=True))
    return re.compile(r"(?<![\w.-])(?:" + alternation + r")(?!\w)")  # one of "A_B/C_D" too


def _relied_on(claim: str, rejections: dict[str, Fact], gone: set[str], fact: Fact) -> tuple[str, Fact] | None:
    for clause in _CLAUSE.split(claim):
        if _QUIET.search(_PARENS.sub(" ", clause)):  # "(so we don't mislabel)" negates nothing around it
            continue
        colon = clause.find(":", 0, LABEL_WIDTH + 1)
        value_at = -1  # where a labelled value starts: past the colon, blanks and emphasis
        if colon != -1:
            value_at = colon + 1
            while value_at < len(clause) and clause[value_at] in " *_`":
                value_at += 1
        for match, name in ((m, one) for m in _ANY_NAME.finditer(clause) for one in _alternatives(m.group().rstrip("."))):
            rejection = rejections.get(name)
            if rejection is None or (rejection.path, rejection.line) == (fact.path, fact.line):
                continue
            if observed_order(rejection, fact) == -1:
                continue  # dated after the rejection: the name may be back
            start = match.start()
            if start == value_at or _FRAME_WORD.search(clause, max(0, start - 12), start):
                return name, rejection
            if name in gone and len(claim) <= MAX_RECORD:  # a name recorded deleted or renamed away
                return name, rejection  # is named nowhere as there, wherever the line names it
    return None
