"""A finding's severity. Apart from the fact model (which re-exports it): the rule file's
`fail-on` is read before any file, and the hook on a commit of no memory file reads nothing
more, so it loads none of the model's record types."""

from __future__ import annotations

import enum


class Severity(str, enum.Enum):
    INFO = "info"
    REVIEW = "review"
    WARNING = "warning"
    ERROR = "error"

    @property
    def rank(self) -> int:
        return _SEVERITY_RANK[self]

    @classmethod
    def parse(cls, text: str) -> Severity:
        key = text.strip().lower()
        if key in ("warn",):
            key = "warning"
        return cls(key)


_SEVERITY_RANK = {Severity.INFO: 0, Severity.REVIEW: 1, Severity.WARNING: 2, Severity.ERROR: 3}
