"""Reading structure out of claim text: anchor slots, value heads, transitions, status words."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import lru_cache
from itertools import islice
from typing import NamedTuple

from memory_autopsy import lazyre
from memory_autopsy.clauses import Read, read_retraction
from memory_autopsy.lexicon import default_lexicon
from memory_autopsy.normalize import STOPWORDS, fold, folded_tokens, holds_any, normalize_claim, tokens
from memory_autopsy.vocabulary import (
    GENERIC_TOKENS,
    NEGATIONS,
    STATUS_VERBS,
    Vocabulary,
)

_VERSION = lazyre.compile(r"v?\d+(?:\.\d+)*[a-z]?")
# DOTALL: without it a newline later in the claim fails `.+$` once per "for" / "as" before it.
_QUALIFIER = lazyre.compile(r"\s(?:for|as)\s+(?P<q>.+)", re.S)
_VALUE_END = lazyre.compile(r"\s(?:for|as|since|until|from|because|when|after|before|on|in)\s|[,;(]")
_DIGITS = lazyre.compile(r"\d+")
_STATUS_HINT = tuple(sorted(STATUS_VERBS))  # any status verb, inside a word or not
# A claim states its frame in its first few verbs; each one tried costs a pass over the rest of
# the claim, so `uses , ` repeated thousands of times must not be tried thousands of times.
MAX_FRAMES = 16


class ValueShape(NamedTuple):
    words: frozenset[str]
    head: str
    versions: tuple[str, ...]
    numbers: tuple[str, ...]


def canonical_token(token: str, vocabulary: Vocabulary) -> str:
    return vocabulary.synonyms.get(token, token)


def value_shape(value: str, vocabulary: Vocabulary) -> ValueShape:
    return _value_shape(value, vocabulary)


@lru_cache(maxsize=65536)
def _value_shape(value: str, vocabulary: Vocabulary) -> ValueShape:
    toks = [canonical_token(t, vocabulary) for t in tokens(value)]
    words: list[str] = []
    versions: list[str] = []
    numbers: list[str] = []
    previous_word = False
    for tok in toks:
        if tok[0].isdigit() or (tok[0] == "v" and _VERSION.fullmatch(tok) and len(tok) > 1):
            if previous_word and _VERSION.fullmatch(tok):
                versions.append(tok.lstrip("v"))
            else:
                numbers.append(tok)
            previous_word = False
            continue
        previous_word = tok not in STOPWORDS
        if tok not in STOPWORDS:
            words.extend(tok.split())
    head = words[0] if words else (numbers[0] if numbers else "")
    return ValueShape(frozenset(words), head, tuple(versions), tuple(numbers))


def compare_values(a: str, b: str, vocabulary: Vocabulary) -> str:
    """'same', 'refine' (equal heads), 'version' (same head, version bump) or 'differ'."""
    return _compare_values(a, b, vocabulary)


@lru_cache(maxsize=65536)
def _compare_values(a: str, b: str, vocabulary: Vocabulary) -> str:
    if normalize_claim(a) == normalize_claim(b):
        return "same"
    sa, sb = value_shape(a, vocabulary), value_shape(b, vocabulary)
    if sa.words == sb.words and sa.versions == sb.versions and sa.numbers == sb.numbers:
        return "same"
    if sa.numbers != sb.numbers and sa.numbers and sb.numbers:
        return "differ"
    if sa.words and sb.words and (sa.words <= sb.words or sb.words <= sa.words):
        if sa.versions and sb.versions and sa.versions != sb.versions:
            return "version"
        return "refine"
    if not sa.words and not sb.words:
        return "differ" if (sa.numbers or sa.versions) != (sb.numbers or sb.versions) else "same"
    return "differ"


def version_key(value: str, vocabulary: Vocabulary) -> tuple[int, ...]:
    shape = value_shape(value, vocabulary)
    if not shape.versions:
        return ()
    return tuple(int(p) for p in _DIGITS.findall(shape.versions[0]))


def is_versioned_slot(slot: str, vocabulary: Vocabulary) -> bool:
    base = slot.split(":", 1)[-1].lower().replace("-", "_")
    return base in vocabulary.versioned_slots or base.endswith("_version")


class Transition(NamedTuple):
    """A retraction: the trigger and the noun phrase it retracts (head noun last), and the
    subject the clause names as leaving it (clauses.Read.subject; empty: not named)."""

    trigger: str
    anchors: tuple[str, ...]
    subject: tuple[str, ...] = ()

    @property
    def head(self) -> str:
        return self.anchors[-1]

    def matches(self, words: set[str]) -> str | None:
        """The anchor shown when a claim with these words asserts what this retracts."""
        if self.head in words:
            return self.head
        shared = [w for w in self.anchors if w in words]
        return " ".join(shared) if len(shared) >= 2 else None


_BREAK_WORDS = frozenset(
    """to for with by and but because since after before from of in into on onto at via over
    under within as than while when where which that who during per then so once until unless if""".split()
)
_NP_LIMIT = 3


def find_transition(body: str, vocabulary: Vocabulary) -> Transition | None:
    """The first transition trigger in a claim and the head noun it retracts."""
    return _find_transition(body, vocabulary)


@lru_cache(maxsize=262144)
def _find_transition(body: str, vocabulary: Vocabulary) -> Transition | None:
    folded = fold(body)
    if "\u2192" in folded:  # "Replaced: Redis → pg-boss": the arrow is one the clause reader reads
        folded = folded.replace("\u2192", " -> ")
    if folded.isascii():  # the clause reader decides where it finds a retracting verb
        read = read_retraction(folded)
        if read is not None:
            return _read_transition(read, vocabulary)
    else:  # a retraction written without spaces ("从 Redis 迁移到 pg-boss")
        written = _ideograph_transition(body)
        if written is not None:
            return written
    text = " " + normalize_claim(body) + " "
    pattern, backward_set, first_words = _trigger_pattern(vocabulary)
    if first_words.isdisjoint(text.split(" ")):
        return None  # a trigger starts after a space: its first word is one of the text's words
    match = pattern.search(text)
    if match is None:
        return None
    trigger = match.group(0)
    after = text[match.end() :].split()
    before = text[: match.start()].split()
    phrase = [] if trigger in backward_set else _noun_phrase(after, trigger, vocabulary)
    if not phrase:
        phrase = _noun_phrase(before[::-1], trigger, vocabulary)[::-1]
    if not phrase:
        return None
    return Transition(trigger, tuple(phrase))


# A name a retraction in Chinese or Japanese retracts: Latin letters, digits and code marks,
# up to three words of at most 60 characters (quoted or not), or a katakana word. Opened only
# where no such character precedes it, so a long run is tried from its start only, and bounded.
_CJK_NAME = (r"[`\"'「『]?(?:(?<![A-Za-z0-9_.+#/-])[A-Za-z0-9][A-Za-z0-9_.+#/-]{0,60}"
             r"(?:[ ][A-Za-z0-9][A-Za-z0-9_.+#/-]{0,60}){0,2}"
             r"|(?<![\u30a0-\u30ff])[\u30a0-\u30ff]{2,60})[`\"'」』]?")
_CJK_CLAUSE = lazyre.compile(r"[，。；,;\n]")


@lru_cache(maxsize=1)
def _ideograph_pattern() -> re.Pattern[str] | None:
    """The lexicon's written-without-spaces retractions as one pattern. Templates that open with
    the retracted name share one reading of it, then their endings as one alternation (each
    place of a line tries one name, not one per template); the others open with their own
    words. Template i's retracted name is group `x{i}`, or, name first, group `x` with the
    ending `t{i}`. What replaces the name is a name too: "X から Slack トークンを取得するように
    変更" changes where a token comes from, not X."""
    def regex(pieces: list[str], i: int) -> str:
        return "".join(rf"[ \t]?(?P<x{i}>{_CJK_NAME})[ \t]?" if piece == "{x}" else rf"[ \t]?{_CJK_NAME}[ \t]?"
                       if piece == "{y}" else re.escape(piece) for piece in pieces if piece)

    opening, endings, firsts = [], [], set()
    for i, template in enumerate(default_lexicon().transitions):
        pieces = re.split(r"(\{[xy]\})", template)
        if template.startswith("{x}") and len(pieces) > 2 and pieces[2]:
            endings.append(f"(?P<t{i}>{regex(pieces[2:], i)})")
            firsts.add(pieces[2][0])
        else:
            opening.append(f"(?:{regex(pieces, i)})")
    if endings:  # an ending's first character, looked at before any ending is tried
        ahead = "".join(re.escape(c) for c in sorted(firsts))
        opening.append(rf"(?:[ \t]?(?P<x>{_CJK_NAME})(?=[ \t]?[{ahead}])[ \t]?(?:{'|'.join(endings)}))")
    return re.compile("|".join(opening)) if opening else None


