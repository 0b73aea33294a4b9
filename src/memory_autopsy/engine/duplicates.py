"""Layer 1: exact duplicates by normalized hash, near-duplicates by trigram prefix filtering."""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from functools import lru_cache
from typing import NamedTuple

from memory_autopsy import lazyre
from memory_autopsy.claims import denies
from memory_autopsy.engine.context import Context
from memory_autopsy.engine.findings import fact_finding, quote, touches_changed
from memory_autopsy.lexicon import Lexicon
from memory_autopsy.model import Fact, Fidelity, Finding
from memory_autopsy.normalize import STOPWORDS, entity_form, normalize_claim, stem, trigrams

THRESHOLD = 0.91
# Claims kept per blocking key: a hot entity of templated claims stays linear.
BUCKET_LIMIT = 8
KEPT = 25_000  # candidates whose trigrams `_grams` keeps, per entity and file
_MOD = (1 << 61) - 1  # blocking keys are hashes modulo a Mersenne prime
_BASE = 1_000_003
_NUMBER_WORD = lazyre.compile(r"(?<!\S)[^\s\d]*\d\S*")  # a word with a digit: one pass per word
SHORT_KEY = 24  # words: up to here a key hashes its tuple
COPIED_WORDS = 15  # a claim this long, said again word for word, was copied, not reported again

# A hash of a claim's words (or of its words less one), its word count in it: a tuple's hash
# counts its length, a polynomial key carries it above its 61 bits. An int, not a (count, hash)
# pair: a hot entity's claims make ten keys each, each looked up and filed in a dictionary.
Key = int
_CAMEL = lazyre.compile(r"(?<=[a-z0-9])(?=[A-Z])")  # "turnManager": two words
# A name of code: a file ("test_utils.py"), a path, an identifier with an inner capital or an
# underscore ("PageGenerator", "page_generator").
_CODE_NAME = lazyre.compile(r"\w\.[A-Za-z]|/\w|[a-z][A-Z]|[A-Za-z]_[A-Za-z]")


def exact(ctx: Context, in_blocks: set[int] | None = None) -> tuple[list[Finding], set[int]]:
    """Later copies of a claim already stored for the same entity; returns their orders too.
    Facts inside a copied block are reported once, for the block."""
    findings: list[Finding] = []
    flagged: set[int] = set(in_blocks or ())
    norm_body = ctx.norm_body
    # With a focus (the hook's changed files), the copies of a claim no changed file holds are
    # never compared.
    held = ctx.focus_claims
    for form, facts in ctx.by_entity.items():
        if not ctx.in_focus(form):
            continue
        # A table per entity (a copy is of the same entity): one for the whole store outgrows the
        # processor's caches on a large store, and each lookup then waits on memory.
        first: dict[tuple[str, str | None, str | None], Fact] = {}
        for fact in facts:
            norm = fact.norm or norm_body(fact)
            if held is not None and norm not in held:
                continue
            key = (norm, fact.valid_from, fact.valid_to)
            original = first.setdefault(key, fact)
            if original is fact or fact.order in flagged:
                continue
            if _other_status(fact, original) or _repeated_event(fact, original) and not _copied_whole(norm):
                continue  # `- [ ] x` beside `- [x] x` is a status conflict; a log repeats events
            flagged.add(fact.order)
            findings.append(
                fact_finding(
                    "duplicate", fact,
                    f"identical to {original.path}:{original.line} {quote(original.claim)!r} "
                    "(normalized hash match)",
                    related=[original], symmetric=True,
                )
            )
    return findings, flagged


SENTENCE_WORDS = 6  # a claim this long, stored word for word under another entity, is one claim twice
SENTENCE_NAMES = 4  # … when that many of its words are words (a timestamp or a code is no sentence)


