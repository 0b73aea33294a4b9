"""Which files count as memory: include/exclude globs from the rule file."""

from __future__ import annotations

import re
from collections.abc import Sequence
from fnmatch import fnmatch
from functools import lru_cache
from pathlib import PurePosixPath

_LEADING_ANY_DIRS = re.compile(r"^(?:\*\*/)+")


@lru_cache(maxsize=256)
def _forms(pattern: str) -> tuple[str, ...]:
    """The pattern with any run of leading `**/` read as one, and without it.

    `**/` matches zero or more folders, so `**/**/x` means what `**/x` means; walking a run of
    2,000 of them one at a time was quadratic (and recursed past Python's limit).
    """
    pattern = _literal_brackets(pattern)
    anchored = _LEADING_ANY_DIRS.sub("", pattern)
    if anchored == pattern:
        return (pattern,)
    return tuple(form for form in ("**/" + anchored, anchored) if form)


def _literal_brackets(pattern: str) -> str:
    """A `[` that opens no class within its path segment, written as the class `[[]`.

    Both read it as a literal `[`, but `fnmatch.translate` looks for the closing `]` from every
    such `[` to the end: quadratic on a pattern of 2,000 of them.
    """
    if "[" not in pattern:
        return pattern
    pieces: list[str] = []
    closes = _class_ends(pattern)
    for index, char in enumerate(pattern):
        pieces.append("[[]" if char == "[" and closes[index] < 0 else char)
    return "".join(pieces)


def _class_ends(pattern: str) -> list[int]:
    """For each `[`, where its class ends (-1: no `]` before the next `/` or the end).

    As in fnmatch, a `]` first in the class (after an optional `!`) is a member, not the end.
    """
    ends = [-1] * len(pattern)
    nearest = second = -1  # the two nearest `]` to the right, within the current segment
    for index in range(len(pattern) - 1, -1, -1):
        char = pattern[index]
        if char == "/":
            nearest = second = -1
        elif char == "]":
            nearest, second = index, nearest
        elif char == "[":
            first = index + 1 + (pattern[index + 1 : index + 2] == "!")
            ends[index] = second if nearest == first else nearest
    return ends


MAX_EXPANDED = 4  # `/**/` occurrences expanded one by one; past that, all or none


@lru_cache(maxsize=256)
def _zero_dirs(pattern: str) -> tuple[str, ...]:
    """As in gitignore, `/**/` matches zero or more folders: `memory/**/*.md` matches
    `memory/notes.md`. fnmatch's `*` already spans folders; what it lacks is the zero case."""
    parts = pattern.split("/**/")
    if len(parts) == 1:
        return (pattern,)
    if len(parts) - 1 > MAX_EXPANDED:
        return (pattern, "/".join(parts))
    forms = [parts[0]]
    for part in parts[1:]:
        forms = [f + sep + part for f in forms for sep in ("/**/", "/")]
    return tuple(forms)


def _matches(path: str, pattern: str) -> bool:
    """`fnmatch` (its translation never backtracks catastrophically) or `PurePath.match`
    (one segment at a time); `dir/**` also matches everything under `dir`."""
    forms = tuple(z for form in _forms(pattern) for z in _zero_dirs(form))
    pure = PurePosixPath(path)
    if any(pure.match(form) or fnmatch(path, form) for form in forms):
        return True
    anchored = forms[-1]
    if anchored.endswith("/**"):
        prefix = anchored[:-3].rstrip("/")
        return path == prefix or path.startswith(prefix + "/")
    return False


def selected(path: str, include: Sequence[str], exclude: Sequence[str]) -> bool:
    """True when the path is in scope: matches an include (if any) and no exclude."""
    path = path.removeprefix("./")
    if include and not any(_matches(path, p) for p in include):
        return False
    return not any(_matches(path, p) for p in exclude)


def filter_paths(paths: Sequence[str], include: Sequence[str], exclude: Sequence[str]) -> list[str]:
    return [p for p in paths if selected(p, include, exclude)]