def _ideograph_transition(body: str) -> Transition | None:
    """"状态管理从 Riverpod 迁移到 GetIt", "UniRx から R3 に移行した": the name retracted, unless
    the clause only plans, asks or denies it ("计划从 X 迁移", "X から移行する予定")."""
    pattern = _ideograph_pattern()
    match = pattern.search(body) if pattern is not None else None
    if match is None:
        return None
    found = {key: value for key, value in match.groupdict().items() if value is not None}
    key = next(k for k in found if k[0] == "t" or k[0] == "x" and k != "x")
    name = found.get("x") or found[key]
    start, end = match.span()
    breaks = [m.start() for m in _CJK_CLAUSE.finditer(body)]
    clause = body[max([b + 1 for b in breaks if b < start], default=0): min([b for b in breaks if b >= end], default=len(body))]
    if any(hedge in clause for hedge in default_lexicon().transition_hedges):
        return None
    words = normalize_claim(name.strip("`\"'「」『』 ")).split()[-_NP_LIMIT:]
    template = default_lexicon().transitions[int(key[1:])]
    return Transition(template.replace("{x}", "…").replace("{y}", "…"), tuple(words)) if words else None


def _read_transition(read: Read, vocabulary: Vocabulary) -> Transition | None:
    """The noun phrase a clause's retracting verb retracts (clauses.read_retraction)."""
    if read.trigger is None:
        return None  # denied, planned or asked: nothing is retracted
    words = [w for token in read.words for w in normalize_claim(token).split() or [token]]
    if read.backward:
        phrase = _noun_phrase(words[::-1], read.trigger, vocabulary)[::-1]
    else:
        phrase = _noun_phrase(words, read.trigger, vocabulary)
    subject = tuple(w for token in read.subject for w in normalize_claim(token).split()
                    if w not in STOPWORDS and not w[0].isdigit())
    return Transition(read.trigger, tuple(phrase), subject) if phrase else None


