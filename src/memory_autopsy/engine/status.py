"""Layer 2b: one task, done in one place and still pending (next step, in progress, TODO,
blocked) in another.

Done evidence is a fact whose status is done (a checked box, ✅, "(Completed)", a Completed
section) or an event ("Implemented the exporter"). A pending task matches done evidence when
nearly all of its words (stemmed; status words and the verbs of doing work, "create",
"generated", "set up", left out) are in the evidence, and make up much of it or of its title
(what it says before its details, past a "Completed:" label). Newer evidence
wins: the older side is flagged; with no observation order the pending side is flagged, since
a done mark is the stronger statement. Candidates come from an index of words: linear.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator, Sequence
from functools import lru_cache
from itertools import islice
from typing import NamedTuple

from memory_autopsy import lazyre
from memory_autopsy.cues import share_done
from memory_autopsy.dates import by_first_letter
from memory_autopsy.engine.context import Context, observed_order
from memory_autopsy.engine.findings import fact_finding, quote
from memory_autopsy.lexicon import IDEOGRAPHS_AND_KANA, Lexicon, unit_alternation, unspaced
from memory_autopsy.model import Fact, Finding
from memory_autopsy.normalize import STOPWORDS, WORD, fold, normalize_claim, stem, tokens

PENDING = frozenset({"pending", "in_progress", "blocked"})
CONTAINED = 0.7  # share of the pending task's words found in the evidence
NEARLY = 0.8  # … below which a word the task qualifies otherwise is another task (_requalified)
COVERED = 0.4  # share of the evidence's words that are the task's (a long log line is no match)
MIN_WORDS = 2
COMMON = 40  # a word in more evidence than this does not find candidates
_NOISE = frozenset({"task", "tasks", "todo", "item", "items", "work", "pr", "yet"})  # "NOT YET IMPLEMENTED"
_DATE = lazyre.compile(r"\b\d{4}-\d{1,2}-\d{1,2}\b")
_FIELD_LABEL = lazyre.compile(r"^[\s*_-]{0,4}([^:\n]{1,30}):")
# Work begun or done in part, not done: "Began the billing tables migration", "✅ Billing
# tables migration (partial)".
_BEGUN = lazyre.compile(r"^\W*(?:began|begun|started|starting|kicked\s+off|commenced|initiated)\b", re.I)
# A mark of the work's extent, not a thing named partial ("✅ Added partial refunds" is done).
_PARTIAL = lazyre.compile(r"\bpartially\b|\bin\s+part\b|(?:[(\[:,]|[-–—]\s)\s*partial\b(?!\s+[a-z])", re.I)


def find(ctx: Context) -> Iterator[Finding]:
    # A heading that marks its title ("## Phase 5 ✅ COMPLETE", "### Segments - IN PROGRESS")
    # is a side like any item: done evidence, or a task still pending.
    lexicon = ctx.lexicon
    # A heading that names a kind of task ("### Tasks", "### Technologies" under Active and under
    # Completed) is a category, not a task: a title claim needs the words a task has, or a unit.
    titles = [f for f in ctx.headings if len(task_words(f.claim, lexicon)) >= MIN_WORDS or unit_of(f.claim, lexicon)]
    claims = [f for f in (*ctx.active, *titles) if not _record_field(f.claim, lexicon.record_fields)]
    done = [f for f in claims if done_evidence(f)]  # done evidence
    flagged: set[int] = set()
    if done:
        index = _Index(ctx, done)
        for fact in claims:
            if fact.status not in PENDING:
                continue
            match = index.best(fact)
            if match is not None:
                flagged.add(fact.order)
                yield status_finding(fact, *match)
    yield from _ranges(ctx, claims, flagged)  # a run's status is its clause's, not its claim's


def _record_field(claim: str, fields: frozenset[str]) -> bool:
    """"Priority: High", "Branch: feature/auth", "Status: Completed" under a task: a field of the
    task's record, which takes the task's status, and no task of its own (two tasks' records
    share their fields' words)."""
    label = _FIELD_LABEL.match(claim)
    return label is not None and label.group(1).strip(" *_").casefold() in fields


def done_evidence(fact: Fact) -> bool:
    """Whether a claim is evidence that its task is done: marked done or reported as an event,
    unless it says the work only began or was done in part ("✅ Knowledge base (80% done)")."""
    if fact.status != "done" and fact.kind != "event":
        return False
    return not _BEGUN.match(fact.claim) and not _PARTIAL.search(fact.claim) and not _part_done(fact.claim)


def _part_done(claim: str) -> bool:
    """A share done below the whole: "(80% complete)", "33% Complete (1/3)"."""
    share = share_done(claim)
    return share is not None and share < 100


class _Index:
    def __init__(self, ctx: Context, done: Sequence[Fact]) -> None:
        self.ctx = ctx
        self.lexicon = lexicon = ctx.lexicon
        self.done = done
        self.words = [task_words(f.claim, lexicon) for f in done]
        # Per claim, only its two newest copies: the newest other than the task itself is one of
        # them, and a claim done thousands of times is not rescanned for every pending copy.
        self.exact: dict[str, list[Fact]] = {}
        self.by_word: dict[str, list[int]] = {}
        self.by_unit: dict[tuple[str, str], list[Fact]] = {}
        self.unit: dict[int, tuple[str, str]] = {}  # a done fact's numbered unit, by its order
        for i, fact in enumerate(done):
            unit = unit_of(fact.claim, lexicon)
            if unit is not None:
                self.by_unit.setdefault(unit, []).append(fact)
                self.unit[fact.order] = unit
            newest = self.exact.setdefault(normalize_claim(fact.claim), [])
            newest[:] = sorted([*newest, fact], key=_age, reverse=True)[:2]
            for word in self.words[i]:
                self.by_word.setdefault(word, []).append(i)

    def best(self, task: Fact) -> tuple[Fact, str] | None:
        """The done evidence for the task, and how it matched: `same` words, `words` of the task
        nearly all in the evidence, `title` (the titles name one thing) or `unit` (both open
        with one numbered unit of work: "Phase 3", "Sprint 2", "MECH-2")."""
        same = [f for f in self.exact.get(normalize_claim(task.claim), ()) if self._pairs(task, f)]
        if same:
            return _newest(same), "same"
        words = task_words(task.claim, self.lexicon)
        if len(words) < MIN_WORDS:
            return None
        unit = unit_of(task.claim, self.lexicon)
        hits: dict[int, int] = {}
        for word in words:
            postings = self.by_word.get(word, ())
            if len(postings) > COMMON:
                continue
            for i in postings:
                hits[i] = hits.get(i, 0) + 1
        found = [
            self.done[i] for i, shared in hits.items()
            if shared >= CONTAINED * len(words) and self._covers(words, shared, i) and self._pairs(task, self.done[i])
            and self._same_unit(unit, self.done[i])
            and (shared >= NEARLY * len(words) or _near_enough(task.claim, self.done[i].claim, self.lexicon))
        ]
        if found:
            return _newest(found), "words"
        titled = self._by_title(task)
        if titled is not None and self._same_unit(unit, titled):
            return titled, "title"
        if unit is None:
            return None
        units = [f for f in self.by_unit.get(unit, ()) if self._pairs(task, f)]
        # A unit is first its own document's ("iter 2" of this plan), then the store's ("Phase 3"
        # of a project, in its progress file and its active context)
        units = [f for f in units if f.path == task.path] or units
        return (_newest(units), "unit") if units else None

    def _covers(self, words: frozenset[str], shared: int, i: int) -> bool:
        """The task is much of what the evidence says: of all its words, or of its title ("Redis
        cache service (hot data, TTL per key) ✅" is about a Redis cache, whatever follows)."""
        if shared >= COVERED * len(self.words[i]):
            return True
        title = title_words(self.done[i].claim, self.lexicon)
        return len(title) >= MIN_WORDS and len(words & title) >= COVERED * len(title)

    def _same_unit(self, unit: tuple[str, str] | None, evidence: Fact) -> bool:
        """Not two numbered units of one kind ("Phase 2 UI polish" / "Phase 3 UI polish")."""
        other = self.unit.get(evidence.order)
        return unit is None or other is None or other[0] != unit[0] or other == unit

    def _pairs(self, task: Fact, evidence: Fact) -> bool:
        return evidence is not task and self.ctx.together(task, evidence)

    def _by_title(self, task: Fact) -> Fact | None:
        """"Implement Config Flow (Phase 1: setup) based on plan.md" is the task "Config Flow":
        done evidence whose own title names the same thing matches, however long the details."""
        title = title_words(task.claim, self.lexicon)
        if len(title) < MIN_WORDS or _only_units(title, self.lexicon):
            return None  # "NEXT: iter 2 (feel)" names a unit: the unit decides, in its document
        found = []
        for i in {i for word in title for i in self.by_word.get(word, ())[: COMMON + 1]}:
            other = title_words(self.done[i].claim, self.lexicon)
            if _only_units(other, self.lexicon):
                continue
            shared = len(title & other)
            if shared >= CONTAINED * len(title) and shared >= CONTAINED * len(other) and self._pairs(task, self.done[i]) and (
                    shared >= NEARLY * len(title) or _near_enough(task.claim, self.done[i].claim, self.lexicon)):
                found.append(self.done[i])
        return _newest(found) if found else None


class _Span(NamedTuple):
    """Units of work a claim gives one status: ("phase", 3, 6, "pending") for "Phases 3-6
    planned"; one unit is a span of one."""

    fact: Fact
    kind: str
    low: int
    high: int
    status: str  # "done", or one of PENDING


MAX_SPAN = 50  # "Phases 3-6": a longer run of numbers is no run of units ("Steps 1-2000")
RANGE_CANDIDATES = 16  # done runs tried per unit (linear in the claims)
MAX_RUNS = 8  # runs one claim gives statuses to


def _ranges(ctx: Context, claims: Sequence[Fact], flagged: set[int]) -> Iterator[Finding]:
    """Units of work told as a run ("Phases 0-2 complete, Phases 3-6 planned", "Phase 3 to
    Phase 6 not started") against one unit or another run of them with the other status
    ("## Phase 4 ✅ COMPLETE", "| Phase 4 | 100% |"): the unit inside the run is one task,
    done in one place and still pending in another. Each run takes the status written after
    it, up to the next run or clause; a claim with one run and none written takes its own."""
    lexicon = ctx.lexicon
    search = _span_pattern(lexicon).search  # most claims name no unit: one search, no call
    runs: list[_Span] = []
    for fact in claims:
        if search(fact.claim):
            runs += _spans(fact, lexicon)
        elif "ll " in fact.claim or "LL " in fact.claim:  # "All phases complete", looked for only then
            runs += _all_done(fact, lexicon)
    claims_told = Counter(span.fact.order for span in runs)  # a claim telling several units is a run too
    if not any(span.high > span.low or claims_told[span.fact.order] > 1 for span in runs):
        return
    by_kind: dict[str, list[_Span]] = {}
    for span in runs:
        by_kind.setdefault(span.kind, []).append(span)
    for spans in by_kind.values():
        told: dict[int, list[_Span]] = {}  # per claim, its runs: "Phases 0-12 complete (Phase 11 deferred)"
        done: dict[int, list[_Span]] = {}  # per unit, the runs that say it done, newest first
        for span in spans:
            told.setdefault(span.fact.order, []).append(span)
            if span.status == "done":
                for unit in range(span.low, span.high + 1):
                    done.setdefault(unit, []).append(span)
        for bucket in done.values():
            bucket.sort(key=lambda s: _age(s.fact), reverse=True)
            del bucket[RANGE_CANDIDATES:]  # a unit said done a thousand times: its newest decide
        for task in (s for s in spans if s.status in PENDING and s.fact.order not in flagged):
            tried: dict[int, _Span] = {}
            visited = 0
            for unit in range(task.low, task.high + 1):
                bucket = done.get(unit, [])
                tried.update((id(s), s) for s in bucket)
                visited += len(bucket)
                if visited >= RANGE_CANDIDATES * 4:
                    break  # enough runs to find the newest of a busy store
            evidence = next((s for s in sorted(tried.values(), key=lambda s: _age(s.fact), reverse=True)
                             if s.fact is not task.fact and _several(task, s, told)
                             and ctx.together(task.fact, s.fact) and _disputed(task, s, told)), None)
            if evidence is not None:  # the newest done run of the task's units
                flagged.add(task.fact.order)
                yield status_finding(task.fact, evidence.fact, "range", pending=task.status)


def _several(task: _Span, done: _Span, told: dict[int, list[_Span]]) -> bool:
    """Whether either side tells more than one unit: a run ("Phases 3-6"), or a claim that gives
    several units each its status ("Phase 1+2 done, Phase 3 (Testing) open"). One unit against
    one unit is the index's (_Index.best), which reads a claim's opening unit only."""
    return (task.high > task.low or done.high > done.low
            or len(told[task.fact.order]) > 1 or len(told[done.fact.order]) > 1)


def _all_done(fact: Fact, lexicon: Lexicon) -> list[_Span]:
    """"All phases complete", "ALL 8 SPRINTS DONE", "all the milestones are finished": every unit
    of a kind done, a run of them all (of the first N, where N is counted). Where the claim lists
    them ("ALL PHASES COMPLETE (0-10, 12-20; 11 deferred)") the runs it lists before any other
    clause are the ones done; a claim that names them as units ("All 3 phases complete: Phase 6,
    Phase 7, Phase 8") says it in those runs (_spans, and _ranges asks this of no such claim).
    Not under a condition or a negation ("once all phases are complete", "not all phases done")."""
    claim = fact.claim
    match = _all_pattern(lexicon).search(claim)
    if match is None or _CONDITION.search(claim, 0, match.start()):
        return []
    kind = _unit_kind(match.group(2))
    rest = _DATE.sub(" ", claim[match.end():])
    if any(c.isdigit() for c in rest):  # the runs it lists, up to the next clause
        listed = _LISTED.findall(_CLAUSE_AFTER.split(rest, maxsplit=1)[0])
        return [_Span(fact, kind, int(low), int(high or low), "done")
                for low, high in listed[:MAX_RUNS] if int(low) <= int(high or low) <= int(low) + MAX_SPAN]
    count = int(match.group(1)) if match.group(1) else MAX_SPAN
    return [_Span(fact, kind, 0, min(count, MAX_SPAN), "done")]


_LISTED = lazyre.compile(r"(?<![\d.])(\d{1,3})(?:[ \t]*[-–][ \t]*(\d{1,3}))?(?![\d.])")
_CLAUSE_AFTER = lazyre.compile(r"[;]|\b(?:deferred|pending|planned|skipped|except|but)\b", re.I)
_CONDITION = lazyre.compile(r"\b(?:once|when|whenever|after|until|till|if|unless|before|not)\W+$", re.I)


@lru_cache(maxsize=8)
def _all_pattern(lexicon: Lexicon) -> re.Pattern[str]:
    words = unit_alternation(lexicon)
    # the words of a unit's status done, each one the lexicon's ("complete", "shipped", …)
    return re.compile(rf"\ball[ \t]+(?:the[ \t]+)?(?:(\d{{1,3}})[ \t]+)?({words})(?:s|es)[ \t]*(?:are[ \t]+|were[ \t]+|[:—–-][ \t]*)?"
                      r"(?:complete|completed|done|finished|shipped)\b", re.I)


def _disputed(task: _Span, done: _Span, told: dict[int, list[_Span]]) -> bool:
    """Whether a unit of both runs is pending in one and done in the other, past the units
    either claim tells apart itself ("Phases 0-12 complete (Phase 11 deferred)" says nothing
    done of Phase 11)."""
    if len(told[task.fact.order]) == 1 and len(told[done.fact.order]) == 1:
        return True  # no claim tells any unit apart: the runs overlap, as the index found them
    units = set(range(max(task.low, done.low), min(task.high, done.high) + 1))
    for span in (*told[task.fact.order], *told[done.fact.order]):
        if span is not task and span is not done and (span.high - span.low) < max(task.high - task.low, done.high - done.low):
            units -= set(range(span.low, span.high + 1))
    return bool(units)


def _spans(fact: Fact, lexicon: Lexicon) -> list[_Span]:
    claim = fact.claim
    matches = list(islice(_span_pattern(lexicon).finditer(claim), MAX_RUNS + 1))
    if not matches:
        return []
    found, leads, since = [], [], _subject_start(claim)
    for match in matches:
        lead = _lead(claim[since : match.start()], lexicon)
        since = match.end()
        if lead is not None:
            found.append(match)
            leads.append(lead)
    if len(found) > MAX_RUNS:
        return []  # a listing of units, not a claim about them
    spans: list[_Span] = []
    following = ""  # the status of the next run: "Phases 0-1 and 2-4 complete" gives both
    for at in range(len(found) - 1, -1, -1):
        match = found[at]
        after = claim[match.end() : found[at + 1].start() if at + 1 < len(found) else len(claim)]
        joined = WORD.findall(after.casefold()) in (["and"], [])
        low, high = int(match.group(2)), int(match.group(4) or match.group(2))
        written = _written_status(after, lexicon)
        if written and len(found) == 1 and fact.status:
            # a claim of one unit has the status its line states ("Phase 3: Testing & QA — DONE"
            # is done, whatever word of its title is also a status word)
            written = fact.status
        if high > low and not written and not joined and after[:1] == " " and after[1:2].isalnum():
            following = ""
            continue  # "Phase 2-3 migration": a thing between two units, neither of them
        status = written or (following if joined and at + 1 < len(found) else "")
        status = status or leads[at] or (fact.status if len(found) == 1 else "")
        following = status
        if status and low <= high <= low + MAX_SPAN:
            spans.append(_Span(fact, _unit_kind(match.group(1)), low, high, status))
    return spans


def _lead(before: str, lexicon: Lexicon) -> str | None:
    """What stands before a run of units in its clause (since the claim's start or the last
    run): "" for nothing ("…, Phases 3-6 planned"), the status a status word gives ("Completed
    Phases 0-2" -> done), None for other words ("Integration tests for Phase 3": a unit named
    later is not the subject)."""
    label, colon, rest = _CLAUSE_END.split(before)[-1].casefold().rpartition(":")
    words = " ".join(WORD.findall(rest))
    if colon and not words:  # "Status: Phases 3-6 planned", "Planned: Phases 3-6"
        return lexicon.status_words.get(" ".join(WORD.findall(label)), "")
    if not words or words in ("and", "all", "the"):
        return ""
    status = lexicon.status_words.get(words)
    if status == "done" and not (words.endswith("ed") or words == "done"):
        return ""  # "Complete Phase 4 by May": an order, not a report
    return status


_CLAUSE_END = lazyre.compile(r"[,;]|\.(?:\s|$)")
# A word of another script, as its first letters: no stemmer of its language is at hand, and
# "статистика" / "статистикой", "réalisé" / "réalisation" differ only in their endings.
_PREFIX = 5
_SPACED_WORD = lazyre.compile(r"[^\W_]+(?:\.[0-9]+)*")
_UNSPACED_RUN = lazyre.compile(f"[{IDEOGRAPHS_AND_KANA}]+")


def _written_status(text: str, lexicon: Lexicon) -> str:
    """The status a run's own clause gives it ("complete", "planned", "not started")."""
    text = _CLAUSE_END.split(text, maxsplit=1)[0].casefold()
    words = WORD.findall(text)[:6]
    for n in (3, 2, 1):
        for i in range(len(words) - n + 1):
            status = lexicon.status_words.get(" ".join(words[i : i + n]))
            if status:
                return status
    return ""


@lru_cache(maxsize=8)
def _span_pattern(lexicon: Lexicon) -> re.Pattern[str]:
    words = unit_alternation(lexicon)
    number = r"#?(\d{1,4})(?![.\d])"
    # Searched in every claim: the words grouped by their first letter (half the time of the flat list)
    return re.compile(
        rf"\b({by_first_letter([re.escape(w) for w in lexicon.unit_words])})(?:s|es)?[ \t]*{number}"
        rf"(?:[ \t]*(?:[-–—]|\bto\b|\bthrough\b|\bthru\b)[ \t]*(?:({words})(?:s|es)?[ \t]*)?#?(\d{{1,4}})(?![.\d]))?",
        re.I,
    )


def _newest(facts: list[Fact]) -> Fact:
    return max(facts, key=_age)


def _age(fact: Fact) -> tuple[str, int]:
    """Newest last; of equal dates, the one written first."""
    return (fact.observed_at or "", -fact.order)


@lru_cache(maxsize=65536)
def task_words(claim: str, lexicon: Lexicon) -> frozenset[str]:
    """The words that name a task: stemmed, without status words, stopwords, dates or the
    list number it opens with ("2. README_ja.md の作成" is the task "README_ja.md 更新 ✅" names)."""
    ideographs = frozenset(_folded(w) for w in _ideograph_words(claim, lexicon)) - _work_stems(lexicon)
    return frozenset(_spaced_task_words(claim, lexicon)) | ideographs


@lru_cache(maxsize=65536)
def _spaced_task_words(claim: str, lexicon: Lexicon) -> tuple[str, ...]:
    """The task words written with spaces, stemmed and folded, in the claim's order (status
    words and the doing of the task left out)."""
    words: list[str] = []
    text = claim.lstrip(" \t*_")
    numbered = _NUMBERING.match(text)
    text = text[numbered.end():] if numbered else claim
    text = _DATE.sub(" ", text) if "-" in text else text  # "✅ [2025-12-15]": a date, no task word
    found = tokens(text) if text.isascii() else _spaced_words(text)
    phrases = _work_phrases(lexicon)
    for at, token in enumerate(found):
        if token in STOPWORDS or token in _NOISE or token in lexicon.status_words or token in lexicon.function_words:
            continue
        if phrases and ((token, found[at + 1] if at + 1 < len(found) else "") in phrases
                        or (found[at - 1] if at else "", token) in phrases):
            continue  # "set up": the doing of a task, where "set" alone may be a thing
        if len(token) == 4 and token.isdigit() and token.startswith("20") or "." in token:
            continue  # a year or a version: "testing of release 2.14.22" is the same task later
        word = _stem(token)
        # "Create the docs set" is "Generated the docs set" when done: the doing is no task word
        if word not in _status_stems(lexicon) and (folded := _folded(word)) not in _work_stems(lexicon):
            words.append(folded)
    return tuple(words)


def _near_enough(task: str, evidence: str, lexicon: Lexicon) -> bool:
    """Whether a task most of whose words (CONTAINED, not NEARLY) the evidence says is the
    evidence's task: written with spaces on both sides (words read out of a run of ideographs
    are pieces of a compound, "パイプライン検証" / "パイプライン構築", where one piece tells two
    tasks apart), and no shared word qualified otherwise."""
    if _UNSPACED_RUN.search(task) or _UNSPACED_RUN.search(evidence):
        return False
    return not _requalified(task, evidence, lexicon)


def _requalified(task: str, evidence: str, lexicon: Lexicon) -> bool:
    """Whether the evidence qualifies a word the two share with another word than the task's:
    "migrate the billing tables" is not "Migrated the invoice tables", a sub-scope of one kind
    of thing. Read where only most of the task's words are in the evidence (NEARLY of them)."""
    said, done = _spaced_task_words(task, lexicon), _spaced_task_words(evidence, lexicon)
    task_set, done_set = set(said), set(done)
    before_done = {word: done[at - 1] for at, word in enumerate(done) if at}
    for at, word in enumerate(said):
        if not at or word not in done_set:
            continue
        mine, theirs = said[at - 1], before_done.get(word)
        if mine not in done_set and theirs is not None and theirs not in task_set:
            return True
    return False


def _spaced_words(text: str) -> list[str]:
    """The words of a line in any script written with spaces ("Экспорт отчётов", "réalisé"),
    as tokens() reads ASCII. Runs of ideographs or kana are _ideograph_words' (and hiragana,
    mostly particles and endings, names no task)."""
    return _SPACED_WORD.findall(_UNSPACED_RUN.sub(" ", fold(text)))


def _stem(word: str) -> str:
    """An English stem, or a word of another script as its first _PREFIX letters."""
    return stem(word) if word.isascii() else word[:_PREFIX]


def _folded(word: str) -> str:
    """A word as its plural reads: "phase" as "phases" ("phas"), "file" as "files"; and a verb
    in -ate as its noun in -ation reads ("migrate", "migrated": "migrat"; "migration": "migr"),
    so that "Migrate the billing tables" and "Billing tables migration" are one task."""
    word = word[:-1] if word.endswith("e") and len(word) > 3 else word
    return word[:-2] if len(word) >= 5 and word.endswith("at") and word[-3] not in "aeiou" else word


# A run of kanji, hanzi or katakana (hiragana, mostly particles and endings, splits runs).
_IDEOGRAPHS = lazyre.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u30a0-\u30ff\uff66-\uff9f]+")
_KATAKANA = lazyre.compile(r"([\u30a0-\u30ff\uff66-\uff9f]+)")


