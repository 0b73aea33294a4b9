"""Layer 2: a fact carrying a transition trigger retracts what another fact asserts.

Linear by construction: per entity, each retracted phrase keeps only the retractions that can
flag anything (the undated ones and the newest dated one), and each fact looks up the phrases
its own words name, instead of every retraction scanning every fact.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from memory_autopsy.claims import Transition, find_transition
from memory_autopsy.cues import RETRACTS
from memory_autopsy.engine.context import Context, fact_body, observed_order
from memory_autopsy.engine.findings import fact_finding, quote
from memory_autopsy.lexicon import Lexicon
from memory_autopsy.model import Fact, Fidelity, Finding
from memory_autopsy.normalize import STOPWORDS, entity_form, normalize_claim, stem, tokens

# Words of a normalized claim that negate it ("isn't" normalizes to "isn t").
_NEGATING = frozenset({"not", "never", "isn", "doesn", "don", "aren", "wasn", "weren", "won"})
# A claim that itself retracts or replaces says the same as the retraction, not the opposite.
_RETRACTING = frozenset("""replace replaces replacing replaced migrate migrating migrated switch switching
    remove removing removed deprecate deprecating deprecated drop dropping dropped retire retiring
    retired sunset sunsetting abandon abandoning abandoned decommission decommissioning rename renaming renamed
    gone""".split())
_COPULAS = frozenset("is are was were remains stays has have runs handles serves stores hosts".split())
# Phrases looked at per shared non-head word (the two-shared-words match): bounds a hot entity.
_PHRASES_PER_WORD = 64

Retraction = tuple[Fact, Transition]


@dataclass
class _Phrase:
    """One retracted noun phrase and the retractions that can still flag something."""

    anchors: tuple[str, ...]
    undated: list[Retraction] = field(default_factory=list)
    newest: Retraction | None = None

    def add(self, retraction: Retraction) -> None:
        fact = retraction[0]
        if not fact.observed_at:
            self.undated.append(retraction)
        elif self.newest is None or (self.newest[0].observed_at or "") < fact.observed_at:
            self.newest = retraction

    def trigger_for(self, target: Fact) -> Retraction | None:
        """The first retraction (in input order) that is newer than `target` or unordered with
        it; targets are never retractions themselves, so an undated one always applies."""
        best = self.undated[0] if self.undated else None
        if self.newest is not None and observed_order(self.newest[0], target) != -1:
            if best is None or self.newest[0].order < best[0].order:
                best = self.newest
        return best


def find(ctx: Context) -> tuple[list[Finding], set[tuple[int, int]]]:
    """Findings plus the (flagged, trigger) pairs, so later layers do not repeat them."""
    findings: list[Finding] = []
    pairs: set[tuple[int, int]] = set()
    for form, facts in ctx.active_by_entity.items():
        if not ctx.in_focus(form):
            continue
        retractions = _retractions(ctx, facts)
        if not retractions:
            continue
        caused: dict[tuple[int, str], list[tuple[Fact, Retraction, str]]] = {}
        for target, retraction, anchor in _matches(ctx, facts, retractions):
            pairs.add((target.order, retraction[0].order))
            caused.setdefault((retraction[0].order, target.path), []).append((target, retraction, anchor))
        for group in caused.values():  # one retraction, one finding per file it reaches
            target, (trigger, transition), anchor = group[0]
            findings.append(_finding(target, trigger, transition, anchor, [g[0] for g in group[1:]]))
    return findings, pairs


def across(ctx: Context) -> list[Finding]:
    """Store-wide: a dated log entry's retraction ("## 2026-03-01 / - Migrated the job queue off
    Redis to pg-boss" in a decision log) of what another entity of the same store still asserts
    as current (the tech context's "The job queue runs on BullMQ backed by Redis"). The entity
    pass (`find`) judges retractions within one entity; here only a dated entry that names no
    subject of its own counts, against a fact older than it or undated that holds the whole
    retracted phrase, and the judges grade the pair (`how`: across) by how such pairs fared on
    the dev part."""
    by_store: dict[str, list[Fact]] = {}
    for fact in ctx.active:
        by_store.setdefault(ctx.store_key(fact), []).append(fact)
    findings: list[Finding] = []
    for facts in by_store.values():
        retractions = [r for r in _retractions(ctx, facts) if r[0].observed_at and _speaks_for_store(r[0])]
        if not retractions:
            continue
        caused: dict[tuple[int, str], list[tuple[Fact, Retraction, str]]] = {}
        for target, retraction, anchor in _matches(ctx, facts, retractions):
            if target.entity != retraction[0].entity and _holds_as_current(ctx, target, retraction):
                caused.setdefault((retraction[0].order, target.path), []).append((target, retraction, anchor))
        for group in caused.values():
            target, (trigger, transition), anchor = group[0]
            findings.append(_finding(target, trigger, transition, anchor, [g[0] for g in group[1:]], how="across"))
    return findings


def _speaks_for_store(fact: Fact) -> bool:
    """A log's entry that names no subject of its own (its entity is its file's: "## 2026-03-01"
    in decisionLog.md) speaks for the store; a retraction under a named subject ("## Umbrella",
    "- left Northwind") is that subject's alone."""
    return entity_form(fact.entity) == entity_form(PurePosixPath(fact.path).stem)


