"""Layer 2b: one quantity of one subject stated with different numbers ("1800+ tests pass",
later "2129 tests pass"; "90% complete" beside "40% remaining"; "Total files: 60+" in one file
and "Total files: 100+" in another).

A quantity is a number with the noun it counts, the word before that noun ("unit tests" and
"integration tests" are two quantities) and a state word after it ("passing", "remaining"), or
a number that is the whole value of a label naming a count ("Test count: 1,800"). Quantities
are compared within one store. An observation order proves drift: the older statement is
flagged and the newer named; two statements of one dated entry tell a story ("from 1800 to
2129 tests") and are left alone. An undated statement that differs from its store's newest
(or, none dated, from its first) is flagged naming it, as unordered: no date says which is
current, and the judges weigh what that proves. Items of one list or table, or two labels
of different subjects ("Frontend: 120 tests passing" / "Backend: 300 tests passing"), and
two statements that each name a subject before the number, neither holding the other ("The
project is 90% complete" / "The auth module is 100% complete"), are separate quantities.
"""

from __future__ import annotations

from collections.abc import Iterator

from memory_autopsy import lazyre
from memory_autopsy.claims import two_subjects
from memory_autopsy.cues import NUMBERS, quantities, told_after
from memory_autopsy.engine.context import Context, observed_order
from memory_autopsy.engine.findings import fact_finding, quote
from memory_autopsy.lexicon import UNSPACED_RUN
from memory_autopsy.model import HISTORY, Fact, Finding
from memory_autopsy.normalize import STOPWORDS, tokens

Key = tuple[str, ...]
# "Frontend: 120 tests passing": opened by a letter, the label keeps its blanks (a blank run
# before the colon, matched apart, would be rescanned once per label length).
_SUBJECT = lazyre.compile(r"([^\W\d][^:：\d]{0,39}?)[:：]")
# Words that say when a statement was made, not of what: "On 2026-03-02", "Session 9 (Mar 2):"
_WHEN = frozenset("""session sprint day week month year iteration update entry today yesterday currently now
as of jan feb mar apr may jun jul aug sep sept oct nov dec january february march april june july august
september october november december""".split())
# Words that name the measure, not what is measured: "Overall Status: 90%" and "Overall Progress:
# 95%" are two reports of the whole's share done.
_MEASURE = frozenset("status progress completion complete state current overview summary".split())
_WHOLE_NUMBER = lazyre.compile(r"(?<![\w.])\d{1,15}(?![\d.]\d)")


def find(ctx: Context) -> Iterator[Finding]:
    groups: dict[tuple[str, Key], list[tuple[Fact, int]]] = {}
    # A heading's share done ("### 4. Integrations - 50% complete") is a statement as an item's is.
    shares = [h for h in ctx.headings if "%" in h.claim]
    for fact in (*ctx.cued(NUMBERS), *shares):
        if fact.kind == HISTORY:
            continue  # "Before: 466 passing": a count that was, beside the one that is
        reported = _reported(fact.claim) if fact.kind == "event" else ()
        for key, number in quantities(fact.claim):
            if key[0] != "label" and fact.kind == "guideline":
                continue  # "Ensure all 200 tests pass": a rule; "Test count: 200" is a value whatever its lead
            if key[0] == "count" and fact.kind == "event" and (key, number) not in reported:
                continue  # "Fixed 5 failing tests" counts a change, not the total
            groups.setdefault((ctx.store_key(fact), key), []).append((fact, number))
    for (_, key), statements in groups.items():
        yield from _drift(ctx, key, statements)


def _reported(claim: str) -> tuple[tuple[Key, int], ...]:
    """The counts an event reports in a clause after its own ("Added the exporter; 145 tests
    passing", "Fixed 5 failing tests, all 145 tests pass"): a state told beside the change."""
    tail = told_after(claim)
    return quantities(tail) if tail else ()


