"""Structural readings of a prose pair: which value each claim gives to a frame they share.

A frame is what is left of a claim once its value is taken out ("the billing ledger sits in
___", "___ now backs the billing ledger"). Two claims disagree on a frame when their frames share
a content word that is not a verb (the slot is reported as `f:<that word>`) and their values
differ without sharing a word. Each value comes from a cue whose strength says how much the structure
proved: a canonical record 1.0, a vocabulary verb frame (anchor) 0.6, a copula or
prepositional frame (or the leading noun phrase) 0.35. Any reading in which the two values
agree (same, or a refinement) vetoes a conflict: paraphrases are never findings.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from memory_autopsy.claims import anchor_slot, canonical_token, compare_values
from memory_autopsy.engine.context import fact_body
from memory_autopsy.model import Fact, Fidelity
from memory_autopsy.normalize import STOPWORDS, fold, tokens
from memory_autopsy.vocabulary import Vocabulary

RECORD, ANCHOR, FRAME = 1.0, 0.6, 0.35

_TOKEN = re.compile(r"[a-z0-9]+(?:[.\-][a-z0-9]+)*|[,;:()\[\]!?]")
DETERMINERS = frozenset("a an the our their its my your this that these those his her".split())
PREPOSITIONS = frozenset("in on at inside within into via through by onto".split())
COPULAS = frozenset("is are was were becomes became".split())
TIME_WORDS = frozenset(
    """now today currently nowadays these days anymore lately recently still again already yet
    moment present time times meanwhile""".split()
)
VERBISH = frozenset(
    """sits sit sat lives live lived resides reside backs powers runs run ran handles holds held
    hosts serves keeps keep kept uses stores goes went gone lands reads writes talks points
    depends relies works built made put sent stored hosted located based deployed backed powered
    managed handled served used saved moved migrated switched kept running living sitting
    hosting serving""".split()
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


def stem(word: str) -> str:
    """A plural/3rd-person `s` folded away, so `store`/`stores` share a frame word."""
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def _is_verbish(tok: str) -> bool:
    # A closed list, no suffix rules: billing, pricing and memcached are nouns in memory files.
    return tok in VERBISH


def _is_value_token(tok: str) -> bool:
    if not tok[0].isalnum():
        return False
    if tok[0].isdigit():
        return True
    return not (tok in STOPWORDS or tok in PREPOSITIONS or tok in TIME_WORDS or _is_verbish(tok))


def content_words(text: str, vocabulary: Vocabulary) -> list[str]:
    """Frame vocabulary: content words, synonyms folded, numbers and time words left out."""
    out = []
    for tok in tokens(text):
        if tok in STOPWORDS or tok in TIME_WORDS or tok[0].isdigit():
            continue
        out.append(stem(canonical_token(tok, vocabulary)))
    return out


def _phrase(toks: list[str], start: int) -> list[str]:
    while start < len(toks) and toks[start] in DETERMINERS:
        start += 1
    phrase: list[str] = []
    for tok in toks[start:]:
        if not _is_value_token(tok):
            break
        phrase.append(tok)
    return phrase


def _frame_candidates(body: str) -> Iterator[tuple[list[str], str]]:
    toks = _TOKEN.findall(fold(body))
    yield _phrase(toks, 0), "subject"
    for i, tok in enumerate(toks):
        if tok in PREPOSITIONS and i > 0:
            yield _phrase(toks, i + 1), f"prepositional '{tok}'"
        elif tok in COPULAS and i + 1 < len(toks) and not _is_verbish(toks[i + 1]):
            yield _phrase(toks, i + 1), "copula"


def candidates(fact: Fact, vocabulary: Vocabulary) -> list[Candidate]:
    """Every value the claim may give: its record value, an anchor, or a frame phrase."""
    found: list[Candidate] = []
    if fact.fidelity is Fidelity.FULL and fact.value:
        found.append(_candidate(fact.value, RECORD, f"record slot {fact.slot!r}", vocabulary))
    body = fact_body(fact)
    anchored = anchor_slot(body, vocabulary)
    if anchored is not None:
        value = " ".join(_phrase(_TOKEN.findall(fold(anchored[1])), 0))
        found.append(_candidate(value, ANCHOR, f"verb frame {anchored[0]!r}", vocabulary))
    for phrase, cue in _frame_candidates(body):
        found.append(_candidate(" ".join(phrase), FRAME, cue, vocabulary))
    unique: dict[str, Candidate] = {}
    for cand in found:
        if cand.words and cand.text.casefold() not in unique:
            unique[cand.text.casefold()] = cand
    return list(unique.values())


def _candidate(text: str, strength: float, cue: str, vocabulary: Vocabulary) -> Candidate:
    words = [stem(canonical_token(t, vocabulary)) for t in tokens(text)]
    meaningful = frozenset(w for w in words if w not in STOPWORDS and w not in TIME_WORDS)
    return Candidate(text.strip(), meaningful, strength, cue)


def read_pair(a: Fact, b: Fact, vocabulary: Vocabulary) -> Reading | None:
    """Agreement if any reading agrees; else the strongest conflict reading; None if no frame."""
    words_a = content_words(_frame_text(a), vocabulary)
    words_b = set(content_words(_frame_text(b), vocabulary))
    best: tuple[tuple[float, int, int], Reading] | None = None
    for ca in candidates(a, vocabulary):
        for cb in candidates(b, vocabulary):
            shared = [w for w in dict.fromkeys(words_a) if w in words_b and w not in ca.words
                      and w not in cb.words and not _is_verbish(w) and not _is_verbish(w + "s")]
            if not shared:
                continue
            verdict = compare_values(ca.text, cb.text, vocabulary)
            if verdict in ("same", "refine"):
                return Reading(agree=True)
            if verdict != "version" and ca.words & cb.words:
                continue
            rank = (min(ca.strength, cb.strength), len(shared), _rank(ca) + _rank(cb))
            if best is None or rank > best[0]:
                best = (rank, Reading(False, f"f:{shared[0]}", ca.text, cb.text, rank[0], verdict))
    return best[1] if best else None


def _rank(candidate: Candidate) -> int:
    return _CUE_RANK.get(candidate.cue.split()[0], 0)


def _frame_text(fact: Fact) -> str:
    body = fact_body(fact)
    if fact.fidelity is Fidelity.FULL and fact.slot:
        return f"{fact.slot.replace('_', ' ')} {body}"
    return body