def _holds_as_current(ctx: Context, target: Fact, retraction: Retraction) -> bool:
    """Across entities a shared head word is not enough ("removed the diagnostic logging" is
    not "uses the logging module"): the fact holds the whole retracted phrase, of the same
    version where both name one ("off PostgreSQL 14" leaves "PostgreSQL 16" standing), and not
    as what it turns down ("Use Upstash over Memorystore")."""
    trigger, transition = retraction
    words = ctx.words(target)
    if not all(word in words for word in transition.anchors):
        return False
    body = ctx.norm_body(target).split()
    mine, theirs = _version_after(body, transition.head), _version_after(ctx.norm_body(trigger).split(), transition.head)
    if mine and theirs and mine != theirs:
        return False
    at = [i for i, word in enumerate(body) if word == transition.head]
    return not any(body[i - 1] in _TURNED_DOWN or " ".join(body[max(0, i - 2):i]) in _TURNED_DOWN
                   for i in at if i > 0) if at else True


def _version_after(body: list[str], head: str) -> str:
    """The version written right after the name ("postgresql 14"), or ""."""
    at = next((i for i, word in enumerate(body) if word == head), -1)
    following = body[at + 1] if 0 <= at < len(body) - 1 else ""
    return following.lstrip("v") if following[:1].isdigit() or following[:1] == "v" and following[1:2].isdigit() else ""


# What a fact says just before a name it turns down: "Upstash over Memorystore", "instead of X".
_TURNED_DOWN = frozenset({"over", "not", "no", "without", "from", "replacing", "replaced", "instead of",
                          "rather than", "than", "vs", "versus", "off"})


def _retractions(ctx: Context, facts: Sequence[Fact]) -> list[Retraction]:
    found = []
    cued = ctx.trusts(RETRACTS)
    for fact in facts:
        if fact.fidelity is Fidelity.FULL or (cued and not fact.cues & RETRACTS):
            continue
        transition = find_transition(fact_body(fact), ctx.vocabulary)
        if transition is not None:
            found.append((fact, transition))
    return found


def _matches(
    ctx: Context, facts: Sequence[Fact], retractions: list[Retraction]
) -> Iterator[tuple[Fact, Retraction, str]]:
    phrases: dict[tuple[str, ...], _Phrase] = {}
    by_head: dict[str, _Phrase] = {}  # every phrase with one head matches alike on that head
    for retraction in retractions:
        anchors = retraction[1].anchors
        phrases.setdefault(anchors, _Phrase(anchors)).add(retraction)
        by_head.setdefault(anchors[-1], _Phrase(anchors[-1:])).add(retraction)
    by_word: dict[str, list[_Phrase]] = {}  # the first _PHRASES_PER_WORD phrases holding a word
    for phrase in phrases.values():
        if len(phrase.anchors) > 1:
            for word in phrase.anchors:
                listed = by_word.setdefault(word, [])
                if len(listed) < _PHRASES_PER_WORD:
                    listed.append(phrase)
    pairs = _pairs(by_word)
    spelled = _spellings(ctx, set(by_head) | set(by_word))
    triggers = {fact.order for fact, _ in retractions}
    needed = _needed(ctx, facts, retractions)
    for fact in facts:
        if fact.order in triggers or fact.kind != "state":  # guidelines, events, tasks assert no state
            continue
        body = ctx.norm_body(fact).split()
        latin = _latin_names(fact)  # "Provider/Bloc/Riverpod状态管理": names written against ideographs
        if spelled.isdisjoint(body + latin + fact.value.lower().split()):
            continue
        words = ctx.words(fact).union(latin)
        if needed is not None and not needed(fact, words):
            continue
        if words & _NEGATING or " no longer " in f" {ctx.norm_body(fact)} " or _RETRACTING & set(body):
            continue
        match = _match(fact, words, by_head, pairs)
        if match is not None and not _one_item(fact, match[0][0]) and _asserts(ctx, fact, body, match[1]) \
                and _same_subject(body, match):
            yield (fact, *match)


