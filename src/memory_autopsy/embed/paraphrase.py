"""Paraphrases: one claim stored twice in other words, found by meaning within one store.

Similarity proposes pairs across a whole store (not one entity: a preference, a decision and a
convention saying one thing sit under different headings), blocked by shared content words as
layer 3's other pairs are. A pair is a restatement (`near_duplicate`, how `meaning`) only when
nothing tells the two apart:
- the cosine is at least PARAPHRASE, or at least NEAR with most content words shared (SHARED);
- both say enough to restate (MIN_WORDS content words each);
- they agree on every frame they share (frames.read_pair), with the same numbers and the same
  status; neither retracts, and neither denies what the other says (claims.denies: both may
  negate, "Never commit secrets" / "Do not commit API keys", and a negation of what the other
  side does not mention adds a point);
- they are not two entries of a dated log (a result reported again later is news, not a copy),
  nor two items of one list or table (siblings differ by design), nor one thing said of two
  subjects: two named entities (a graph's or a JSON store's; a graph node named again with
  more words is the same subject, as are two nodes restating, at PARAPHRASE, one name of code),
  or two headings whose claims open with a present-tense verb
  ("## search-index / runs on the shared cluster");
- both are written in Latin script: the packaged model was trained on English, and its
  similarity between two texts in another script says little;
- a heuristic finding does not already link them, and neither is a flagged copy.
Pairs are tried most similar first (TOP_K partners a fact at most), and a fact restates once:
its nearest partner may be a sibling the checks turn down, and its restatement the next.
Until the real eval measures them its findings are `review`: they inform, they fail no run.
PARAPHRASE was measured with the packaged static model (embed.static), and only it runs this:
another model's cosines sit elsewhere and would need their own measure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from memory_autopsy import lazyre
from memory_autopsy.claims import denies
from memory_autopsy.embed.frames import VERBISH, frame_words, read_pair
from memory_autopsy.embed.neighbours import candidate_pairs
from memory_autopsy.embed.recheck import turns
from memory_autopsy.engine.context import Context, fact_body, observed_order, runs_of
from memory_autopsy.engine.findings import fact_finding, quote
from memory_autopsy.model import NAMED_SHAPES, Fact, Finding, Severity
from memory_autopsy.normalize import WORD, normalize_claim

PARAPHRASE = 0.86
# Below PARAPHRASE, down to NEAR, a pair restates only when most of its words are shared too
# (SHARED of the content words either says): the model's cosine alone ranks unrelated pairs there.
NEAR = 0.75
SHARED = 0.6
MIN_WORDS = 4
TOP_K = 4  # candidate partners per fact, tried most similar first; one finding per fact
_NUMBER = lazyre.compile(r"\d+(?:[.,]\d+)*")
# A name of code: snake_case, camelCase or dotted (a file, a module's member), or a code span.
_IDENTIFIER = lazyre.compile(r"`[^`\n]+`|\b(?:\w+_\w+|[a-z]+[A-Z]\w*|\w{2,}\.[A-Za-z]\w+)\b")
_HUMP = lazyre.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])")


def paraphrases(ctx: Context, facts: Sequence[Fact], vectors: Callable[[Sequence[Fact]], Any],
                judged: set[frozenset[str]]) -> Iterator[Finding]:
    """near_duplicate findings for the restatements among `facts` (active, prose, not copies)."""
    by_store: dict[str, list[Fact]] = {}
    for fact in facts:
        by_store.setdefault(ctx.store_key(fact), []).append(fact)
    runs = runs_of(facts)
    for group in by_store.values():
        if len(group) < 2:
            continue
        group.sort(key=lambda f: f.order)
        kin = _kindred(group)
        words = [frame_words(f, ctx.vocabulary) for f in group]
        block = vectors(group)
        flagged: set[int] = set()
        places: set[tuple[str, int, str, int]] = set()
        # the most similar pairs first, a few per fact: a fact's nearest may be a sibling the
        # checks turn down, and its restatement the next
        pairs = sorted(candidate_pairs(words, block, NEAR, top_k=TOP_K), key=lambda p: (-p[2], p[0], p[1]))
        for i, j, cosine in pairs:
            older, newer = group[i], group[j]
            place = (newer.path, newer.line, older.path, older.line)
            if j in flagged or i in flagged or place in places:
                continue  # one finding per line pair: two sentences of one item are one restatement
            if cosine < PARAPHRASE and not _shares_most(words[i], words[j]):
                continue
            if _restates(ctx, older, newer, words[i], words[j], judged, runs, kin, cosine):
                flagged.add(j)
                places.add(place)
                yield _finding(newer, older, cosine)


def _restates(ctx: Context, a: Fact, b: Fact, words_a: Mapping[str, str], words_b: Mapping[str, str],
              judged: set[frozenset[str]], runs: Mapping[int, int], kin: Callable[[Fact, Fact], bool],
              cosine: float) -> bool:
    if a.id == b.id or frozenset((a.id, b.id)) in judged or not ctx.together(a, b):
        return False
    if len(words_a) < MIN_WORDS or len(words_b) < MIN_WORDS:
        return False
    if observed_order(a, b) is not None or (a.entry and b.entry and a.entry != b.entry):
        return False  # a dated log reporting again: news, not a copy
    named = a.shape in NAMED_SHAPES or b.shape in NAMED_SHAPES
    if (named or _predicate(a) or _predicate(b)) and a.entity != b.entity and not _one_subject(a, b, kin, cosine):
        return False  # one thing said of two named entities, or of two headings: two subjects
    if not named and a.path == b.path and runs.get(a.order) == runs.get(b.order):
        return False  # items of one list or table (lines in one run): written to differ
    if not (latin_script(fact_body(a)) and latin_script(fact_body(b))):
        return False  # the packaged model reads English: another script's similarity means little
    if (a.status or b.status) and a.status != b.status:
        return False  # done here, pending there: a status_conflict's business
    body_a, body_b = fact_body(a), fact_body(b)
    if not same_numbers(body_a, body_b):
        return False  # another count or version: numeric drift, not a copy
    if turns(ctx, a) or turns(ctx, b) or denies(ctx.norm_body(a), ctx.norm_body(b)):
        return False  # a change of state, or one side denies what the other says: layer 2's business
    reading = read_pair(a, b, ctx.vocabulary)
    return reading is None or reading.agree


def _one_subject(a: Fact, b: Fact, kin: Callable[[Fact, Fact], bool], cosine: float) -> bool:
    """Two graph entities speak of one subject when one is the other's name with more words, or
    when a close restatement (PARAPHRASE) names the same identifier: a file, a function, an event
    ("Broadcasts `turn_changed` via Realtime" on a hook and on the game-flow node)."""
    return kin(a, b) or (cosine >= PARAPHRASE and bool(_identifiers(fact_body(a)) & _identifiers(fact_body(b))))


def _identifiers(text: str) -> frozenset[str]:
    return frozenset(token.casefold().strip("`") for token in _IDENTIFIER.findall(text))


def _shares_most(a: Mapping[str, str], b: Mapping[str, str]) -> bool:
    return len(a.keys() & b.keys()) >= SHARED * len(a.keys() | b.keys())


def _kindred(group: Sequence[Fact]) -> Callable[[Fact, Fact], bool]:
    """Two graph entities of one subject: one's name is the other's with more words ("Component
    Structure" and "Component Structure Update", "IntroductionHistoryDialog" and
    "IntroductionHistoryDialog Component"); "HistoryItem" and "HistoryComment" are two."""
    names = {f.entity: _name_words(f.entity) for f in group if f.shape == "graph"}

    def kin(a: Fact, b: Fact) -> bool:
        if a.entity not in names or b.entity not in names:
            return False
        (whole_a, parts_a), (whole_b, parts_b) = names[a.entity], names[b.entity]
        return bool(whole_a and whole_b) and (whole_a <= whole_b | parts_b or whole_b <= whole_a | parts_a)
    return kin


def _name_words(name: str) -> tuple[frozenset[str], frozenset[str]]:
    """A name's words as written, and the humps of its camelCase words."""
    tokens = WORD.findall(name)
    return (frozenset(token.casefold() for token in tokens),
            frozenset(hump.casefold() for token in tokens for hump in _HUMP.findall(token)))


