"""Structural readings of a prose pair: which value each claim gives to a frame they share.

A frame is what is left of a claim once its value is taken out ("the billing ledger sits in
___", "___ now backs the billing ledger"). Two claims disagree on a frame when their frames share
a content word that is not a verb (the slot is reported as `f:<that word>`) and their values
differ without sharing a word. Each value comes from a cue whose strength says how much the
structure proved: a canonical record 1.0, a vocabulary verb frame (anchor) 0.6, a copula or
prepositional frame (or the leading noun phrase) 0.35. Any reading in which the two values
agree (same, or a refinement) vetoes a conflict: paraphrases are never findings.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from memory_autopsy import lazyre
from memory_autopsy.claims import anchor_slot, canonical_token, compare_values
from memory_autopsy.engine.context import fact_body
from memory_autopsy.model import Fact, Fidelity
from memory_autopsy.normalize import STOPWORDS, fold, tokens
from memory_autopsy.vocabulary import Vocabulary

RECORD, ANCHOR, FRAME = 1.0, 0.6, 0.35

_TOKEN = lazyre.compile(r"[a-z0-9]+(?:[.\-][a-z0-9]+)*|[,;:()\[\]!?]")


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


DETERMINERS = _words("a an the our their its my your this that these those his her")
PREPOSITIONS = _words("in on at inside within into via through by onto")
COPULAS = _words("is are was were becomes became")
ADVERBS = _words("also still already always usually currently mostly")
PARTICLES = _words("out up down off away back over")
TIME_WORDS = _words(
    """now today currently nowadays these days anymore lately recently still again already yet
    moment present time times meanwhile"""
)
# A closed list, no suffix rules: billing, pricing and memcached are nouns in memory files.
VERBISH = _words(
    """sits sit sat lives live lived resides reside backs powers runs run ran handles holds held
    hosts serves keeps keep kept uses stores goes went gone lands reads writes talks points
    depends relies works built made put sent stored hosted located based deployed backed powered
    managed handled served used saved moved migrated switched running living sitting hosting
    serving"""
)
_CUE_RANK = {"record": 4, "verb": 3, "prepositional": 2, "copula": 1, "subject": 0}


@dataclass(frozen=True, slots=True)
class Candidate:
    """A value a claim may give, with the cue that found it."""

    text: str
    words: frozenset[str]
    strength: float
    cue: str


@dataclass(frozen=True, slots=True)
class Reading:
    """A pair's structural verdict: agreement (a paraphrase) or a conflict on a shared frame."""

    agree: bool
    slot: str = ""
    left: str = ""
    right: str = ""
    strength: float = 0.0
    verdict: str = ""
    proven: float = 0.0  # the stronger side's cue (strength is the weaker side's)


def stem(word: str) -> str:
    """A plural/3rd-person `s` folded away, so `store`/`stores` share a frame word."""
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _is_verbish(tok: str) -> bool:
    return tok in VERBISH


def _is_value_token(tok: str) -> bool:
    if not tok[0].isalnum():
        return False
    if tok[0].isdigit():
        return True
    return not (
        tok in STOPWORDS
        or tok in PREPOSITIONS
        or tok in TIME_WORDS
        or tok in PARTICLES
        or _is_verbish(tok)
    )


def content_words(text: str, vocabulary: Vocabulary) -> dict[str, str]:
    """Frame vocabulary, stem -> word as written: synonyms folded; numbers, particles, time
    words and words shorter than three letters left out."""
    out: dict[str, str] = {}
    for tok in tokens(text):
        if tok in STOPWORDS or tok in TIME_WORDS or tok in PARTICLES or tok[0].isdigit():
            continue
        if len(tok) < 3:
            continue
        out.setdefault(stem(canonical_token(tok, vocabulary)), tok)
    return out


def _subject(toks: list[str]) -> list[str]:
    """The leading noun phrase, only when a known verb or copula follows it ("mysql now backs")."""
    phrase, end = _phrase(toks, 0)
    rest = toks[end:]
    while rest and rest[0] in TIME_WORDS | ADVERBS:
        rest = rest[1:]
    return phrase if phrase and rest and (rest[0] in COPULAS or _is_verbish(rest[0])) else []


def _phrase(toks: list[str], start: int) -> tuple[list[str], int]:
    """The value tokens from `start` (leading determiners skipped) and where they end."""
    while start < len(toks) and toks[start] in DETERMINERS:
        start += 1
    end = start
    while end < len(toks) and _is_value_token(toks[end]):
        end += 1
    return toks[start:end], end


def _frame_candidates(body: str) -> Iterator[tuple[list[str], str]]:
    toks = _TOKEN.findall(fold(body))
    yield _subject(toks), "subject"
    for i, tok in enumerate(toks):
        if tok in PREPOSITIONS and i > 0:
            yield _phrase(toks, i + 1)[0], f"prepositional '{tok}'"
        elif tok in COPULAS and i + 1 < len(toks) and not _is_verbish(toks[i + 1]):
            phrase = _phrase(toks, i + 1)[0]
            if not _participle(phrase):
                yield phrase, "copula"


def candidates(fact: Fact, vocabulary: Vocabulary) -> list[Candidate]:
    """Every value the claim may give: its record value, an anchor, or a frame phrase."""
    found: list[Candidate] = []
    if fact.fidelity is Fidelity.FULL and fact.value:
        found.append(_candidate(fact.value, RECORD, f"record slot {fact.slot!r}", vocabulary))
    body = fact_body(fact)
    anchored = anchor_slot(body, vocabulary)
    if anchored is not None:
        value = " ".join(_phrase(_TOKEN.findall(fold(anchored[1])), 0)[0])
        found.append(
            _candidate(_as_written(body, value), ANCHOR, f"verb frame {anchored[0]!r}", vocabulary)
        )
    for phrase, cue in _frame_candidates(body):
        found.append(_candidate(_as_written(body, " ".join(phrase)), FRAME, cue, vocabulary))
    unique: dict[str, Candidate] = {}
    for cand in found:
        if cand.words and cand.text.casefold() not in unique:
            unique[cand.text.casefold()] = cand
    return list(unique.values())


