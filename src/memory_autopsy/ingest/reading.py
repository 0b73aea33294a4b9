"""What a line of real memory is: a task with a status, a guideline, an event or a state;
and the words around it that are structure (section kinds, date labels), not claims."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import NamedTuple

from memory_autopsy import lazyre
from memory_autopsy.clauses import qualified
from memory_autopsy.dates import find_dates, find_month, parse_date
from memory_autopsy.lexicon import Lexicon, unit_alternation, unspaced
from memory_autopsy.normalize import WORD

# The first word (a letter, then letters, digits, `_`, `'`, `’` or `-`) and the next: what lies
# between them cannot start a word.
_TWO_WORDS = lazyre.compile(r"([^\W\d_][\w'’-]*)(?:[\W\d_]*([^\W\d_][\w'’-]*))?")
_LEAD_NOISE = lazyre.compile(r"[\s*_`>#~\-–—:.\[\]()0-9]*")
_PAREN = lazyre.compile(r"[(（]([^()（）]{1,40})[)）]")
# _PAREN on ASCII text, where it can only open and close on `(` and `)`: opened by a character
# rather than a class, the search goes from one `(` to the next.
_ASCII_PAREN = lazyre.compile(r"\(([^()]{1,40})\)")
# The label keeps its own trailing blanks (callers strip it): a `\s*` before the colon would
# rescan a run of spaces once per label length. Its name is greedy: the class stops at the
# colon and the star, so the one length that can match is where the run ends.
_LABEL = lazyre.compile(r"^\**([^:*：]{1,40})(?:\*+\s*)?[:：]\s*(?:\*+\s*)?(.*)$")
_HEADING_NOISE = lazyre.compile(r"^[\W\d_]*?(?=[^\W\d_])", re.UNICODE)
_NUMBERING = lazyre.compile(r"^(?:\d+(?:\.\d+)*[.)]?|[ivx]+\.|[a-z][.)])\s+", re.I)
# Tried only where a run of blanks starts (the leftmost match is the same); its optional tail
# cannot fail, so it never backtracks.
_STAMP = lazyre.compile(r"(?<!\s)\s*[\[(]?\d{4}-\d{2}-\d{2}[0-9:TZ .+-]*[\])]?\s*[-–—:]*\s*")
_MARKS = lazyre.compile(r"[*_`]")
# Tried only where a run of blanks starts, as _STAMP.
_TRAILING_PAREN = lazyre.compile(r"(?<!\s)\s*[(（][^()（）]*[)）]$")
_BLANKS = lazyre.compile(r"\s+")
# What _STAMP needs of a line: a day's dashes. Opened by the dash, the search goes from one
# dash to the next (`\d{4}-…` was tried at every place of the line).
_DAY_DASHES = lazyre.compile(r"-\d\d-\d\d")
_NOT_A_NAME = lazyre.compile(r"[/\\\[\]{}<>|]")
_IDEOGRAPH = lazyre.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")  # a kanji or hanzi
_SEPARATORS = (" - ", " — ", " – ")  # "Fix the login - done"
# A run of words in capitals ("Iter 2 DONE (feel): …", "(Phase 3 - TO BE IMPLEMENTED)"): one
# word, then single blanks and words; nothing before it can also start one (linear).
_SHOUTED = lazyre.compile(r"(?<![\w'’-])[A-Z][A-Z'’-]+(?:[ \t][A-Z][A-Z'’-]+){0,3}(?![\w'’-])")
# Status words that in capitals are as often a name: "E2E TESTING", "OPEN", "TODO comments".
_NAMES_IN_CAPITALS = frozenset({"testing", "open", "todo"})
_ASCII_SEPARATORS = _SEPARATORS[:1]  # the only one ASCII text holds
_LABEL_WORDS = 3  # a label this short that ends in a status word gives it: "Tâche terminée : …"
# … unless the word names a kind of work there: "Unit testing: …", "Getting started: …"
_LABEL_NAMES = frozenset({"testing", "started", "next", "open", "todo", "backlog"})
# A last word after one of these is what the line is for or about, not its status: "Vitest 3.1.4
# for testing", "a fixture of the migration in progress", "logs during testing".
_OBJECT_OF = frozenset("for of during with via by before after about into through without under".split())


def status_of(text: str, lexicon: Lexicon, check: str | None = None) -> str:
    """The status a line states itself: checkbox, marker, or a status word as a label."""
    if check is not None:
        return lexicon.checkbox.get(check, "")
    head, tail = text[:4], text[-4:]
    words = _words_of(lexicon)
    for marker, status in words.markers if head.isascii() and tail.isascii() else words.all_markers:
        if marker in head or marker in tail:
            return status
    if "(" in text or "（" in text:
        for match in (_ASCII_PAREN if text.isascii() else _PAREN).finditer(text):
            word = match.group(1).strip().strip("*_").casefold()
            if word in lexicon.status_words:
                return lexicon.status_words[word]
    return _labelled_status(text, lexicon)


def _labelled_status(text: str, lexicon: Lexicon) -> str:
    if "-" in text and _DAY_DASHES.search(text):  # _STAMP's search costs more
        text = _STAMP.sub("", text, count=1)
    told = _unit_predicate(lexicon).match(text)
    if told:  # "Phase 4 — Active (…)": the unit's predicate is its status
        said = told.group("status").casefold()
        return lexicon.status_words.get(said) or lexicon.unit_status_words.get(said, "")
    statuses = lexicon.status_words
    plain = text.isascii()
    label = _label(text)
    if label:
        key = label.group(1).strip().casefold()
        words = key.split()
        # "Completed Task: …", and "Task completed: …" (what comes before it is not said of it)
        last = words[-1] if 2 <= len(words) <= _LABEL_WORDS and words[-1] not in _LABEL_NAMES \
            and not _denied(" ".join(words[:-1]), lexicon) else ""
        for candidate in (key, words[0] if words else "", last):
            if candidate in statuses:
                return statuses[candidate]
        if key in lexicon.status_columns or (not key.isascii() and key.endswith(_words_of(lexicon).columns)):
            return cell_status(label.group(2), lexicon)
        ending = _cjk_status(key, lexicon, at_end=True)  # "书架页面交互功能完善完成: …"
        if ending:
            return ending
        if not plain:  # "阶段 2 (自动记忆): 正在开发 NLU": a predicate in ideographs opens with its status
            opening = _opening_status(label.group(2).lstrip(" *_").casefold(), lexicon)
            if opening:
                return opening
    leading = "" if plain else _cjk_status(text.casefold(), lexicon, at_end=False)  # "完成Favorite…"
    if leading:
        return leading
    words = text.rstrip(" .!*_").rsplit(None, 1)
    if (len(words) == 2 and words[1].casefold() in statuses and len(text.split()) >= 3 and not _denied(words[0], lexicon)
            and words[0].rsplit(None, 1)[-1].casefold() not in _OBJECT_OF):
        return statuses[words[1].casefold()]  # "Phase 4 implementation complete", not "… is not complete"
    if plain and lexicon.done_copulas:
        copula = _done_copula(lexicon).search(text)
        if copula and not qualified(text[: copula.start("done")]):
            return "done"  # "Phase 3 is complete and fully integrated with Phase 2."
    for sep in _ASCII_SEPARATORS if plain else _SEPARATORS:
        if sep in text:
            last = text.rsplit(sep, 1)[1].strip().strip("*_.").casefold()
            if last in statuses:
                return statuses[last]
    return _shouted_status(text, statuses)


@lru_cache(maxsize=8)
def _unit_predicate(lexicon: Lexicon) -> re.Pattern[str]:
    """A numbered unit of work as a line's subject and a status as all its predicate says
    before a separator or the end: "**Phase 4** — Active (task card redesign)", "Phase 5
    (Convoy): Not started — Convoy model", "Sprint 3 - done". Not a unit whose predicate goes
    on in words ("Phase 2: Testing the parser", "Step 3: next, wire the API")."""
    units = unit_alternation(lexicon)
    said = sorted({*lexicon.status_words, *lexicon.unit_status_words}, key=len, reverse=True)
    statuses = "|".join(re.escape(w) for w in said if not unspaced(w))
    return re.compile(
        rf"^[\W_]{{0,6}}(?:{units})(?:s|es)?[ \t]*#?\d{{1,3}}(?:\.\d{{1,3}}){{0,2}}[a-z]?(?![\w.])[*_]{{0,3}}"
        r"(?:[ \t]*[(（][^()（）\n]{1,60}[)）])?[*_]{0,3}[ \t]*(?:[:：]|[—–]|-(?=[ \t]))[ \t]*[*_]{0,3}"
        rf"(?P<status>{statuses})[*_]{{0,3}}(?=[ \t]*(?:$|[—–(:;,.!✅]|-[ \t]))",
        re.I,
    )


def _denied(text: str, lexicon: Lexicon) -> bool:
    """A negation, plan, wish or condition before a status word ("not", "nicht", "не"): the
    status is not asserted."""
    return qualified(text) or bool(lexicon.negations) and not lexicon.negations.isdisjoint(WORD.findall(text.casefold()))


def _shouted_status(text: str, statuses: Mapping[str, str]) -> str:
    """A status word written in capitals, where the line puts it ("Iter 2 DONE (handling
    feel): …", "Plan 027 (hud layer), DONE.", "(Phase 3 - TO BE IMPLEMENTED)",
    "IMPLEMENTATION COMPLETE: all phases"): the run's last words. Not a negated or planned one
    ("NOT COMPLETE", "do not mark it DONE"), and the first such run only."""
    for run in _SHOUTED.finditer(text):
        words = run.group().casefold().split()
        for cut in range(len(words)):
            said = " ".join(words[cut:])
            status = None if said in _NAMES_IN_CAPITALS else statuses.get(said)
            if status is not None:
                return "" if qualified(text[: run.start()] + " " + " ".join(words[:cut])) else status
    return ""


@lru_cache(maxsize=8)
def _done_copula(lexicon: Lexicon) -> re.Pattern[str]:
    """A short subject, a copula and a done word that ends its clause: "Phase 3 is complete",
    "The exporter has been fully implemented, and …". Not "is done by the worker" (who does it),
    "is not complete", nor a question ("Is it done?": the copula needs a subject before it)."""
    done = sorted((w for w, s in lexicon.status_words.items() if s == "done" and w.isascii()), key=len, reverse=True)
    copulas = "|".join(re.escape(c) for c in lexicon.done_copulas)
    return re.compile(
        rf"^[^\w]*\w[\w'’./-]*(?:[ \t]+[\w'’./-]+){{0,5}}[ \t]+(?:{copulas})"
        rf"[ \t]+(?:(?:fully|successfully|finally|all|now)[ \t]+)*(?P<done>{'|'.join(re.escape(w) for w in done)})"
        r"(?=[ \t]*(?:$|[.,;:!()\[\]✅—–-]|and\b))",
        re.I,
    )


@lru_cache(maxsize=4)
def _label(text: str) -> re.Match[str] | None:
    """`Label: rest` as _LABEL reads it; only a line with a colon is searched (most are not
    labelled, and the search costs on every line). A markdown line is asked twice, for a date
    label and for a status label: the last few answers are kept (a match is never changed)."""
    return _LABEL.match(text) if ":" in text or "：" in text else None


def _cjk_status(text: str, lexicon: Lexicon, *, at_end: bool) -> str:
    """A CJK status word written against the words it qualifies, with no space between."""
    if text.isascii():  # a non-ASCII word is never part of an ASCII line
        return ""
    for word, status in _words_of(lexicon).cjk:
        if (text.endswith(word) if at_end else text.startswith(word)) and len(text) > len(word):
            return status
    return ""


def _opening_status(text: str, lexicon: Lexicon) -> str:
    """The CJK status word a label's value opens with, as a word of its own: "正在开发 NLU",
    "未実装のまま", "完了", not "完成度 80%" (the degree of completion), where an ideograph goes on."""
    for word, status in _words_of(lexicon).cjk:
        if text.startswith(word) and not _IDEOGRAPH.match(text, len(word)):
            return status
    return ""


class _Words(NamedTuple):
    """The lexicon's words as the per-line checks use them, sorted out once per lexicon."""

    cjk: tuple[tuple[str, str], ...]  # non-ASCII status words, in the lexicon's order
    markers: tuple[tuple[str, str], ...]  # ASCII status markers (the only ones in ASCII text)
    all_markers: tuple[tuple[str, str], ...]
    columns: tuple[str, ...]  # non-ASCII status column names