def _ideograph_words(claim: str, lexicon: Lexicon) -> set[str]:
    """Words of a script written without spaces ("Unity Sceneセットアップ完了"): a katakana
    run is a word, a run of kanji or hanzi gives its character pairs; status words ("完了",
    "未実装") are left out. The Latin letters alone would leave "CI/CD パイプライン構築" and
    "CI/CD 本番デプロイ有効化" the same task ("ci cd")."""
    found: set[str] = set()
    for run in _IDEOGRAPHS.findall(claim):
        for word in _ideograph_status(lexicon):
            if word in run:
                run = run.replace(word, " ")
        for part in _KATAKANA.split(run):
            if _KATAKANA.fullmatch(part):
                found.add(part)  # a loanword is one word: "ストリーミング" is in no "イベントストリーミング"
            else:
                for piece in part.split():
                    found.update(piece[i : i + 2] for i in range(max(1, len(piece) - 1)))
    return found


@lru_cache(maxsize=8)
def _ideograph_status(lexicon: Lexicon) -> tuple[str, ...]:
    """The status words written without spaces, longest first."""
    return tuple(sorted((w for w in lexicon.status_words if unspaced(w)), key=len, reverse=True))


_BOX = lazyre.compile(r"\[[ xX]?\][ \t]*")
_TITLE_END = lazyre.compile(r"[:(\[：（]| [-–—] | based on | so that | to (?:support|allow|enable) ", re.I)