@lru_cache(maxsize=8)
def _trigger_pattern(vocabulary: Vocabulary) -> tuple[re.Pattern[str], frozenset[str], frozenset[str]]:
    """One alternation, longest first, so the leftmost trigger wins in a single pass; and the
    triggers' first words, which a text must hold (split at spaces) for the search to match."""
    forward = set(vocabulary.forward_triggers)
    backward = set(vocabulary.backward_triggers)
    backward |= {f"{aux} {t}" for t in forward if " " not in t for aux in ("was", "been")}
    alternatives = sorted(forward | backward, key=lambda t: (-len(t), t))
    pattern = re.compile("(?<= )(?:" + "|".join(re.escape(t) for t in alternatives) + ")(?= )")
    return pattern, frozenset(backward - forward), frozenset(t.split(" ", 1)[0] for t in alternatives)


def _noun_phrase(words: list[str], trigger: str, vocabulary: Vocabulary) -> list[str]:
    """Up to three content words from the trigger outwards, stopping at a clause break."""
    skip = set(trigger.split()) | {"was", "been", "is", "has", "had", "using", "uses", "use", "the", "a", "an"}
    phrase: list[str] = []
    for word in words:
        if word in _BREAK_WORDS or word in (",", ";", "(", ")"):
            break
        if word in skip or word in STOPWORDS:
            if phrase:
                break
            continue
        if phrase and (word.endswith("ly") or word.endswith("ed")):
            break
        if word[0].isdigit():
            continue
        phrase.append(canonical_token(word, vocabulary))
        if len(phrase) == _NP_LIMIT:
            break
    return [w for w in phrase if w not in GENERIC_TOKENS and len(w) > 1]


def anchor_slot(body: str, vocabulary: Vocabulary) -> tuple[str, str, str] | None:
    """(slot, value, qualifier) proven by a prose verb frame, or None."""
    return _anchor_slot(body, vocabulary)