_ITEM_SHAPES = frozenset({"markdown", "table"})  # where the facts of one line are one item


def _one_item(fact: Fact, trigger: Fact) -> bool:
    """Two sentences of one markdown item (a table row's cells, a bullet's clauses: "X no longer
    marks windows active; refreshed the active window on every message") tell one story: the
    item retracts nothing it holds itself. Records of a JSON document or observations of a
    graph entity share a line and are items of their own."""
    return fact.shape in _ITEM_SHAPES and trigger.shape in _ITEM_SHAPES \
        and (fact.path, fact.line) == (trigger.path, trigger.line)


def _needed(
    ctx: Context, facts: Sequence[Fact], retractions: list[Retraction]
) -> Callable[[Fact, set[str]], bool] | None:
    """With a focus (the hook's changed files), whether a fact's trigger is worth finding: a
    finding touches a changed file through its target or its trigger, and the slot layer skips
    the retracted facts of the slot groups it reads (those a changed file fills). A fact whose
    words hold no anchor of a changed file's retractions has no trigger there."""
    files = ctx.settings.focus
    if files is None:
        return None
    slot_key = ctx.slot_key
    groups = {slot_key(fact) for fact in facts if fact.path in files and fact.slot}
    anchors = {w for fact, transition in retractions if fact.path in files for w in transition.anchors}

    def needed(fact: Fact, words: set[str]) -> bool:
        return (fact.path in files or not anchors.isdisjoint(words)
                or bool(fact.slot) and slot_key(fact) in groups)

    return needed


# word -> another word -> the phrases listed under the first that hold the second (the word
# itself when a phrase holds it twice)
Pairs = dict[str, dict[str, list[_Phrase]]]


def _pairs(by_word: dict[str, list[_Phrase]]) -> Pairs:
    """A phrase of several words flags a fact sharing two of them: indexed by word pairs, a
    fact finds those phrases through two of its words at once, in C, where looking through
    each of its words' phrases (64 a word on a hot entity) took the layer's time."""
    pairs: Pairs = {}
    for word, listed in by_word.items():
        partners: dict[str, list[_Phrase]] = {}
        for phrase in listed:
            for other in set(phrase.anchors):
                if other != word or phrase.anchors.count(word) > 1:
                    partners.setdefault(other, []).append(phrase)
        pairs[word] = partners
    return pairs


def _match(
    fact: Fact, words: set[str], by_head: dict[str, _Phrase], pairs: Pairs
) -> tuple[Retraction, str] | None:
    candidates: list[tuple[Retraction, str]] = []
    for word in words & by_head.keys():
        retraction = by_head[word].trigger_for(fact)
        if retraction is not None and not _narrative(fact, retraction[0]):
            candidates.append((retraction, word))
    for word in words & pairs.keys():  # a phrase sharing two words (or one twice) with the fact
        partners = pairs[word]
        for other in words & partners.keys():
            for phrase in partners[other]:
                retraction = phrase.trigger_for(fact)
                if retraction is not None and not _narrative(fact, retraction[0]):
                    candidates.append((retraction, " ".join(w for w in phrase.anchors if w in words)))
    return min(candidates, key=lambda c: c[0][0].order) if candidates else None