@lru_cache(maxsize=65536)
def title_words(claim: str, lexicon: Lexicon) -> frozenset[str]:
    """The task words of the claim's title: the text before its details (a colon, a
    parenthesis, a dash, "based on …")."""
    text = claim.lstrip()
    box = _BOX.match(text)
    text = text[box.end():] if box else text
    text = text[_past_status_label(text, 0, lexicon):]  # "Completed: Initialized Memory Bank (five files)"
    return task_words(_TITLE_END.split(text, maxsplit=1)[0], lexicon)


_NUMBERING = lazyre.compile(r"\d{1,6}[.)]\s")  # "1. ", "2) "
_STATUS_LABEL = lazyre.compile(r"([^\W\d_][\w *]{0,20})[:：]")
_ONWARD = ("→", "->", "=>", "⇒")
_CODE = lazyre.compile(r"([A-Z][A-Z0-9]{1,9}-\d+)\b(?![.-]\d)")


def _subject_start(claim: str, at: int = 0) -> int:
    """Where the claim's words start: past marks, a check box ("[x]" or "[ ]"), emphasis and a
    list number. A scan, not a pattern: a line of ten thousand marks costs ten thousand steps."""
    end = len(claim)
    while at < end:
        ch = claim[at]
        if ch == "[" and claim[at + 1:at + 3] in ("x]", "X]", " ]"):
            at += 3
        elif not ch.isalnum():
            at += 1
        elif ch.isdigit() and (numbered := _NUMBERING.match(claim, at)):
            at = numbered.end()
        else:
            break
    return at