def across_entities(ctx: Context, in_blocks: set[int]) -> Iterator[Finding]:
    """A sentence stored word for word under two entities of a store (two sections, two graph
    entities, the same rule in two files): the per-entity pass sees one entity at a time, and
    a heading above a copy is no new subject. Each entity's first copy of the sentence after
    the first entity's is flagged (later copies within an entity are that pass's); a short
    claim ("Status: done", "625 tests passing") may be true of two subjects, and so is a
    predicate whose subject is its entity ("runs on the shared cluster" under "## search-index"
    and under "## metrics-store", "Takes the page as a prop" observed of two components): both
    are left alone, as are results reported again in a log and a copy with another status."""
    held = ctx.focus_claims
    first: dict[tuple[str, str | None, str | None], tuple[Fact, set[str]]] = {}
    for fact in ctx.facts:
        if fact.order in in_blocks:
            continue
        norm = ctx.norm_body(fact)
        if norm.count(" ") < SENTENCE_WORDS - 1 or held is not None and norm not in held:
            continue
        if sum(1 for word in norm.split() if len(word) > 2 and word.isalpha()) < SENTENCE_NAMES:
            continue
        if _predicate(fact.claim):
            continue
        key = (norm, fact.valid_from, fact.valid_to)
        seen = first.get(key)
        form = entity_form(fact.entity)
        if seen is None:
            first[key] = (fact, {form})
            continue
        original, forms = seen
        if form in forms:
            continue
        forms.add(form)
        if _other_status(fact, original) or _reported_again(fact, original) and not _copied_whole(norm):
            continue
        yield fact_finding(
            "duplicate", fact,
            f"identical to {original.path}:{original.line} {quote(original.claim)!r} "
            "(normalized hash match, under another heading or entity)",
            related=[original], symmetric=True,
        )


def near(ctx: Context, skip: set[int]) -> Iterator[Finding]:
    """Prose claims only: two explicit records that nearly match are a slot question. Within one
    entity of one file, where a word or two may differ (a restatement elsewhere in the store
    must say no word the other lacks on both sides: `restated_across`). A finding is about one
    file, so a focused run (the hook's changed files) reads those files only."""
    files = ctx.settings.focus
    for form, facts in ctx.by_entity.items():
        if not ctx.in_focus(form):
            continue
        by_file: dict[str, list[Fact]] = {}
        for fact in facts:
            if fact.order not in skip and fact.fidelity is not Fidelity.FULL and (files is None or fact.path in files):
                by_file.setdefault(fact.path, []).append(fact)
        for prose in by_file.values():
            if len(prose) > 1:
                found = list(_near_in_entity(ctx, prose))
                yield from found
                taken = {f.fact_ids[0] for f in found}
                yield from _restatements(ctx, [f for f in prose if f.id not in taken])


def _near_in_entity(ctx: Context, facts: Sequence[Fact]) -> Iterator[Finding]:
    """Block by word-deletion keys (claims one word apart), then let trigram cosine decide.
    A key holds its first claim as an int, a list from its second: most keys of a hot entity
    hold one claim, and a list each was a quarter of the layer's memory."""
    buckets: dict[Key, int | list[int]] = {}
    grams: dict[int, frozenset[str] | None] = {}
    for i, fact in enumerate(facts):
        words = ctx.norm_body(fact).split()
        if len(words) < 2:
            continue
        keys = deletion_keys(words)
        match = _best_match(ctx, facts, grams, buckets, i, keys)
        if match is not None:
            j, score = match
            other = facts[j]
            yield fact_finding(
                "near_duplicate", fact,
                f"near-duplicate of {other.path}:{other.line} {quote(other.claim)!r} "
                f"(trigram similarity {score:.2f})",
                related=[other], confidence=score, symmetric=True, extra={"how": "letters"},
            )
        for key in keys:
            bucket = buckets.get(key)
            if bucket is None:
                buckets[key] = i
            elif isinstance(bucket, int):
                buckets[key] = [bucket, i]
            elif len(bucket) < BUCKET_LIMIT:
                bucket.append(i)


RESTATED = 0.7  # Jaccard of stemmed content words for a restatement in other words
NODES_RESTATED = 0.9  # the same, for two graph nodes: a node's description fits its siblings too
MIN_RESTATED_WORDS = 5
MIN_ITEMS, ITEM_WORDS, MAX_LIST, LIST_WORDS = 3, 4, 300, 6
FORM_LETTERS = 4  # the shortest stem `_one_word` reads as another form of a longer one
# Words no restatement keeps: auxiliaries, and "use", which a stack claim says or leaves to a
# label ("Frontend uses Next.js 15" / "**Frontend Framework:** Next.js 15").
_AUXILIARY = frozenset("was were is are be been being has have had will would use uses used using".split())
# Where a claim's sentences part: after a full stop before a capital, and at a dash or a
# semicolon that opens a clause of its own ("Imports must be idempotent via importHash — a
# re-import is a no-op"): the part before it may be a claim stored elsewhere alone.
_SENTENCE = lazyre.compile(r"(?<=[.!?])\s+(?=[A-Z])|\s[—–]\s+|;\s+")
_LABEL = lazyre.compile(r"(?P<label>[^:\s][^:]{0,39}):\s+(?P<value>\S.*)", re.S)


