"""Cues: what the store-wide layers look for in a claim, read once per fact.

Numeric drift reads quantities ("2129 tests passing", "40% remaining"), stale pins read
`name@1.2.3` and "currently at version 2.0.9", replaced tools read "instead of using X" and
"Use X", rejected names need a prohibition or retirement word ("do not use", "legacy") and
answered questions an open mark ("(needs confirmation)"), both words of the lexicon: each of
these layers searched every claim of the store on every run. Each layer still reads the claim
itself; `cues()` only says which of these a claim holds at all, as bits the
reader computes once per fact and the parse cache keeps, so a warm run's layers visit the facts that hold their cue and skip the rest without
searching them again (a cold run searches each claim once, as the layers did). A bit is set
whenever the layer's own reading could find something: a cue may be set in vain, never missing.
The cues read with the lexicon's words count only in a run with the lexicon they were read with,
and a transition trigger (explicit contradictions), read with the vocabulary's, only in a run
with that vocabulary.
"""

from __future__ import annotations

import re
from functools import lru_cache

from memory_autopsy import lazyre
from memory_autopsy.claims import find_transition
from memory_autopsy.lexicon import Lexicon, unspaced
from memory_autopsy.normalize import holds_any
from memory_autopsy.vocabulary import Vocabulary

# --- quantities (numeric drift) ---------------------------------------------------------------

_COUNTED = (
    r"tests?|specs?|files?|endpoints?|components?|requirements?|errors?|warnings?|issues?|"
    r"vulnerabilit(?:y|ies)|packages?|dependencies|modules?|pages?|routes?|commands?|rules?|"
    r"tables?|models?|tools?|screens?|migrations?|services?|workflows?|lines?"
)
# Thousands groups are bounded: `111,` repeated would otherwise be rescanned from every comma.
# Words between a counted noun and its state that leave the count as it is: "48 tests now passing".
_BETWEEN = "(?:now|currently|still|all|are|were|now all)"
COUNT = lazyre.compile(
    rf"(?:\b(?P<adj>[a-z][a-z-]{{1,20}})\s+)?(?<![\d.])(?P<n>\d{{1,3}}(?:,\d{{3}}){{1,4}}|\d{{1,7}})\+?\s+"
    rf"(?:(?P<adj2>[a-z][a-z-]{{1,20}})\s+)?(?P<noun>{_COUNTED})\b(?:\s+(?:{_BETWEEN}\s+)?(?P<state>[a-z]+))?",
    re.I,
)
# "90% complete", "95% platform complete" (one word may name what is done), "85%完了".
PERCENT = lazyre.compile(r"(?<![\d.])(?P<n>\d{1,3})\s?%(?:\s+(?:[a-z][a-z-]{1,20}\s+)?"
                         r"(?P<word>complete|completed|done|remaining|left)\b|\s?(?P<cjk>完了|完成|已完成))", re.I)
_DIGIT = lazyre.compile(r"\d")
_STATES = frozenset("passing pass passed failing fail failed remaining left open implemented total".split())
# One state in its forms: "all 1948 tests pass" and "2129 tests passing" count one thing.
_STATE_FORM = {"pass": "passing", "passed": "passing", "fail": "failing", "failed": "failing", "left": "remaining"}
# "Total files: 60+", "Test count: 1,800", "総ファイル数: 100+": a label that names a count, and a
# number that is the whole value (a unit word or a note in parentheses may follow; not a ratio,
# a version or a time: "37/37", "1.2", "10:30"). The label holds no digit and stops at the colon.
LABELLED = lazyre.compile(
    r"(?P<label>[^\W\d][^:：\d]{0,38}?)[:：][ \t]*(?:[~≈約约][ \t]*)?"
    r"(?P<n>\d{1,3}(?:,\d{3}){1,4}|\d{1,7})\+?(?![\d/.:,])"
    r"(?:[ \t]*(?P<word>[^\W\d]{1,12}))?(?:[ \t]*[(（][^()（）]*[)）])?[ \t.]*$"
)
_COUNTED_LABEL = lazyre.compile(rf"(?:{_COUNTED})", re.I)
# Words before a count that say nothing about which count it is.
_NOT_QUALIFIERS = frozenset("all with now has have are were of only over about around nearly approximately and the".split())
_COUNT_LABEL = frozenset({"total", "count", "number", "tests", "test", "files", "lines"})
_COUNT_MARKS = ("数", "數")  # "総ファイル数", "测试总数"
_DONE = frozenset({"complete", "completed", "done", "完了", "完成", "已完成"})
# The words one of which a counted claim holds (its state word, "pass" and "fail" as stems).
_STATE_HINTS = tuple(sorted({w[:4] if w.startswith(("pass", "fail")) else w for w in _STATES}))


def _may_hold(claim: str, lowered: str, words: tuple[str, ...]) -> bool:
    """Whether a case-blind pattern that needs one of `words` (lower-case ASCII) can match the
    claim: a substring test of the lower-cased text, much cheaper than a case-blind search. A
    non-ASCII claim always can: a case-blind `i`, `k` or `s` also matches `ı`, `İ`, `K` or `ſ`,
    which lower-casing keeps apart, so the pattern itself decides there."""
    return not claim.isascii() or holds_any(lowered, words)