def _past_status_label(text: str, at: int, lexicon: Lexicon) -> int:
    """Where the text goes on past a status label opening it at `at` ("Completed: …", "NEXT:
    …"); `at` itself when no status word labels it."""
    label = _STATUS_LABEL.match(text, at)
    return label.end() if label and label.group(1).strip(" *_").casefold() in lexicon.status_words else at


@lru_cache(maxsize=65536)
def unit_of(claim: str, lexicon: Lexicon) -> tuple[str, str] | None:
    """The numbered unit of work a claim opens with: ("phase", "3") for "✅ Phase 3: AI
    screening", ("code", "MECH-2") for "MECH-2 Freeze mechanics". A sub-unit is another unit
    ("Phase 3.1"); a unit named later in the claim is not its subject ("Integration with Phase 3")."""
    at = _subject_start(claim)
    past = _past_status_label(claim, at, lexicon)
    if past != at:
        at = _subject_start(claim, past)  # "NEXT: iter 2 (handling feel)"
    code = _CODE.match(claim, at)
    if code:
        return "code", code.group(1)
    unit = _unit_pattern(lexicon).match(claim, at)
    if unit is None or claim[unit.end():unit.end() + 40].lstrip(" \t").startswith(_ONWARD):
        return None  # "Phase 3 → Phase 4 workflow" is the step between two units, neither
    return _unit_kind(unit.group(1)), unit.group(2).lstrip("0") or "0"


