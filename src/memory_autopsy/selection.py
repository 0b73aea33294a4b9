"""Which files count as memory: include/exclude globs from the rule file."""

from __future__ import annotations

from collections.abc import Sequence
from fnmatch import fnmatch
from pathlib import PurePosixPath


def _matches(path: str, pattern: str) -> bool:
    pure = PurePosixPath(path)
    if pure.match(pattern) or fnmatch(path, pattern):
        return True
    if pattern.startswith("**/"):
        return _matches(path, pattern[3:])
    if pattern.endswith("/**"):
        prefix = pattern[:-3].rstrip("/")
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