class _Unit(NamedTuple):
    """One sentence of a claim, as stemmed content words; `value` drops a leading label."""

    fact: Fact
    words: frozenset[str]
    label: frozenset[str]
    value: frozenset[str]
    listed: bool  # the value is an enumeration ("feature flags, testing, rollback plan")


def restated_across(ctx: Context, in_blocks: set[int]) -> Iterator[Finding]:
    """A claim restated in other words elsewhere in its store: under another heading ("Execute commands
    directly rather than just suggest them" under "Workflow", "**Always execute commands directly
    rather than just suggest them**" under "User Preferences"), or in another file (a rule in
    CLAUDE.md and again in a rules file, a stack in the brief and in the tech context), as a whole
    or one sentence of it inside a longer claim. The per-entity pass compares one entity's claims
    within one file; a heading above a restatement is no new subject. Left alone: a task listed in
    two files (a memory bank's next steps and its progress list one plan by design; a status told
    apart is the status layer's), two predicates of two entities ("Provides persistent memory",
    "Runs on the shared cluster": each subject is its entity, unless one entity names the other's
    subject again with a word of revision, "Component Structure Update"; one predicate restated
    as a field, "Uses TanStack Query for data fetching" / "**Data Fetching:** TanStack Query", is
    one claim),
    two records (a name the store gave is a subject), two observations of two graph nodes opening
    with a participle ("Located in src/x.ts": each said of its node, as a verb's is) or sharing less
    than NODES_RESTATED of their words (a description each node fits), two claims each naming its
    own entity, and a result a log reports again on another day. Two graph nodes otherwise hold one
    claim twice as two headings do ("Default limit is 25 tool calls per session" on "Tool Usage
    Limits" and "Default tool call limit is 25 per session" on "Configuration")."""
    files = ctx.settings.focus
    by_store: dict[str, list[Fact]] = {}
    store_of: dict[str, list[Fact]] = {}  # a file's store's list, looked up once per file
    for fact in ctx.facts:
        if fact.fidelity is Fidelity.FULL or _too_short(fact) or fact.order in in_blocks:
            continue  # a record's, too short for any restatement, or a pasted block's
        kept = store_of.get(fact.path)
        if kept is None:
            kept = store_of[fact.path] = by_store.setdefault(ctx.store_key(fact), [])
        kept.append(fact)
    for facts in by_store.values():
        if files is None:
            yield from _restatements(ctx, facts, apart=True)
        elif any(f.path in files for f in facts):
            # With a focus (the hook's changed files), the whole store is compared, so that a
            # finding touching a changed file is the one a full run makes, then kept.
            yield from (f for f in _restatements(ctx, facts, apart=True) if touches_changed(f, files))


def _restatements(ctx: Context, facts: Sequence[Fact], apart: bool = False) -> Iterator[Finding]:
    """"Updates X to support Y" restated as "X was updated to support Y", "Provides structured
    reasoning, persistent memory" as "Provides a structured environment for reasoning,
    persistent memory": the same content words (stemmed) in another order, voice or with a
    word or two more, sentence by sentence. Two items under one label ("Git repo: a/themes",
    "Git repo: a/tracker") are compared by what follows the label. Candidates come from
    prefix filtering (rarest words first): linear in the claims, capped per word."""
    units = [u for fact in facts for u in _units(fact, whole=apart)]
    if len(units) < 2:
        return
    df: dict[str, int] = {}
    for unit in units:
        for word in unit.words:
            df[word] = df.get(word, 0) + 1
    index: dict[str, list[_Unit]] = {}
    flagged: set[int] = set()
    for unit in units:
        prefix = _prefix(unit.words, df)  # under one label, values alike make all words alike
        if unit.listed:  # one list under two labels: the values alone must find each other
            prefix += [w for w in _prefix(unit.value, df) if w not in prefix]
        if unit.fact.order not in flagged:
            match = _restated(ctx, unit, prefix, index, apart)
            if match is not None:
                other, score = match
                flagged.add(unit.fact.order)
                yield fact_finding(
                    "near_duplicate", unit.fact,
                    f"restates {other.where} {quote(other.claim)!r} in other words (shared words {score:.2f})",
                    related=[other], confidence=score, symmetric=True, extra={"how": "words"},
                )
        for word in prefix:
            bucket = index.setdefault(word, [])
            if len(bucket) < BUCKET_LIMIT:
                bucket.append(unit)


