"""Words that structure real memory (section kinds, status words and markers, date labels,
guideline leads), as data: one JSON file per language, merged; the rule file adds more."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType
from typing import Any

from memory_autopsy import lazyre

STATUSES = ("done", "pending", "in_progress", "blocked")
LANGUAGES = ("en", "ja", "zh", "ko", "de", "fr", "es", "pt", "ru", "vi")
# Chinese and Japanese write no spaces between words, and Korean glues its endings to a word
# ("완료됨"): their words are found as letters, those of every other script as whole words.
IDEOGRAPHS_AND_KANA = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f"  # a character class's
_UNSPACED_LETTER = f"[{IDEOGRAPHS_AND_KANA}\uac00-\ud7af]"  # … and Hangul
_UNSPACED = lazyre.compile(_UNSPACED_LETTER)
UNSPACED_RUN = lazyre.compile(_UNSPACED_LETTER + "+")  # a word written without spaces ("コア機能")


def unspaced(word: str) -> bool:
    """Whether a lexicon word is written without spaces around it: matched inside a run of
    letters ("书架页面交互功能完善完成"), where "terminé" is matched only as a word of its own."""
    return _UNSPACED.search(word) is not None


@dataclass(frozen=True, eq=False)
class Lexicon:
    """The words and marks that give markdown structure meaning (headings, statuses, columns)."""

    section_kinds: Mapping[str, str]  # heading text -> status it gives ("" = neutral kind)
    section_leads: Mapping[str, str]  # a heading's opening words -> status ("Next Up", "Remaining Issues")
    guideline_sections: frozenset[str]
    status_words: Mapping[str, str]  # word -> status
    status_markers: Mapping[str, str]  # emoji -> status
    checkbox: Mapping[str, str]
    status_columns: frozenset[str]
    date_labels: frozenset[str]
    guideline_leads: frozenset[str]
    event_irregular: frozenset[str]
    not_events: frozenset[str]
    label_stoplist: frozenset[str]
    sentence_min_words: int = 3
    deprecation_words: frozenset[str] = frozenset()  # "DEPRECATED: moved to …" opens a retired file
    open_question_words: tuple[str, ...] = ()  # "(needs confirmation)", "(TBD)": a claim still open
    unit_words: frozenset[str] = frozenset()  # "Phase 3", "Sprint 2", "フェーズ3": a numbered unit of work
    done_copulas: tuple[str, ...] = ()  # "Phase 3 is complete": the verb that makes a done word a status
    # "Phase 4 — Active": words that are a status only as a numbered unit's predicate
    unit_status_words: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    work_verbs: frozenset[str] = frozenset()  # "Create", "Generated": the doing of a task, not what it makes
    # "Refactored"/"Updated", "must"/"should", "successfully": how a claim is said, not what it says
    restating_words: frozenset[str] = frozenset()
    revision_words: frozenset[str] = frozenset()  # "Component Structure Update": the same subject, later
    # "Priority: High", "Branch: feature/x": a field of a task record, no task of its own
    record_fields: frozenset[str] = frozenset()
    # Retractions written without spaces: "从{x}迁移到{y}", "{x}を{y}に置き換え" ({x} retracted)
    transitions: tuple[str, ...] = ()
    transition_hedges: tuple[str, ...] = ()  # "计划", "予定": a retraction only planned or asked
    state_verbs: tuple[str, ...] = ()  # "使用", "採用": a name stated as what is used
    state_negations: tuple[str, ...] = ()  # "不", "ない": a claim in ideographs that denies its verb
    # "der", "les", "для": the words of other languages no task is named by (English's are
    # normalize.STOPWORDS)
    function_words: frozenset[str] = frozenset()
    negations: frozenset[str] = frozenset()  # "nicht", "не": a status word after one is denied

    def extended(
        self,
        section_kinds: Mapping[str, str] | None = None,
        status_words: Mapping[str, Iterable[str]] | None = None,
    ) -> Lexicon:
        """A copy with site-specific words added (from the rule file)."""
        kinds = dict(self.section_kinds)
        kinds.update({k.casefold(): v for k, v in (section_kinds or {}).items()})
        words = dict(self.status_words)
        for status, items in (status_words or {}).items():
            words.update({w.casefold(): status for w in items})
        return replace(self, section_kinds=MappingProxyType(kinds), status_words=MappingProxyType(words))


def unit_alternation(lexicon: Lexicon) -> str:
    """The unit words ("phase", "sprint") as one alternation, the longest first ("iteration"
    before "iter")."""
    return "|".join(re.escape(w) for w in sorted(lexicon.unit_words, key=len, reverse=True))


def _load(language: str) -> dict[str, Any]:
    # Beside this module (importlib.resources would cost the hook ~4 ms of imports, zipfile
    # included, for a package that is never imported from a zip)
    text = Path(__file__).with_name(f"{language}.json").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


@lru_cache(maxsize=1)
def default_lexicon() -> Lexicon:
    merged: dict[str, Any] = {}
    for language in LANGUAGES:
        for key, value in _load(language).items():
            if key in ("status_words", "unit_status_words"):  # status -> words: the languages' lists add up
                for status, words in value.items():
                    merged.setdefault(key, {}).setdefault(status, []).extend(words)
            elif isinstance(value, dict):
                merged.setdefault(key, {}).update(value)
            elif isinstance(value, list):
                merged.setdefault(key, []).extend(value)
            else:
                merged.setdefault(key, value)
    def by_word(key: str) -> MappingProxyType[str, str]:
        """A table of status -> words read as word -> status."""
        return MappingProxyType({w.casefold(): status for status, items in merged.get(key, {}).items() for w in items})

    def folded(key: str) -> frozenset[str]:
        return frozenset(w.casefold() for w in merged.get(key, ()))

    return Lexicon(
        section_kinds=MappingProxyType({k.casefold(): v for k, v in merged["section_kinds"].items()}),
        section_leads=MappingProxyType({k.casefold(): v for k, v in merged.get("section_leads", {}).items()}),
        guideline_sections=folded("guideline_sections"),
        status_words=by_word("status_words"),
        status_markers=MappingProxyType(dict(merged["status_markers"])),
        checkbox=MappingProxyType(dict(merged["checkbox"])),
        status_columns=folded("status_columns"),
        date_labels=folded("date_labels"),
        guideline_leads=folded("guideline_leads"),
        event_irregular=folded("event_irregular"),
        not_events=folded("not_events"),
        label_stoplist=folded("label_stoplist"),
        sentence_min_words=int(merged.get("sentence_min_words", 3)),
        deprecation_words=folded("deprecation_words"),
        open_question_words=tuple(sorted(folded("open_question_words"), key=lambda w: (-len(w), w))),
        unit_words=folded("unit_words"),
        done_copulas=tuple(sorted(folded("done_copulas"), key=lambda w: (-len(w), w))),
        unit_status_words=by_word("unit_status_words"),
        work_verbs=folded("work_verbs"),
        restating_words=folded("restating_words"),
        revision_words=folded("revision_words"),
        record_fields=folded("record_fields"),
        transitions=tuple(merged.get("transitions", ())),
        transition_hedges=tuple(merged.get("transition_hedges", ())),
        state_verbs=tuple(merged.get("state_verbs", ())),
        state_negations=tuple(merged.get("state_negations", ())),
        function_words=folded("function_words"),
        negations=folded("negations"),
    )