@lru_cache(maxsize=8)
def _words_of(lexicon: Lexicon) -> _Words:
    return _Words(
        cjk=tuple((w, s) for w, s in lexicon.status_words.items() if unspaced(w)),
        markers=tuple((m, s) for m, s in lexicon.status_markers.items() if m.isascii()),
        all_markers=tuple(lexicon.status_markers.items()),
        columns=tuple(c for c in lexicon.status_columns if unspaced(c)),
    )


def cell_status(cell: str, lexicon: Lexicon) -> str:
    """A status cell of a table ("✅ Done", "In progress", "100%")."""
    text = cell.strip()
    for marker, status in lexicon.status_markers.items():
        if marker in text:
            return status
    word = text.strip("*_ .").casefold()
    if word in lexicon.status_words:
        return lexicon.status_words[word]
    if word.endswith("%") and word[:-1].strip().isdigit():
        percent = int(word[:-1])
        return "done" if percent >= 100 else ("pending" if percent == 0 else "in_progress")
    return ""


def kind_of(text: str, lexicon: Lexicon, *, status: str, section_status: str, guideline_section: bool) -> str:
    """task, guideline, event or state (see SPEC section 4). A line in an in-progress section
    that reports work in the past tense ("## Current Focus" / "- Modified the fetcher") is an
    event: the progress made, not work still open."""
    if status or section_status in ("pending", "blocked"):
        return "task"
    lead = lead_words(text)
    if section_status == "in_progress" or section_status == "done" and not guideline_section:
        # "## Completed" / "- Add retry to the sync job": a task listed as done, not an order
        return "event" if _is_past(lead, lexicon) else "task"
    if guideline_section or _is_imperative(lead, lexicon):
        return "guideline"
    if _is_past(lead, lexicon):
        return "event"
    return "state"