def _one_place(a: Fact, b: Fact) -> bool:
    """Two claims read at one place are parts of one item: a table row's cells, a record's fields."""
    return a.line == b.line and a.obs == b.obs and a.path == b.path


def _prefix(words: frozenset[str], df: dict[str, int]) -> list[str]:
    """The rarest words: two sets at Jaccard >= RESTATED share one of their prefixes."""
    keep = len(words) - math.ceil(RESTATED * len(words)) + 1
    # What heapq.nsmallest returns, sorted in C: a sentence holds a few words, not a heap's worth.
    return [w for _, w in sorted([(df[w], w) for w in words])[:keep]]


def _units(fact: Fact, whole: bool = False) -> list[_Unit]:
    if fact.shape == "relation":  # "A uses B", "A uses C": one verb, many edges
        return []
    if _too_short(fact):
        return []
    parts = _sentence_words(fact.body, whole)
    if whole:  # the whole claim, and each of its sentences said again inside a longer claim
        parts += tuple(p for p in _sentence_words(fact.body) if p not in parts)
    return [_Unit(fact, *part) for part in parts]


def _too_short(fact: Fact) -> bool:
    """Too few words for any sentence to count. The claim without its `entity:` prefix, as a
    claim under the entity's heading reads: the entity's words are no content (and every fact
    compared here shares them)."""
    return fact.body.count(" ") < MIN_RESTATED_WORDS - 1


@lru_cache(maxsize=65536)
def _sentence_words(
    claim: str, whole: bool = False,
) -> tuple[tuple[frozenset[str], frozenset[str], frozenset[str], bool], ...]:
    """Per sentence of at least MIN_RESTATED_WORDS content words (or for the whole claim):
    (words, label, value, whether the value is an enumeration)."""
    found = []
    for sentence in _SENTENCE.split(claim) if not whole and _SENTENCE.search(claim) else (claim,):
        labelled = _LABEL.match(sentence) if ":" in sentence else None
        if labelled is None:
            words = content_words(normalize_claim(sentence))
            label: frozenset[str] = frozenset()
            value, listed = words, False
        else:  # the label and the value normalize apart; together they are the sentence's words
            label = content_words(normalize_claim(labelled["label"]))
            value = content_words(normalize_claim(labelled["value"]))
            words = label | value
            listed = _enumeration(labelled["value"])
        if len(words) >= MIN_RESTATED_WORDS:
            found.append((words, label, value, listed))
    return tuple(found)


def _restated(
    ctx: Context, unit: _Unit, prefix: Sequence[str], index: dict[str, list[_Unit]], apart: bool = False,
) -> tuple[Fact, float] | None:
    """The first unit of the index sharing a prefix word whose content words are alike. Alike is
    shared content words (Jaccard). Under one label only the values count ("Git repo: x" and
    "Git repo: y" differ). Under two labels the labels count too: a label is often the subject
    ("Comments in code: English only" and "Blog content: English only" are two rules), unless
    both values are long enumerations (LIST_WORDS content words or more): a list that long is
    its own subject, where "English only, no emoji, short lines" is a policy two subjects share.
    (Written out in the loop: a hot entity scores ~20 pairs a sentence.)"""
    fact, label, words, value = unit.fact, unit.label, unit.words, unit.value
    long_list = unit.listed and len(value) >= LIST_WORDS
    seen: set[int] = set()
    for word in prefix:
        for other in index.get(word, ()):
            if other.fact is fact or id(other) in seen or _one_place(fact, other.fact):
                continue  # itself, or another part of one item (a table row's cells, a record's fields)
            seen.add(id(other))
            if label and label == other.label or long_list and other.listed and len(other.value) >= LIST_WORDS:
                mine, theirs = value, other.value
            else:
                mine, theirs = words, other.words
            shared = len(mine & theirs)
            union = len(mine) + len(theirs) - shared  # counted, not built
            score = shared / union if union else 0.0
            if score < RESTATED or fact.status != other.fact.status or _repeated_event(fact, other.fact) \
                    or _reported_again(fact, other.fact) or not _numbers_agree(_digits(ctx, fact), _digits(ctx, other.fact)) \
                    or denies(ctx.norm_body(fact), ctx.norm_body(other.fact)):
                continue  # another status, a result reported again, another count, or one side denies the other
            if apart and (ctx.norm_body(fact) == ctx.norm_body(other.fact) or not _apart(unit, other, ctx.lexicon)):
                continue  # the same words are the copy rules' to report, or to leave
            return other.fact, score
    return None