@lru_cache(maxsize=65536)
def _anchor_slot(body: str, vocabulary: Vocabulary) -> tuple[str, str, str] | None:
    text = " " + fold(body).strip().rstrip(".") + " "
    if holds_any(text, NEGATIONS) or find_transition(body, vocabulary):
        return None
    for match in _frames(text, vocabulary):
        phrase = match.group(0)
        slot = vocabulary.anchors[phrase]
        rest = text[match.end() :].strip()
        if slot == "anchor:uses" and phrase in ("migrated to", "switched to", "moved to"):
            qualifier = ""
        else:
            found = _QUALIFIER.search(" " + rest)
            qualifier = normalize_claim(found["q"]) if found else ""
        value = _VALUE_END.split(" " + rest, maxsplit=1)[0].strip()
        if value:
            return slot, _original_case(body, value), qualifier
    pinned = _pinned(text)
    if pinned is not None:
        value, qualifier = pinned
        return "anchor:uses", _original_case(body, value), qualifier
    return None


# A versioned thing where no verb frame is written, typed: the value is a name and its version.
# "The cache runs Redis 6" (a name after "runs"), "Node version 18", "Node version: 20",
# "pydantic v1 for the models" (a name, the word "version" or a "v", and the version open the
# claim; what follows is nothing, a qualifier or a clause of its own, never a verb:
# "Spec v1 describes the sync" names a document, not a dependency in use).
_NAME = r"[a-z][\w.+#-]{0,40}"
_RUNS = lazyre.compile(rf" runs (?P<name>{_NAME}) v?(?P<version>\d+(?:\.\d+){{0,3}})(?= |$)")
_PIN_OPENING = lazyre.compile(
    rf"^ (?P<name>{_NAME}) (?:version:? |ver\. |v)(?P<version>\d+(?:\.\d+){{0,3}})(?P<rest> .*|)$")
_PIN_REST = lazyre.compile(r"^ *(?:$|(?:for|as|in|on) (?P<q>.+)|[,;(-])")


def _pinned(text: str) -> tuple[str, str] | None:
    """(value, qualifier) of a name pinned to a version with no verb frame, or None."""
    units = default_lexicon().unit_words  # "runs step 3": a unit of work, not a thing in use
    runs = _RUNS.search(text)
    if runs is not None and runs["name"] not in STOPWORDS and runs["name"] not in units:
        after = _PIN_REST.match(text[runs.end():])  # "runs every 5 minutes" is a schedule
        if after is not None:
            return f"{runs['name']} {runs['version']}", normalize_claim(after["q"]) if after["q"] else ""
    opening = _PIN_OPENING.match(text)
    if opening is None or opening["name"] in STOPWORDS or opening["name"] in units:
        return None
    rest = _PIN_REST.match(opening["rest"])
    if rest is None:
        return None  # "Spec v1 describes the sync": the name is the subject of another verb
    return f"{opening['name']} {opening['version']}", normalize_claim(rest["q"]) if rest["q"] else ""


def _frames(text: str, vocabulary: Vocabulary) -> Iterator[re.Match[str]]:
    """The prose verb frames of a folded claim (" … "), in order, less those that are no frame."""
    for match in islice(_anchor_pattern(vocabulary).finditer(text), MAX_FRAMES):
        if not _not_a_frame(text[: match.start()], match.group(0), text[match.end() :].strip()):
            yield match


# Words before a frame that name no subject of the claim's own: the team, the project, time.
_NO_SUBJECT = frozenset("project app application system codebase repo repository currently also now still "
                        "today everything everyone team".split())
_CLAUSE_BREAK = lazyre.compile(r"[,;:(]|\s[-–—]\s")


def frame_subject(body: str, vocabulary: Vocabulary) -> frozenset[str]:
    """The content words of the clause before the claim's verb frame ("The web app runs on Node
    20": web, app): the subject the claim names of its own. Empty when the frame opens the
    claim ("Uses Node 20"), or its subject is the team or the project ("We use …", "The project
    runs on …"): then the claim is about its entity."""
    return _frame_subject(body, vocabulary)


@lru_cache(maxsize=65536)
def _frame_subject(body: str, vocabulary: Vocabulary) -> frozenset[str]:
    text = " " + fold(body).strip().rstrip(".") + " "
    match = next(_frames(text, vocabulary), None) or _RUNS.search(text)  # "The cache runs Redis 6"
    if match is None:
        return frozenset()
    before = _CLAUSE_BREAK.split(text[: match.start()])[-1]
    return frozenset(canonical_token(word, vocabulary) for word in folded_tokens(before)
                     if word not in STOPWORDS and word not in _NO_SUBJECT
                     and not word[0].isdigit())


# The negations as a normalized claim spells them: punctuation is gone, so "don't" is "don t"
# and "n't" a word ending in n before a lone t.
_NEGATED = tuple(normalize_claim(cue) + " " if cue.startswith("n'") else " " + normalize_claim(cue) + " "
                 for cue in NEGATIONS)
