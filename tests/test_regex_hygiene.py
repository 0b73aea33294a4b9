"""Every pattern that runs on memory content is linear: timed on 100 KB adversarial lines.

A pattern with two unbounded quantifiers over the same characters side by side (`\\s*:?\\s*`),
or an unanchored leading `\\s*` tried at every position of a run of spaces, takes seconds to
minutes on a line like these; a linear one takes milliseconds. Issue 10, item 1.
"""

from __future__ import annotations

import importlib
import re
import time
from collections.abc import Callable, Iterator

import pytest

from memory_autopsy import lazyre
from memory_autopsy.claims import _anchor_pattern, _ideograph_pattern, _trigger_pattern
from memory_autopsy.vocabulary import DEFAULT_VOCABULARY

MODULES = (
    "memory_autopsy.ingest.annotations",
    "memory_autopsy.ingest.aliases",
    "memory_autopsy.ingest.blocks",
    "memory_autopsy.ingest.reading",
    "memory_autopsy.ingest.markdown",
    "memory_autopsy.ingest.labels",
    "memory_autopsy.claims",
    "memory_autopsy.cues",
    "memory_autopsy.normalize",
    "memory_autopsy.engine.slots",
    "memory_autopsy.engine.numeric",
    "memory_autopsy.engine.status",
    "memory_autopsy.engine.transitions",
    "memory_autopsy.engine.duplicates",
    "memory_autopsy.engine.blocks",
    "memory_autopsy.engine.deprecated",
    "memory_autopsy.engine.pins",
    "memory_autopsy.engine.instead",
    "memory_autopsy.engine.rejected",
    "memory_autopsy.engine.settled",
    "memory_autopsy.ingest.reach",
    "memory_autopsy.ingest.frontmatter",
)
SIZE = 100_000
LIMIT = 0.5  # seconds per call; a linear pattern needs a few milliseconds
RUNS = (" ", "\t", ".", "-", ":", "*", "#", "=", '"', "(", "1", "a ", "<!--", "uses , ", "(source: ",
        "~~", "|", "[", "111,", "(observed ", " -- ", "; a=", "**Status**: ", "a から ", "从 a ", "ア")


def _patterns() -> dict[str, re.Pattern[str]]:
    """Module-level patterns of the modules above (each once), and the vocabulary's alternations."""
    found: dict[int, tuple[str, re.Pattern[str]]] = {}
    for name in MODULES:
        module = importlib.import_module(name)
        for attribute, value in list(vars(module).items()):
            pattern = lazyre.resolved(value)  # a pattern compiled on first use, too
            if pattern is not None and pattern.pattern:
                found.setdefault(id(pattern), (f"{name.rsplit('.', 1)[-1]}.{attribute}", pattern))
    found[0] = ("claims.trigger_pattern", _trigger_pattern(DEFAULT_VOCABULARY)[0])
    found[1] = ("claims.anchor_pattern", _anchor_pattern(DEFAULT_VOCABULARY))
    ideographs = _ideograph_pattern()
    assert ideographs is not None
    found[2] = ("claims.ideograph_pattern", ideographs)
    return dict(found.values())


PATTERNS = _patterns()


def _lines() -> Iterator[tuple[str, str]]:
    for run in RUNS:
        body = run * (SIZE // len(run))
        yield f"{run!r}", body
        yield f"- x ({run!r} y)", "- x (" + body + "y)"  # a run inside a claim, then a closer
        yield f"# a{run!r}b", "# a" + body + "b"


LINES = list(_lines())


def _calls(pattern: re.Pattern[str]) -> Iterator[tuple[str, Callable[[str], object]]]:
    yield "search", pattern.search
    yield "match", pattern.match
    yield "finditer", lambda text: sum(1 for _ in pattern.finditer(text))


def _seconds(call: Callable[[str], object], text: str) -> float:
    start = time.perf_counter()
    call(text)
    return time.perf_counter() - start


def test_the_patterns_are_collected() -> None:
    assert len(PATTERNS) >= 40
    assert {"annotations._OBS_PAREN", "annotations._SOURCE", "blocks.HEADING", "reading._LABEL",
            "cues.COUNT", "claims._QUALIFIER"} <= PATTERNS.keys()


@pytest.mark.parametrize("name", sorted(PATTERNS))
def test_each_pattern_is_linear_on_100_kb_adversarial_lines(name: str) -> None:
    pattern = PATTERNS[name]
    slow = []
    for label, text in LINES:
        for method, call in _calls(pattern):
            # the best of two, so one scheduler hiccup on a busy CI machine is not a failure
            seconds = _seconds(call, text)
            if seconds >= LIMIT and (seconds := min(seconds, _seconds(call, text))) >= LIMIT:
                slow.append(f"{method} on {label}: {seconds:.2f} s")
    assert not slow, f"{name} ({pattern.pattern!r}) is not linear: " + "; ".join(slow)