def _apart(a: _Unit, b: _Unit, lexicon: Lexicon) -> bool:
    """Whether two alike claims are one claim stored twice in a store, for `restated_across`:
    the same words, or one saying more ("Dark mode support with dark: class variants" /
    "Improved dark mode support with appropriate dark: class variants"). Each with words of its
    own is one frame of two things ("the builder backend times out after 30s" / "the
    aggregator backend times out after 30s", "CLI entry point: the coeus binary" / "MCP
    server entry point: the coeus-mcp binary"), which two subjects may well share; words that
    only say it another way are no words of its own (`_own_words`)."""
    if _own_words(a.words, b.words, lexicon) and _own_words(b.words, a.words, lexicon):
        return False
    if (a.fact.valid_from, a.fact.valid_to) != (b.fact.valid_from, b.fact.valid_to):
        return False  # true of two periods
    one = entity_form(a.fact.entity) == entity_form(b.fact.entity)
    if a.fact.path == b.fact.path:
        if one:
            return False  # the per-entity pass's
    elif a.fact.kind == "task" or b.fact.kind == "task":
        return False
    one = one or _revised(a.fact.entity, b.fact.entity, lexicon)
    if not one and _predicate(a.fact.body or a.fact.claim) and _predicate(b.fact.body or b.fact.claim):
        return False  # "Provides persistent memory" of two subjects
    if not one and "json" in (a.fact.shape, b.fact.shape):
        return False  # a record's entity is its subject: "prefers VS Code" of two people
    if not one and a.fact.shape == b.fact.shape == "graph" and (
            _described(a.fact) or _described(b.fact) or _node_overlap(a.words, b.words, lexicon) < NODES_RESTATED):
        return False  # "Located in src/x.ts" said of each node; "Self-contained component with its
        # own translation files" / "… with its own translations": a description each node fits
    return not _own_subjects(a, b)


def _node_overlap(a: frozenset[str], b: frozenset[str], lexicon: Lexicon) -> float:
    """The share of two observations' words they hold in common, words that only say it another
    way left out ("Refactored"/"Updated test_utils.py to …")."""
    soft = _restating(lexicon)
    a, b = a - soft, b - soft
    return len(a & b) / len(a | b) if a | b else 0.0


def _revised(a: str, b: str, lexicon: Lexicon) -> bool:
    """Whether one entity names the other's subject again, with only a word of revision more
    ("Component Structure" / "Component Structure Update", "turnManager-module" /
    "turnManager-module-updates"): a predicate observed of both is said of one subject."""
    mine, theirs = _subject_words(a), _subject_words(b)
    if not mine or not theirs or mine == theirs:
        return False
    short, long = sorted((mine, theirs), key=len)
    return short < long and long - short <= _revising(lexicon)


def _subject_words(entity: str) -> frozenset[str]:
    return frozenset(stem(w) for w in re.findall(r"[a-z0-9]+", _CAMEL.sub(" ", entity).casefold()))


@lru_cache(maxsize=8)
def _revising(lexicon: Lexicon) -> frozenset[str]:
    return frozenset(stem(w) for w in lexicon.revision_words)


def _own_words(mine: frozenset[str], theirs: frozenset[str], lexicon: Lexicon) -> frozenset[str]:
    """The words of `mine` that `theirs` lacks, less those that say the same claim another way:
    a verb of doing or telling the work ("Refactored"/"Updated test_utils.py to test …"), a
    modal or a word of manner ("must"/"should be **Both**", "successfully"), and a word `theirs`
    holds in another form, which the light stemmer left apart ("cache"/"caching")."""
    own = mine - theirs
    if not own:
        return own
    soft = _restating(lexicon)
    other_forms = theirs - mine
    return frozenset(w for w in own if w not in soft and not any(_one_word(w, t) for t in other_forms))