def lead_words(text: str) -> tuple[str, ...]:
    """The first two words of a claim, lower-cased, past any date, marker or label prefix."""
    # The noise run includes `[`, so no `[P1]` priority is left after it, nor more noise: one
    # strip does what noise, priority, noise did.
    noise = _LEAD_NOISE.match(text)
    start = noise.end() if noise else 0
    found = _TWO_WORDS.search(text, start, start + 80)
    if found is None:
        return ()
    first, second = found.groups()
    first = first.casefold().replace("’", "'")
    return (first,) if second is None else (first, second.casefold().replace("’", "'"))


def _is_imperative(lead: tuple[str, ...], lexicon: Lexicon) -> bool:
    if not lead:
        return False
    return lead[0] in lexicon.guideline_leads or " ".join(lead) in lexicon.guideline_leads


def _is_past(lead: tuple[str, ...], lexicon: Lexicon) -> bool:
    if not lead:
        return False
    word = lead[0]
    if word in lexicon.not_events:
        return False
    if word in lexicon.event_irregular or " ".join(lead) in lexicon.event_irregular:
        return True
    return len(word) > 4 and word.endswith("ed")


def heading_parts(title: str, lexicon: Lexicon) -> tuple[str, str | None, str, bool]:
    """(name, section kind or None, date, whether the name can be an entity) of a heading.

    `## Globex (2026-01-01)` names an entity and dates it; `### 2025-01-29: Fixed login` is a
    dated entry whose title is not an entity."""
    from memory_autopsy.ingest.annotations import read_prose, strip_emphasis

    text = strip_emphasis(title)
    name, notes = read_prose(text)
    date = notes.observed_at or ""
    leading = bool(date) and not text.lstrip(" [(").startswith(name[:8])
    written = name  # the date is looked for before the noise goes: "2026年3月22日" opens with digits
    name = _NUMBERING.sub("", _HEADING_NOISE.sub("", name)).strip(" :-–—.")
    if not date:
        found = find_dates(written)
        date = found[0] if found else find_month(written) or ""
        leading = bool(date)
    kind = section_kind(name, lexicon)
    return name, kind, date, kind is None and bool(name) and not leading