def _narrative(fact: Fact, trigger: Fact) -> bool:
    """Two facts of one dated entry tell a story (a problem, then its fix), never a conflict."""
    return bool(fact.entry) and fact.entry == trigger.entry


def _latin_names(fact: Fact) -> list[str]:
    """The Latin-script words of a claim written in ideographs (none for a Latin claim)."""
    return [] if fact.claim.isascii() else tokens(fact.claim)


def _asserts(ctx: Context, fact: Fact, body: list[str], anchor: str) -> bool:
    """Whether the fact states the retracted phrase as current state: the value of a slot frame
    (`uses X`, `works at X`, `tool = "X"`), or the subject of a copula (`X is active`); a mere
    mention ("the X docs mention …") is not an assertion. In Chinese or Japanese: the name
    beside a verb of using ("使用 Redis", "Redis を採用") or the value of a label ("TTS：X")."""
    if not fact.claim.isascii():
        return _ideograph_asserts(fact.claim, anchor, ctx.lexicon)
    words = anchor.split()
    if fact.slot and fact.value:
        value = normalize_claim(fact.value).split()
        synonyms = ctx.vocabulary.synonyms
        if any(w in value or any(synonyms.get(v) == w for v in value) for w in words):
            return True
    for index, word in enumerate(body[:8]):
        if word in _COPULAS:
            return any(w in body[:index] for w in words)
    return False


_NEAR = 8  # characters between a verb of using and the name it governs ("使用了 Redis", "Redis を使用")
_LABEL_VALUE = 24  # how far into a label's value its first item reaches


def _ideograph_asserts(claim: str, anchor: str, lexicon: Lexicon) -> bool:
    text = claim.casefold()
    at = text.find(anchor.split()[-1])
    if at < 0 or any(word in text for word in (*lexicon.transition_hedges, *lexicon.state_negations)):
        return False
    colon = min((i for i in (text.find(":"), text.find("：")) if i >= 0), default=-1)
    if 0 <= colon < at <= colon + _LABEL_VALUE:
        return True
    return any(verb in text[max(0, at - _NEAR): at + len(anchor) + _NEAR] for verb in lexicon.state_verbs)


def _same_subject(body: list[str], match: tuple[Retraction, str]) -> bool:
    """Whether the retraction may be about the fact's own subject: a clause that names what
    left ("the billing service moved off Redis") retracts nothing of a fact whose own subject
    shares no word with it ("the job queue uses Redis"). A fact or a clause naming no subject
    ("uses Redis", "we moved off Redis") may be about anything."""
    subject = {stem(w) for w in match[0][1].subject}
    if not subject:
        return True
    anchor = set(match[1].split())
    own = [w for w in body[: next((i for i, w in enumerate(body) if w in anchor), len(body))]
           if w not in STOPWORDS and w not in _COPULAS and w not in _SUBJECTLESS and not w[0].isdigit()]
    return not own or not subject.isdisjoint(stem(w) for w in own)


# The first words of a fact that are its verb, not its subject ("uses Redis", "now runs on X").
_SUBJECTLESS = frozenset("use uses using now currently still runs run relies depends on".split())


def _spellings(ctx: Context, needed: set[str]) -> set[str]:
    synonyms = ctx.vocabulary.synonyms
    return needed | {raw for raw, canonical in synonyms.items() if canonical in needed}


def _finding(
    target: Fact, trigger: Fact, transition: Transition, anchor: str, others: Sequence[Fact] = (), how: str = "",
) -> Finding:
    when = "a newer fact" if observed_order(trigger, target) == 1 else "a fact of no known order"
    message = (
        f"stated here, but {when} at {trigger.where} retracts {anchor!r} ({transition.trigger!r}): "
        f"{quote(trigger.claim)!r}"
    )
    extra: dict[str, object] = {"trigger": transition.trigger, "anchor": anchor, "survivor_date": trigger.observed_at}
    if how:
        extra["how"] = how
    if others:  # one cause, one finding: the other facts it retracts are named, not re-reported
        message += f"; it also retracts {len(others)} more: " + ", ".join(o.where for o in others[:5])
        extra["also_flagged"] = [o.where for o in others]
    return fact_finding(
        "contradicted_explicit", target, message, related=[trigger], extra=extra,
    )
