"""Which files count as memory: include/exclude globs, read as gitignore reads them.

A pattern with no slash but a trailing one matches a name at any depth (`*.md`, `CLAUDE.md`);
one with a slash is anchored at the rule file's folder (`memory/*.md`); `*`, `?` and `[…]` stay
within one folder; `**` spans any number of folders, none included (`memory/**/*.md` matches
`memory/notes.md`); a trailing `/` names a folder; a pattern that matches a folder matches
everything under it; `\\` escapes the next character.

pathspec does the same with one regular expression per pattern, and that expression backtracks
catastrophically on `a*a*a*…b`. Here a pattern is walked one path segment at a time and each
segment is matched with `fnmatch` (whose translation never backtracks catastrophically), so a
match costs at most (pattern segments × path segments) segment matches.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from fnmatch import fnmatch
from functools import lru_cache
from os.path import normcase
from typing import NamedTuple

ANY = "**"
_SPECIAL = frozenset("*?[]\\")
_WILD = frozenset("*?[")  # what fnmatch reads as a pattern; a segment without any is its text


class Glob(NamedTuple):
    segments: tuple[str, ...]
    folder_only: bool  # a trailing `/`: only what lies under a matching folder
    # Its segments without a wildcard, as `normcase` writes them: each is one of the path's
    # segments when the pattern matches, so a piece of the path's text (`_reach` is not walked
    # for a path missing one: most patterns of the default scope, for most paths).
    literals: tuple[str, ...] = ()


@lru_cache(maxsize=256)
def compile_glob(pattern: str) -> Glob:
    text = pattern.removeprefix("./")
    folder_only = text.endswith("/")
    anchored = "/" in text.rstrip("/")
    text = _literal_brackets(_escaped(text.strip("/")))
    segments: list[str] = [] if anchored else [ANY]
    for segment in text.split("/"):
        if segment and not (segment == ANY and segments[-1:] == [ANY]):
            segments.append(segment)  # `**/**` means what `**` means
    if len(segments) > 1 and segments[-1] == ANY:
        folder_only = False  # `dir/**/` reads as `dir/**`, as in pathspec
    literals = tuple(normcase(segment) for segment in segments if segment != ANY and _WILD.isdisjoint(segment))
    return Glob(tuple(segments), folder_only, literals)


def _escaped(pattern: str) -> str:
    r"""`\*` and friends written as one-character classes (`[*]`), which fnmatch reads literally;
    any other escaped character is itself."""
    if "\\" not in pattern:
        return pattern
    pieces: list[str] = []
    chars = iter(pattern)
    for char in chars:
        if char == "\\":
            char = next(chars, "\\")
            pieces.append(f"[{char}]" if char in _SPECIAL else char)
        else:
            pieces.append(char)
    return "".join(pieces)


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


def _reach(segments: tuple[str, ...], parts: Sequence[str]) -> set[int]:
    """How many path segments the pattern can consume, every way it can match a prefix."""
    if sum(segment != ANY for segment in segments) > len(parts):
        return set()  # every other segment consumes exactly one path segment
    reach = {0}
    last = len(segments) - 1
    for index, segment in enumerate(segments):
        if segment == ANY:  # a trailing `**` is "everything inside": at least one segment
            reach = set(range(min(reach) + (index == last and index > 0), len(parts) + 1))
        else:
            literal = _WILD.isdisjoint(segment)  # `.claude`, `memory`: no pattern to compile
            reach = {j + 1 for j in reach if j < len(parts) and (
                normcase(parts[j]) == normcase(segment) if literal else fnmatch(parts[j], segment))}
        if not reach:
            break
    return reach


def matches(path: str, pattern: str) -> bool:
    """Whether one gitignore-style pattern matches a file's root-relative path."""
    glob = compile_glob(pattern)
    if not glob.segments:
        return False
    if glob.literals and not all(map(normcase(path).__contains__, glob.literals)):
        return False
    parts = [part for part in path.split("/") if part and part != "."]
    reach = _reach(glob.segments, parts)
    if not glob.folder_only and len(parts) in reach:
        return True
    return any(0 < j < len(parts) for j in reach)  # the pattern names a folder the file is in


def selected(path: str, include: Sequence[str], exclude: Sequence[str]) -> bool:
    """True when the path is in scope: matches an include (if any) and no exclude."""
    path = path.removeprefix("./")
    if include and not any(matches(path, p) for p in include):
        return False
    return not any(matches(path, p) for p in exclude)


def filter_paths(paths: Sequence[str], include: Sequence[str], exclude: Sequence[str]) -> list[str]:
    return select(paths, include, exclude).paths


class Selection(NamedTuple):
    """What a rule file's include and exclude patterns make of a list of root-relative paths."""

    paths: list[str]  # an include pattern matches them (any path, with none) and no exclude pattern
    excluded: list[str]  # an include pattern matches them (any path, with none), an exclude pattern too
    unmatched: list[str]  # the include patterns that match none of the paths (a typo, or a folder that moved)


def select(paths: Iterable[str], include: Sequence[str], exclude: Sequence[str]) -> Selection:
    """The patterns applied to a list of paths in one pass, in the paths' order: the files a
    scope takes and its include patterns' warning come of one call, the patterns handed over
    once rather than with each path. An include pattern that matches a path an exclude pattern
    takes out still matched a file. A pattern already known to match is tried on a path only
    when none of the others does, so a path costs at most one match per pattern, as with
    `selected`."""
    waiting = dict.fromkeys(include)  # not yet seen to match a path
    seen: list[str] = []
    taken: list[str] = []
    excluded: list[str] = []
    for path in paths:
        bare = path.removeprefix("./")
        if include:
            found = [pattern for pattern in waiting if matches(bare, pattern)]
            if not found and not any(matches(bare, pattern) for pattern in seen):
                continue
            for pattern in found:
                del waiting[pattern]
            seen += found
        (excluded if any(matches(bare, pattern) for pattern in exclude) else taken).append(path)
    return Selection(taken, excluded, list(waiting))