def _unit_kind(written: str) -> str:
    """A unit word in one form: "Phases" and "phase" are one kind, "iter" is "iteration"."""
    word = written.casefold()
    return "iteration" if word == "iter" else word.rstrip("s") if word.isascii() else word


def _only_units(words: frozenset[str], lexicon: Lexicon) -> bool:
    """Task words that name only a unit of work and its number ("iter", "2")."""
    return all(w.isdigit() or w in _unit_stems(lexicon) for w in words)


@lru_cache(maxsize=8)
def _unit_stems(lexicon: Lexicon) -> frozenset[str]:
    return frozenset(_folded(stem(w)) for w in lexicon.unit_words)


@lru_cache(maxsize=8)
def _unit_pattern(lexicon: Lexicon) -> re.Pattern[str]:
    words = unit_alternation(lexicon)
    return re.compile(rf"(?:第[ \t]*)?({words})s?[ \t]*#?(\d+(?:\.\d+)*)(?![.\d]|[ \t]*[-–/][ \t]*\d)", re.I)


@lru_cache(maxsize=8)
def _status_stems(lexicon: Lexicon) -> frozenset[str]:
    return frozenset(_stem(w) for w in lexicon.status_words if " " not in w)


@lru_cache(maxsize=8)
def _work_stems(lexicon: Lexicon) -> frozenset[str]:
    return frozenset(_folded(_stem(w)) for w in lexicon.work_verbs if " " not in w)


@lru_cache(maxsize=8)
def _work_phrases(lexicon: Lexicon) -> frozenset[tuple[str, str]]:
    """The two-word work verbs ("set up", "wired up") as word pairs."""
    return frozenset((w.split()[0], w.split()[1]) for w in lexicon.work_verbs if len(w.split()) == 2)


def status_finding(task: Fact, evidence: Fact, how: str, pending: str = "") -> Finding:
    """`pending`: the task's status where the claim gives it to one run of units, not itself."""
    order = observed_order(task, evidence)
    flagged, other = (evidence, task) if order == 1 else (task, evidence)
    pending = (pending or task.status).replace("_", " ")
    state = "done" if flagged is evidence else pending
    when = {1: "newer", -1: "older", None: "unordered"}[observed_order(other, flagged)]
    message = (
        f"{state} here, but {'still ' + pending if flagged is evidence else 'done'} "
        f"at {other.where} ({when} evidence {quote(other.claim)!r})"
    )
    return fact_finding("status_conflict", flagged, message, related=[other],
                        extra={"survivor_date": other.observed_at, "how": how})