@lru_cache(maxsize=65536)
def quantities(claim: str) -> tuple[tuple[tuple[str, ...], int], ...]:
    """(quantity key, number) pairs stated in a claim; a share remaining is read as done. A
    clause after the first is read as a claim of its own too ("Shipped v2; Tests: 2129
    passing")."""
    found = _quantities(claim)
    tail = told_after(claim)
    return tuple(dict.fromkeys((*found, *_quantities(tail)))) if tail else found


def share_done(text: str) -> int | None:
    """The share done a text states ("50% complete", "40% remaining" is 60), or None."""
    return dict(quantities(text)).get(("percent", "done")) if "%" in text else None


_CLAUSE = lazyre.compile(r"[;；]|,\s|\s[-–—]\s")


def told_after(claim: str) -> str:
    """The claim past its first clause ("Added the exporter; 145 tests passing" -> "145 tests
    passing"), "" for a claim of one clause."""
    parts = _CLAUSE.split(claim, maxsplit=1) if _DIGIT.search(claim) else ()
    return parts[1] if len(parts) == 2 else ""


def _quantities(claim: str) -> tuple[tuple[tuple[str, ...], int], ...]:
    found: dict[tuple[str, ...], int] = {}
    if _DIGIT.search(claim) is None:
        return ()
    labelled = LABELLED.match(claim.strip()) if ":" in claim or "：" in claim else None
    if labelled is not None and (key := _count_label(labelled["label"])):
        found[("label", key)] = int(labelled["n"].replace(",", ""))
    if labelled is not None and (noun_key := _counted_label(labelled["label"], labelled["word"])):
        found.setdefault(noun_key, int(labelled["n"].replace(",", "")))
    counted = _may_hold(claim, claim.lower(), _STATE_HINTS)  # a count needs a state word after its noun
    if not counted and "%" not in claim:
        return tuple(found.items())
    for match in COUNT.finditer(claim) if counted else ():
        adjective = (match["adj2"] or match["adj"] or "").lower()
        state = (match["state"] or "").lower()
        if state not in _STATES and adjective in _STATES and match["adj2"]:
            state = adjective  # "124 passing tests"
        if state not in _STATES:
            continue  # "496 tests, 39 files": a bare count says nothing about which total it is
        if adjective in _STATES or adjective in _NOT_QUALIFIERS:
            adjective = ""  # "all 1948 tests pass", "with 124 passing tests"
        found.setdefault(_count_key(adjective, match["noun"], state), int(match["n"].replace(",", "")))
    for match in PERCENT.finditer(claim) if "%" in claim else ():
        share = int(match["n"])
        word = (match["word"] or match["cjk"]).lower()
        found.setdefault(("percent", "done"), share if word in _DONE else 100 - share)
    return tuple(found.items())


def _counted_label(label: str, word: str | None) -> tuple[str, ...] | None:
    """"Tests: 2129 passing" counts what "2129 tests passing" counts: a label that is the counted
    noun, and a state word after the number."""
    state = (word or "").lower()
    noun = label.strip(" *_`#-")
    if state not in _STATES or not _COUNTED_LABEL.fullmatch(noun):
        return None
    return _count_key("", noun, state)


def _count_key(adjective: str, noun: str, state: str) -> tuple[str, ...]:
    """The key of a count: its qualifier, its noun in the singular and its state in one form
    ("tests pass" and "test passing" count one thing)."""
    return ("count", adjective, noun.lower().rstrip("s").removesuffix("ie"), _STATE_FORM.get(state, state))


def _count_label(label: str) -> str:
    """A label that names a count, in a form its rewordings share: the sorted words of an
    English label ("Test count", "Count of tests"), the sorted characters of a CJK one
    ("チャレンジ総数" and "総チャレンジ数" are one count); "" for a label that counts nothing."""
    text = label.strip(" *_`#-").casefold()
    if text.isascii():
        words = {w.rstrip("s") for w in text.replace("-", " ").split() if w not in ("of", "the", "a")}
        return " ".join(sorted(words)) if words & {w.rstrip("s") for w in _COUNT_LABEL} else ""
    if not any(mark in text for mark in _COUNT_MARKS):
        return ""
    return "".join(sorted(ch for ch in text if ch.isalnum()))


# --- pins and current versions (stale pins) ---------------------------------------------------

def version_pattern(group: str = "version") -> str:
    """A version ("v1.0.1", "2.14"), captured as `group`: a pattern may hold two, named apart."""
    return rf"v?(?P<{group}>\d{{1,6}}(?:\.\d{{1,6}}){{1,3}})"


