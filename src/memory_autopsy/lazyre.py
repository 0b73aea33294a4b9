"""Regular expressions compiled on first use.

A run imports the readers and every engine layer, and on a small file (the hook on a commit)
searches with few of their patterns: compiling all of them at import was about a sixth of the
hook's start-up. `compile` returns a stand-in that compiles its pattern the first time one of
its attributes is read, then puts the compiled pattern in its own place among the globals of the
module that defined it: from then on a function of that module finds the pattern itself, at the
cost of any module global.

Only for a module's own patterns, bound by `_NAME = lazyre.compile(...)` and used as `_NAME.x`
inside its functions: a stand-in imported by another module, kept in a container or handed to
`re.sub` would stay a stand-in (slower on every use, and no `re.Pattern` to `re`'s functions).
"""

from __future__ import annotations

import re
import sys
from typing import Any, cast


def compile(pattern: str, flags: int = 0) -> re.Pattern[str]:  # noqa: A001 - re.compile's name, on purpose
    """A stand-in for `re.compile(pattern, flags)`, bound to the calling module's globals."""
    return cast("re.Pattern[str]", _Deferred(pattern, flags, sys._getframe(1).f_globals))


def resolved(value: object) -> re.Pattern[str] | None:
    """The compiled pattern of a pattern or a stand-in (compiled now), else None: for a caller
    that looks through a module's patterns (tests/test_regex_hygiene.py)."""
    if isinstance(value, _Deferred):
        value.pattern  # noqa: B018 - reading an attribute compiles it
        return value._compiled
    return value if isinstance(value, re.Pattern) else None


class _Deferred:
    __slots__ = ("_pattern", "_flags", "_globals", "_compiled")

    def __init__(self, pattern: str, flags: int, module_globals: dict[str, Any]) -> None:
        self._pattern = pattern
        self._flags = flags
        self._globals = module_globals
        self._compiled: re.Pattern[str] | None = None

    def __getattr__(self, name: str) -> Any:
        """Called only for what the stand-in lacks: the pattern's own attributes."""
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self._pattern, self._flags)
            for key, value in list(self._globals.items()):
                if value is self:
                    self._globals[key] = compiled
        return getattr(compiled, name)

    def __repr__(self) -> str:
        return f"lazyre.compile({self._pattern!r}, {self._flags!r})"
