"""Layer 2b: a memory that still sends the agent to a retired memory.

A file retires itself in its opening lines ("**DEPRECATED**: This memory has been moved to
project/overview.md", "This file was superseded by …"). Any other file of the store that still
names it (by its file name, by a link, or by its stem as a whole word when the stem is no word of
prose: `project_overview`, `techContext`, not `progress`) points the agent at knowledge
its own author withdrew: each such line is `stale`, naming the retirement notice. A line that
itself says the target is deprecated is the index doing its job and stays quiet.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from itertools import compress, groupby
from operator import attrgetter
from pathlib import PurePosixPath

from memory_autopsy import lazyre
from memory_autopsy.engine.context import Context
from memory_autopsy.engine.findings import fact_finding, quote
from memory_autopsy.lexicon import Lexicon
from memory_autopsy.model import Fact, Finding
from memory_autopsy.normalize import few_words, fold, holds_any

NOTICE_LINES = 20  # a retirement notice opens the file (after its front matter and title)
MIN_STEM = 6  # shorter stems ("notes", "todo") are ordinary words
_RETIRED_FILE = lazyre.compile(
    r"^this (?:memory|file|note|document|page|doc)\b.{0,20}?\b(?:has been|have been|was|is|are)\s+(?P<word>\w+)"
)
_WORD = lazyre.compile(r"[\w.-]+", re.UNICODE)


def find(ctx: Context) -> Iterator[Finding]:
    notices = _notices(ctx.active, ctx.lexicon)
    if not notices:
        return
    names: dict[str, Fact] = {}
    for path, retired in notices.items():
        pure = PurePosixPath(path)
        # the stem alone names the file only when it is no word of prose: "project_overview",
        # "techContext"; "progress" or "architecture" in a sentence is the word, not the file
        stem = pure.stem if not pure.stem.isalpha() or pure.stem[1:] != pure.stem[1:].lower() else ""
        for name in {pure.name.casefold(), stem.casefold()} - {""}:
            if len(name) >= MIN_STEM or "_" in name or "-" in name:
                names[name] = retired
    seen: set[tuple[str, int]] = set()
    held = few_words(names)
    for fact in ctx.active:
        if fact.path in notices or fact.valid_to or (fact.path, fact.line) in seen:
            continue
        text = fold(fact.claim)
        if held is not None and not holds_any(text, held):
            continue  # a candidate is a piece of the line: a line holding no name names none
        words = _WORD.findall(text)
        if any(w.strip(".") in ctx.lexicon.deprecation_words for w in words):
            continue  # "project_overview (deprecated)": the index already says so
        notice = next((names[w] for w in _candidates(words) if w in names), None)
        if notice is None or notice.path == fact.path:
            continue
        seen.add((fact.path, fact.line))
        yield fact_finding(
            "stale", fact,
            f"names {PurePosixPath(notice.path).name}, which retired itself at {notice.where} "
            f"({quote(notice.claim)!r})",
            related=[notice],
        )


def _candidates(words: list[str]) -> Iterator[str]:
    for word in words:
        word = word.strip(".")
        yield word
        if "/" not in word and word.endswith((".md", ".mdc")):
            yield word.rsplit(".", 1)[0]


def _notices(facts: Sequence[Fact], lexicon: Lexicon) -> dict[str, Fact]:
    """Per file, the fact that retires it, when one of its opening lines does."""
    # A file's facts come in a run (or a few): each run is read in C, its opening lines only.
    runs = [(path, list(run)) for path, run in groupby(facts, _PATH)]
    first_line: dict[str, int] = {}
    for path, run in runs:
        low = min(map(_LINE, run))
        first_line[path] = min(first_line.get(path, low), low)
    found: dict[str, Fact] = {}
    for path, run in runs:
        limit = first_line[path] + NOTICE_LINES
        opening = compress(run, map(limit.__ge__, map(_LINE, run)))
        notice = None if path in found else next((f for f in opening if is_notice(f.claim, lexicon)), None)
        if notice is not None:
            found[path] = notice
    return found


_PATH, _LINE = attrgetter("path"), attrgetter("line")


def is_notice(claim: str, lexicon: Lexicon) -> bool:
    """"DEPRECATED: …" / "Obsolete - see …" / "This memory has been moved to …"."""
    text = fold(claim).strip(" *_>#")
    head, sep, _ = text.partition(":")
    if not sep:
        head, sep, _ = text.partition(" - ")
    if sep and head.strip(" *_") in lexicon.deprecation_words:
        return True
    match = _RETIRED_FILE.match(text)
    return match is not None and match["word"] in lexicon.deprecation_words