def _as_written(body: str, folded: str) -> str:
    start = fold(body).find(folded)
    if start < 0 or len(fold(body)) != len(body):
        return folded
    return body[start : start + len(folded)]


def _candidate(text: str, strength: float, cue: str, vocabulary: Vocabulary) -> Candidate:
    words = [stem(canonical_token(t, vocabulary)) for t in tokens(text)]
    meaningful = frozenset(w for w in words if w not in STOPWORDS and w not in TIME_WORDS)
    return Candidate(text.strip(), meaningful, strength, cue)


def read_pair(a: Fact, b: Fact, vocabulary: Vocabulary) -> Reading | None:
    """Agreement if any reading agrees; else the strongest conflict reading; None if no frame."""
    words_a = frame_words(a, vocabulary)
    words_b = frame_words(b, vocabulary)
    best: tuple[tuple[float, int, int], Reading] | None = None
    for ca in candidates(a, vocabulary):
        for cb in candidates(b, vocabulary):
            shared = [
                w
                for w in words_a
                if w in words_b
                and w not in ca.words
                and w not in cb.words
                and not _is_verbish(w)
                and not _is_verbish(w + "s")
            ]
            if not shared:
                continue
            verdict = compare_values(ca.text, cb.text, vocabulary)
            if verdict in ("same", "refine"):
                return Reading(agree=True)
            if verdict != "version" and ca.words & cb.words:
                continue
            rank = (min(ca.strength, cb.strength), len(shared), _rank(ca) + _rank(cb))
            if best is None or rank > best[0]:
                proven = max(ca.strength, cb.strength)
                best = (
                    rank,
                    Reading(
                        False, f"f:{words_a[shared[0]]}", ca.text, cb.text, rank[0], verdict, proven
                    ),
                )
    return best[1] if best else None


def _rank(candidate: Candidate) -> int:
    return _CUE_RANK.get(candidate.cue.split()[0], 0)


def frame_words(fact: Fact, vocabulary: Vocabulary) -> dict[str, str]:
    """The words a frame can be made of (stem -> as written); a record adds its slot name."""
    body = fact_body(fact)
    if fact.fidelity is Fidelity.FULL and fact.slot:
        body = f"{fact.slot.replace('_', ' ')} {body}"
    return content_words(body, vocabulary)


# -- what a value is ---------------------------------------------------------------------
# A slot value is a noun phrase: a named thing, a version, a quantity, a path or an identifier.
# Never a verb, a participle or an adjective taken from another frame ("'postgres' ->
# 'persisted'"), nor a description many words long.
MAX_VALUE_WORDS = 3
_VERSION = lazyre.compile(r"^v?\d+(?:\.\d+)+[a-z0-9.+-]{0,20}$", re.I)
_QUANTITY = lazyre.compile(r"\d")
_PATH = lazyre.compile(r"/|^[\w.-]{1,100}\.[a-z][a-z0-9]{0,9}$")
_IDENTIFIER = lazyre.compile(r"_|^[a-z][a-z0-9]{0,50}[A-Z]|\w\.\w|\w::\w|\(\)")  # snake, camelCase, a.b, a::b, f()
_WORDISH = lazyre.compile(r"^[a-z][a-z'-]*$")
# Endings of a word after a copula that make it no name: participles, gerunds, adverbs, adjectives.
_NOT_A_NAME = ("ed", "ing", "ly", "ive", "ous", "ful", "able", "ible", "less", "ent", "ant", "ic", "al", "ary")


def value_kind(text: str, vocabulary: Vocabulary) -> str:
    """What a frame's value is: version, quantity, path, identifier or name; "" when it is no
    value (a verb, participle or adjective, or a description of several words)."""
    words = text.split()
    if not words or len(words) > MAX_VALUE_WORDS:
        return ""
    if len(words) == 1 and _VERSION.match(words[0]):
        return "version"
    if _QUANTITY.search(text):
        return "quantity"
    if len(words) == 1 and _PATH.search(text):
        return "path"
    if any(_IDENTIFIER.search(w) for w in words):
        return "identifier"
    if all(w[:1].isupper() for w in words) or any(not w[1:].islower() and w[1:].isalpha() for w in words):
        return "name"  # Redis Cluster, File Inspector, BLoC pattern; not a sentence's first word ("Domain layer")
    head = fold(words[-1])
    if canonical_token(head, vocabulary) != head or head in vocabulary.synonyms.values():
        return "name"  # a thing the vocabulary knows by another name (postgres, k8s)
    if len(words) == 1 and _WORDISH.match(head) and not _is_verbish(head):
        return "name"  # memcached, redis: a suffix says nothing of a name (see _participle)
    return ""


def _participle(phrase: list[str]) -> bool:
    """After a copula, a lowercase word with a verb's or an adjective's ending is a passive or a
    description ("is persisted", "is configurable"), not the thing the frame holds."""
    return bool(phrase) and phrase[0].isalpha() and phrase[0].endswith(_NOT_A_NAME)


def values_alike(left: str, right: str, vocabulary: Vocabulary) -> bool:
    """Two values of one kind: what a conflict on one frame needs."""
    kind = value_kind(left, vocabulary)
    return bool(kind) and kind == value_kind(right, vocabulary)