def _predicate(fact: Fact) -> bool:
    """A claim that opens with a present-tense verb ("runs on the shared cluster") says it of its
    heading: the heading is its subject, not a category of notes."""
    first = fact_body(fact).lstrip("-*+ \t").split(" ", 1)[0].casefold()
    return first.endswith("s") and first in VERBISH


def same_numbers(a: str, b: str) -> bool:
    """Whether two texts give the same numbers ("Phase 2" is not "Phase 3", "3 retries" not "5")."""
    return sorted(_NUMBER.findall(a)) == sorted(_NUMBER.findall(b))


def latin_script(text: str) -> bool:
    letters = [ch for ch in text if ch.isalpha()]
    return sum(ch < "\u0250" for ch in letters) >= 0.8 * len(letters)


def _finding(fact: Fact, other: Fact, cosine: float) -> Finding:
    # the same words under another subject or in another file, which the copy rule (one entity) leaves
    words = "in the same words" if normalize_claim(fact_body(fact)) == normalize_claim(fact_body(other)) else "in other words"
    finding = fact_finding(
        "near_duplicate", fact,
        f"restates {other.path}:{other.line} {quote(other.claim)!r} {words} (claim similarity {cosine:.2f})",
        related=[other], confidence=cosine, layer="3", symmetric=True, extra={"how": "meaning", "cosine": round(cosine, 3)})
    return finding._replace(severity=Severity.REVIEW)