_VERSION = version_pattern()
PIN = re.compile(r"(?<![\w@/.-])(?P<name>@?[a-z0-9][\w.-]{0,80}?)@" + _VERSION + r"\b", re.I)
CURRENT = re.compile(
    r"\b(?:(?:currently|now)\s+(?:at|on)\s+(?:version\s+|v(?=\d))|current\s+version[*_]{0,2}\s*(?:is|:)?[\s*_]{0,6}"
    r"|latest\s+version[*_]{0,2}\s*(?:is|:)[\s*_]{0,6})" + _VERSION + r"\b",
    re.I,
)
# A claim that opens by labelling the project's own version: "**Version:** 1.0.0 (see
# installer.iss)", "Build version: v1.56.0". A version labelled with another name ("Python
# version: 3.11", "Sailor version: v1.22.0") is that thing's.
VERSION_LABEL = re.compile(
    r"[\W_]{0,8}(?:(?:current|project|app|application|build|package|product|release)[ \t]+)?version[*_]{0,2}"
    r"[ \t]*[:=][*_ \t]{0,6}" + _VERSION + r"\b",
    re.I,
)

# --- replaced tools -----------------------------------------------------------------------------

REPLACED = re.compile(
    r"\b(?:instead of|rather than)\s+(?:relying on|using|running|calling|invoking)\s+(?:the\s+)?"
    r"(?P<old>[\w][\w./-]{0,80})",
    re.I,
)
USES = re.compile(r"(?:use|run|call|invoke|execute)\s+(?P<tool>[\w][\w./-]{0,80})", re.I)

# --- words of the lexicon: rejections, open questions ------------------------------------------

LEGACY = frozenset({"legacy"})  # a retirement word the rejected-name layer adds to the lexicon's


@lru_cache(maxsize=8)
def retiring_words(lexicon: Lexicon) -> frozenset[str]:
    """The words that retire a name: the lexicon's deprecation words and "legacy"."""
    return lexicon.deprecation_words | LEGACY


# The words a record of a name removed, replaced or renamed away holds ("Deleted: x.py", "renamed
# from X", "Replaced `x` with `y`", "migrated from `x`"; a thing "moved from `a/`" leaves a/).
GONE_WORDS = ("deleted", "removed", "dropped", "replaced", "renamed", "formerly", "migrated", "switched")


@lru_cache(maxsize=8)
def rejection_words(retiring: frozenset[str]) -> tuple[str, ...]:
    """Words one of which every rejecting claim holds (a prohibition, a retirement word or a
    record of the name gone), for a substring test of the lower-cased text (`normalize.holds_any`)."""
    return tuple(sorted({"not", "don", "never", "stop", *GONE_WORDS} | {w for w in retiring if w.isascii()}))


def open_mark(claim: str, marks: tuple[str, ...]) -> str:
    """The open-question mark the claim carries in parentheses or at its end, if any."""
    text = claim.casefold()
    end = len(text.rstrip(" .*_"))
    if "(" not in text and "（" not in text and not text[:end].endswith(marks):
        return ""
    for mark in marks:
        start = text.find(mark)
        while start != -1:
            stop = start + len(mark)
            whole = unspaced(mark) or not (_word_char(text, start - 1) or _word_char(text, stop))
            if whole and (text[max(0, start - 4):start].rstrip().endswith(("(", "（"))
                          or text[stop:stop + 4].lstrip().startswith((")", "）")) or stop >= end):
                return mark
            start = text.find(mark, stop)
    return ""


def _word_char(text: str, index: int) -> bool:
    """Whether text[index] continues a word ("(tbcheck)" holds no "tbc")."""
    return 0 <= index < len(text) and text[index].isalnum()


NUMBERS, PINS, REPLACES, USES_TOOL, REJECTS, OPEN = CUES = (1, 2, 4, 8, 16, 32)
WORDED = REJECTS | OPEN  # read with the lexicon's words: trusted only with the lexicon they were read with
RETRACTS = 64  # a transition trigger ("moved to", "no longer uses"), read with the vocabulary's words
ALL = -1  # a fact whose cues were never read (built outside a reader): every layer visits it


# What CURRENT and REPLACED each need, one of (see _may_hold).
_CURRENT_WORDS = ("current", "now", "latest")
_REPLACED_WORDS = ("instead of", "rather than")


def cues(claim: str, norm: str, lexicon: Lexicon) -> int:
    """The cue bits of a claim, its normalized body and the lexicon read with."""
    lowered = claim.lower()
    bits = NUMBERS if _DIGIT.search(claim) and quantities(claim) else 0  # its own first test, before its cache
    if (("@" in claim and PIN.search(claim)) or (_may_hold(claim, lowered, _CURRENT_WORDS) and CURRENT.search(claim))
            or ("version" in lowered and VERSION_LABEL.match(claim))):
        bits |= PINS
    if _may_hold(claim, lowered, _REPLACED_WORDS) and REPLACED.search(claim):
        bits |= REPLACES
    if USES.match(claim):
        bits |= USES_TOOL
    if not norm or holds_any(norm, rejection_words(retiring_words(lexicon))):
        bits |= REJECTS  # an empty body: the layer reads another text of the fact
    if open_mark(claim, lexicon.open_question_words):
        bits |= OPEN
    return bits


def retraction_cue(body: str, vocabulary: Vocabulary) -> int:
    """RETRACTS when a prose body holds a transition trigger, or is empty (the transition layer
    then reads another text of the fact)."""
    return RETRACTS if not body or find_transition(body, vocabulary) is not None else 0