def _drift(ctx: Context, key: Key, statements: list[tuple[Fact, int]]) -> Iterator[Finding]:
    """Each statement against its store's reference for the quantity (the newest dated, or the
    first), then against the reference of the statements that name the same subject before
    their number ("Overall Progress: 95% Complete" / "Overall Status: 90% Complete" beside
    "Phase 1: 100%"): where one quantity is reported per part, each part is compared with
    itself, not only with the whole. A pair is reported once."""
    reference = _reference(statements)
    by_subject: dict[frozenset[str], list[tuple[Fact, int]]] = {}
    subject_of: dict[int, frozenset[str]] = {}
    if key[0] != "label":
        for fact, number in statements:
            words = subject_of[fact.order] = _said_before(fact.claim, number)
            if words:
                by_subject.setdefault(words, []).append((fact, number))
    own: dict[frozenset[str], tuple[Fact, int]] = {}
    flagged: dict[int, int] = {}  # flagged statement -> the one it was read against
    for fact, number in statements:
        if fact.order in flagged:
            continue
        words = subject_of.get(fact.order, frozenset())
        if words and words not in own and len(by_subject[words]) > 1:
            own[words] = _reference(by_subject[words])
        for other, now in dict.fromkeys((reference, own.get(words, reference))):
            if flagged.get(other.order) != fact.order and _drifted(ctx, key, fact, number, other, now):
                flagged[fact.order] = other.order
                yield _finding(fact, other, key, number, now)
                break


def _reference(statements: list[tuple[Fact, int]]) -> tuple[Fact, int]:
    """The statement the others are read against: the newest dated, or the first."""
    dated = [s for s in statements if s[0].observed_at]
    return max(dated, key=lambda s: (s[0].observed_at or "", -s[0].order)) if dated else statements[0]


def _drifted(ctx: Context, key: Key, fact: Fact, number: int, other: Fact, now: int) -> bool:
    if fact is other or number == now:
        return False
    if fact.observed_at:
        if observed_order(fact, other) != -1 or (fact.entry and fact.entry == other.entry):
            return False
    elif not _one_subject(ctx, key, fact, other):
        return False
    # a label is its own subject ("チャレンジ総数" and "総チャレンジ数" are one)
    return key[0] == "label" or _said_of_one(fact.claim, number, other.claim, now)


def _one_subject(ctx: Context, key: Key, fact: Fact, other: Fact) -> bool:
    """Whether two undated statements can be of one quantity: not two items of one list or
    table, and not counts under two labels ("Frontend: …" / "Backend: …"; "Overall: …" and
    "Overall progress: …" label one subject)."""
    if ctx.one_run(fact, other):
        return False
    if key[0] == "label":
        return True  # the label is the subject
    subjects = _SUBJECT.match(fact.claim), _SUBJECT.match(other.claim)
    if not (subjects[0] and subjects[1]):
        return True
    # "Overall: 100% complete" / "**Overall Progress**: 95% complete": one label holds the other
    return not two_subjects(_label_words(subjects[0][1]), _label_words(subjects[1][1]))


def _label_words(label: str) -> frozenset[str]:
    return frozenset(word for word in tokens(label) if word not in STOPWORDS and word not in _MEASURE)


def _said_of_one(claim: str, number: int, other: str, other_number: int) -> bool:
    """Whether two statements of a quantity may be of one subject: not when each names one
    before its number and neither holds the other ("Project is 90% complete" / "The auth module
    is 100% complete"). Numbers and words of time are no subject ("Session 9 (Mar 2): …")."""
    return not two_subjects(_said_before(claim, number), _said_before(other, other_number))


def _said_before(claim: str, number: int) -> frozenset[str]:
    """The words a statement writes before its number, less the small ones, numbers and words
    of time; a word written without spaces ("コア機能"), which tokens() does not read, too."""
    text = claim.replace(",", "")  # "1,800" as the reader counted it
    at = next((m.start() for m in _WHOLE_NUMBER.finditer(text) if int(m.group()) == number), 0)
    words = tokens(text[:at])
    if not text.isascii():
        words += UNSPACED_RUN.findall(text[:at])
    return frozenset(word for word in words
                     if word not in STOPWORDS and word not in _WHEN and word not in _MEASURE and not word[0].isdigit())


def _finding(older: Fact, newer: Fact, key: Key, was: int, now: int) -> Finding:
    if key[0] == "label":
        label = _SUBJECT.match(older.claim.strip())
        what = label[1].strip(" *_`") if label else "count"
    else:
        what = "share done" if key[0] == "percent" else " ".join(w for w in key[1:] if w)
    unit = "%" if key[0] == "percent" else ""
    when = (f"observed {older.observed_at} -> {newer.observed_at}" if older.observed_at and newer.observed_at
            else "no date says which is current")
    message = f"{what}: {was}{unit} here, {now}{unit} at {newer.where} ({when}: {quote(newer.claim)!r})"
    return fact_finding("numeric_drift", older, message, related=[newer], symmetric=not older.observed_at,
                        extra={"survivor_date": newer.observed_at})
