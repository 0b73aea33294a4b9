"""One planned edit of a memory file (the value the plan, the rewriters and the report share)."""

from __future__ import annotations

from dataclasses import dataclass

from memory_autopsy.model import Fact, Location


@dataclass(frozen=True, slots=True)
class Fix:
    """One planned edit of a memory item: supersede it (a window or a mark) or delete it."""

    action: str  # supersede | delete
    fact: Fact  # the item edited: every line from fact.line to fact.last_line
    reason: str
    valid_to: str | None = None
    new_line: str | None = None
    mark: str | None = None  # set: strike the markdown item through and append this note
    survivor: Location | None = None  # the newer claim the mark points to