@lru_cache(maxsize=8)
def _restating(lexicon: Lexicon) -> frozenset[str]:
    return frozenset(stem(w) for w in (*lexicon.restating_words, *lexicon.work_verbs) if " " not in w)


def _one_word(a: str, b: str) -> bool:
    """Two stems of one word: one opens the other, or both differ only in their last letter
    ("servic"/"service", "boundari"/"boundary"), and the shorter is at least FORM_LETTERS long."""
    short, long = sorted((a, b), key=len)
    if len(short) < FORM_LETTERS or len(long) - len(short) > 2:
        return False
    return long.startswith(short) or len(short) == len(long) and short[:-1] == long[:-1]


def _own_subjects(a: _Unit, b: _Unit) -> bool:
    """Each side names its own entity where the other does not ("**Yeosu**: all items (BOD, …)"
    under Yeosu, "**Yulchon**: all items but …" under Yulchon): one claim of two subjects."""
    return _names_own(a.fact, b.words) and _names_own(b.fact, a.words)


def _names_own(fact: Fact, other: frozenset[str]) -> bool:
    """The claim (its `entity:` label too) holds a word of its entity's name the other lacks."""
    return bool(content_words(normalize_claim(fact.entity)) & content_words(normalize_claim(fact.claim)) - other)


def _enumeration(value: str) -> bool:
    """At least MIN_ITEMS short comma-separated items: the same list under two labels ("Risk
    mitigation: a, b, c" / "Migration strategy included: a, b, and c") is one list restated.
    Items with numbers or `=` are a mapping ("0=base, 1=figures"), where the pairing matters."""
    items = value.count(",") + 1
    if items < MIN_ITEMS or len(value) > MAX_LIST or "=" in value or any(map(str.isdigit, value)):
        return False
    return len(value.split()) <= ITEM_WORDS * items


def deletion_keys(words: Sequence[str]) -> list[Key]:
    """The words and each one-word deletion of them, in order, as polynomial hashes: linear in
    the claim, where the joined strings were len(words) strings of len(words) words (a 64 KB
    claim took gigabytes). A collision only adds a candidate the trigram score must accept.
    A key of at most SHORT_KEY words hashes its tuple instead (C speed; quadratic only within
    that bound): the method follows the key's length, so an n-word claim's deletions still meet
    the whole keys of (n - 1)-word claims."""
    n = len(words)
    if n - 1 <= SHORT_KEY:
        whole = tuple(words)
        first = hash(whole) if n <= SHORT_KEY else _polynomial_keys(words)[0]
        return [first] + [hash(whole[:k] + whole[k + 1 :]) for k in range(n)]
    return _polynomial_keys(words)


def _polynomial_keys(words: Sequence[str]) -> list[Key]:
    codes = [hash(w) % _MOD for w in words]
    n = len(codes)
    prefix = [0] * (n + 1)
    for k, code in enumerate(codes):
        prefix[k + 1] = (prefix[k] * _BASE + code) % _MOD
    deletions: list[Key] = []
    suffix, power = 0, 1  # the hash of codes[k + 1 :] and _BASE ** its length
    for k in range(n - 1, -1, -1):
        deletions.append((n - 1) << 61 | (prefix[k] * power + suffix) % _MOD)
        suffix, power = (codes[k] * power + suffix) % _MOD, power * _BASE % _MOD
    return [n << 61 | prefix[n]] + deletions[::-1]


@lru_cache(maxsize=65536)
def content_words(text: str) -> frozenset[str]:
    return frozenset(stem(w) for w in text.split() if w not in STOPWORDS and w not in _AUXILIARY)


def _grams(ctx: Context, facts: Sequence[Fact], kept: dict[int, frozenset[str] | None], j: int) -> frozenset[str]:
    """A candidate's trigrams, kept from its second time on: a claim first in a full bucket is a
    candidate for every later claim of its keys, while most are scored once, and a set kept for
    each (~5 KB a claim) was half the layer's memory on a hot entity. At most KEPT candidates are
    kept: past them a candidate's trigrams are made each time it is scored (the score is the
    same), so one entity of a million claims holds ~100 MB of sets, not ~600."""
    gram = kept.get(j)
    if gram is None:
        gram = trigrams(ctx.norm_body(facts[j]))
        if j in kept:
            kept[j] = gram
        elif len(kept) < KEPT:
            kept[j] = None  # None: scored once
    return gram