@lru_cache(maxsize=4096)
def _kind_key(name: str) -> str:
    text = _MARKS.sub("", name).strip(" :.").casefold()
    text = _TRAILING_PAREN.sub("", text).strip(" ()（）")  # "Implementation Details (Plan)"; "(Before)" after a date
    return _BLANKS.sub(" ", text.replace("&", "and"))


def section_kind(name: str, lexicon: Lexicon) -> str | None:
    """The status a generic heading gives ("" for a neutral kind), or None for a named one."""
    key = _kind_key(name)
    if key in lexicon.section_kinds:
        return lexicon.section_kinds[key]
    if key.startswith("phase ") or key.startswith("step "):
        return None
    for suffix in (" tasks", " items", " work"):
        if key.endswith(suffix) and key[: -len(suffix)] in lexicon.section_kinds:
            return lexicon.section_kinds[key[: -len(suffix)]]
    return _lead_kind(key, lexicon)


def _lead_kind(key: str, lexicon: Lexicon) -> str | None:
    """The status a heading's opening words give: "Next Up", "Next Actions", "Remaining Issues
    🔧", "Completed Phases", "次のアクション" read as their lead does. A lead opens the heading as
    whole words ("Next.js setup" is no "next"); a lead in a script without spaces opens it as
    letters. The longest lead wins."""
    words = [w for w in key.split(" ") if any(map(str.isalnum, w))]  # marks and emoji out
    text = " ".join(words)
    for n in (3, 2, 1):
        lead = " ".join(words[:n])
        if len(words) >= n and lead in lexicon.section_leads:
            return lexicon.section_leads[lead]
    if text and not text[0].isascii():
        return next((status for lead, status in lexicon.section_leads.items()
                     if unspaced(lead) and text.startswith(lead) and len(text) > len(lead)), None)
    return None


def date_label(text: str, lexicon: Lexicon) -> str | None:
    """`**Last Updated**: 2026-01-05` (a line that dates its file or section) -> the date."""
    match = _label(text.strip())
    if match is None or match.group(1).strip().casefold() not in lexicon.date_labels:
        return None
    value = match.group(2).strip().strip("*_ ")
    parsed = parse_date(value)
    if parsed:
        return parsed
    found = find_dates(value)  # "Sunday, March 22, 2026", "2026-03-22 (after the release)"
    return found[0] if found else find_month(value)


def label_prefix(text: str) -> tuple[str, str] | None:
    """`Label: rest` -> (label, rest) when the label is short enough to be a name."""
    match = _label(text)
    if match is None or not match.group(2).strip():
        return None
    label = match.group(1).strip().strip("*_` ")
    words = label.split()
    if "`" in label:
        return None
    if not 0 < len(words) <= 4 or _NOT_A_NAME.search(label) or "http" in label:
        return None
    return label, match.group(2).strip()