# A negation bears on the first two words past it that are not small ones (a verb and its
# object: "never use magic numbers"), within DENIAL_REACH words, compared by their first
# DENIAL_PREFIX letters ("retried" is "retry").
DENIAL_REACH = 6
DENIAL_PREFIX = 4
# "Use constants instead of magic numbers": what follows says what is not used, as a negation does.
_INSTEAD = (" instead of ", " rather than ")


def negated(norm: str) -> bool:
    """Whether a normalized claim says what is not so ("never merge to main", "doesn't cache")."""
    return holds_any(" " + norm + " ", _NEGATED)


def denies(norm: str, other: str) -> bool:
    """Whether one of two normalized claims denies what the other says: it negates, the other
    does not, and the other says what a negation bears on, its verb and its object ("Workers
    read the cache" / "Workers cannot read the cache"; "Retry failed calls with backoff" /
    "Failed calls aren't retried with backoff"). A negation of what the other does not say adds
    a point and flips none ("Never install x: GPL-3.0" / "x is GPL-3.0"), as does one the other
    says is not done either ("Never use magic numbers" / "Use constants instead of magic
    numbers"); a negation that bears on no word flips the claim."""
    first = negated(norm)
    if first == negated(other):
        return False
    no, yes = (norm, other) if first else (other, norm)
    said = set(_words_said(yes))
    bears_on = list(_borne(" " + no + " ", _NEGATED))
    return not bears_on or any(all(word in said for word in words) for words in bears_on)


def _borne(text: str, cues: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    """What each cue in `text` bears on: the prefixes of the first two content words past it."""
    for cue in cues:
        at = text.find(cue)
        while at >= 0:
            past = [w for w in text[at + len(cue):].split()[:DENIAL_REACH] if w not in STOPWORDS][:2]
            if past:
                yield tuple(word[:DENIAL_PREFIX] for word in past)
            at = text.find(cue, at + len(cue))


def _words_said(norm: str) -> Iterator[str]:
    """The prefixes of a claim's words, less those it says are not used ("instead of x")."""
    unsaid = {word for words in _borne(" " + norm + " ", _INSTEAD) for word in words}
    return (prefix for word in norm.split() if (prefix := word[:DENIAL_PREFIX]) not in unsaid)


def two_subjects(said: frozenset[str], other: frozenset[str]) -> bool:
    """Whether two claims name two things of their own: each names a subject (its words), and
    neither subject holds the other ("the web app" / "the mobile app", "the project" / "the auth module";
    not "the API" / "the API service")."""
    return bool(said) and bool(other) and not (said <= other or other <= said)


# Before "use": an article or a modal makes it a noun or an instruction, not a statement of state.
_NOT_BEFORE_USE = frozenset("the a an of to can could should will would must may might please always never".split())
_NOT_A_VALUE = frozenset("of to it this that them these those its their which what how when if".split())


def _not_a_frame(before: str, phrase: str, rest: str) -> bool:
    """"the use of X", "should use X", "uses of", a value that is a pronoun or a preposition."""
    first = rest.split(" ", 1)[0] if rest else ""
    if first in _NOT_A_VALUE:
        return True
    previous = before.rsplit(None, 1)[-1] if before.strip() else ""
    if phrase == "use" and not previous:
        return True  # "Use uv for installs": an instruction
    return phrase in ("use", "uses") and previous in _NOT_BEFORE_USE


def _original_case(body: str, folded_value: str) -> str:
    index = fold(body).find(folded_value)
    return body[index : index + len(folded_value)] if index >= 0 else folded_value


@lru_cache(maxsize=8)
def _anchor_pattern(vocabulary: Vocabulary) -> re.Pattern[str]:
    alternatives = sorted(vocabulary.anchors, key=lambda t: (-len(t), t))
    return re.compile("(?<= )(?:" + "|".join(re.escape(t) for t in alternatives) + ")(?= )")


def status_verb(body: str, vocabulary: Vocabulary) -> str | None:
    transition = find_transition(body, vocabulary)
    if transition is not None:
        return transition.trigger
    folded = fold(body)
    if not holds_any(folded, _STATUS_HINT):  # a status verb among its words is in its text
        return None
    for word in folded_tokens(folded):
        if word in STATUS_VERBS:
            return word
    return None