def _best_match(
    ctx: Context, facts: Sequence[Fact], grams: dict[int, frozenset[str] | None],
    buckets: dict[Key, int | list[int]], i: int, keys: Sequence[Key],
) -> tuple[int, float] | None:
    """The first claim sharing a key whose trigrams are alike."""
    seen: set[int] = set()
    gram = None
    for key in keys:
        bucket = buckets.get(key)
        if bucket is None:
            continue
        for j in (bucket,) if isinstance(bucket, int) else bucket:
            if j in seen:
                continue
            seen.add(j)
            if gram is None:
                gram = trigrams(ctx.norm_body(facts[i]))
            other = _grams(ctx, facts, grams, j)
            score = len(gram & other) / math.sqrt(len(gram) * len(other))
            if score >= THRESHOLD and _same_claim_kind(ctx, facts[i], facts[j]):
                return j, score
    return None


def _repeated_event(a: Fact, b: Fact) -> bool:
    """"Ran pytest" in two dated entries happened twice: history, not a copy."""
    return a.kind == b.kind == "event" and a.entry != b.entry and a.observed_at != b.observed_at


_ADVERBS = frozenset({"now", "also", "still", "then", "always", "never"})


def _described(fact: Fact) -> bool:
    """An observation that opens with a participle ("Located in src/x.ts", "Updated to use the
    Alert component"): a predicate whose subject is the node it is stored on, as a verb's is."""
    words = (fact.body or fact.claim).lstrip(" -*_").split(" ", 2)
    word = words[0].casefold()
    if len(words) > 1 and _CODE_NAME.search(words[1].strip("`*_\"'(),:;")):
        return False  # "Updated test_utils.py to …": the participle's object is named, not the node
    return len(word) > 4 and word.isalpha() and word.endswith("ed")


def _predicate(claim: str) -> bool:
    """A claim that opens with its verb ("runs on …", "Takes the page as a prop", "Currently
    expects …"): the subject is the entity it is stored under. (A participle opens a predicate
    as often as a name: "Located at src/…" of one file under two names, "Automated checks".)"""
    words = claim.lstrip(" -*_").split(" ", 2)
    word = words[0].casefold()
    if (word.endswith("ly") or word in _ADVERBS) and len(words) > 1:  # "Currently expects …"
        word = words[1].casefold()
    if not word.isalpha() or len(word) < 4:  # "Status:", "CI/CD", "Use": a label or a name
        return False
    return word.endswith("s") and not word.endswith(("ss", "us", "is"))


def _copied_whole(norm: str) -> bool:
    """A paragraph, not a result: said again word for word, it was pasted."""
    return norm.count(" ") >= COPIED_WORDS - 1


def _other_status(a: Fact, b: Fact) -> bool:
    """Two statuses of one claim (`- [ ] x` beside `- [x] x`): a status conflict, not a copy. A
    claim with no status beside one with a status is the same claim (a progress file marks done
    what the active context says plainly)."""
    return a.status != b.status and bool(a.status) and bool(b.status)


def _reported_again(a: Fact, b: Fact) -> bool:
    """"Push: failed (no remote)" in two entries of a log, on two days: said again, not copied."""
    return bool(a.entry) and a.entry != b.entry and a.observed_at is not None and b.observed_at not in (None, a.observed_at)


def _digits(ctx: Context, fact: Fact) -> list[str]:
    """The words holding a digit, in order."""
    return _NUMBER_WORD.findall(ctx.norm_body(fact))


def _numbers_agree(a: list[str], b: list[str]) -> bool:
    """The same numbers, or numbers on one side only ("the pipeline" restated as "the
    pipeline with all 6 components"); two different numbers are two claims."""
    return a == b or not a or not b


def _same_claim_kind(ctx: Context, a: Fact, b: Fact) -> bool:
    """A changed number, status or retraction is a change of value, never a near-duplicate."""
    if a.status != b.status or _repeated_event(a, b):
        return False
    if _digits(ctx, a) != _digits(ctx, b) or denies(ctx.norm_body(a), ctx.norm_body(b)):
        return False
    return (a.status_verb is None) == (b.status_verb is None) and a.value == b.value if a.slot and b.slot else (
        (a.status_verb is None) == (b.status_verb is None)
    )
