"""Immutable value types shared by ingest, engine, formatters and adapters."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from memory_autopsy.severity import Severity as Severity  # a finding's severity, defined apart


class Fidelity(str, enum.Enum):
    """How much of a record the parser proved."""

    FULL = "FULL"
    PARTIAL = "PARTIAL"
    RESIDUAL = "RESIDUAL"


RECORD_FIELDS = (
    "id",
    "entity",
    "slot",
    "value",
    "claim",
    "observed_at",
    "valid_from",
    "valid_to",
    "source",
    "source_class",
    "fidelity",
    "status_verb",
)


# The kind of a heading's own claim ("## Phase 5 ✅ COMPLETE"): kept apart from the facts
# (Store.headings), read by the status layer (and the quantity layer, for a share done).
HEADING_KIND = "heading"
# The kind of a state read where the memory tells what was ("## Before", "### DELETED (11 files)",
# "**Historical Context:**", "- Legacy:"): the section kind `history` (a heading's or a lead's).
# It is no claim about now: no layer compares it as a current state or checks it against the
# repository, and it is no evidence that a task is done. Its section or lead kind and this share
# the name.
HISTORY = "history"

# The shapes whose entity is a name the store gave (a graph's node, a record's entity), not a
# heading above the claim: the entity is the claim's subject.
NAMED_SHAPES = frozenset({"graph", "json"})


class Fact(NamedTuple):
    """One canonical claim (SPEC section 2) plus where it was read.

    A NamedTuple rather than a frozen dataclass: a store holds a million of these, and tuple
    construction is several times cheaper. Use `fact._replace(...)` for a changed copy.
    """

    id: str
    entity: str
    slot: str
    value: str
    claim: str
    observed_at: str | None
    valid_from: str | None
    valid_to: str | None
    source: str | None
    source_class: str
    fidelity: Fidelity
    status_verb: str | None
    path: str
    line: int
    aliases: tuple[str, ...] = ()
    written_entity: str = ""
    shape: str = "markdown"
    id_given: bool = False
    suppress: tuple[str, ...] = ()
    order: int = 0
    qualifier: str = ""
    body: str = ""
    kind: str = "state"
    status: str = ""
    entry: str = ""
    obs: int = -1
    end_line: int = 0
    norm: str = ""  # the body normalized (normalize_claim), when the reader computed it
    cues: int = -1  # what the store-wide layers look for in the claim (cues.cues); -1: not read

    def record(self) -> dict[str, Any]:
        """The 12-field canonical record."""
        return {
            "id": self.id,
            "entity": self.entity,
            "slot": self.slot,
            "value": self.value,
            "claim": self.claim,
            "observed_at": self.observed_at,
            "valid_from": self.valid_from,
            "valid_to": self.valid_to,
            "source": self.source,
            "source_class": self.source_class,
            "fidelity": self.fidelity.value,
            "status_verb": self.status_verb,
        }

    def reading(self) -> dict[str, Any]:
        """The optional fields real memory adds (kind, status, entry, obs), when set."""
        data: dict[str, Any] = {"kind": self.kind}
        if self.status:
            data["status"] = self.status
        if self.entry:
            data["entry"] = self.entry
        if self.obs >= 0:
            data["obs"] = self.obs
        return data

    @property
    def last_line(self) -> int:
        return max(self.line, self.end_line)

    @property
    def where(self) -> str:
        """`path:line`, plus `#obs-N` for one observation of a memory-graph line."""
        suffix = f"#obs-{self.obs}" if self.obs >= 0 else ""
        return f"{self.path}:{self.line}{suffix}"

    @property
    def active(self) -> bool:
        return self.valid_to is None


class Declaration(NamedTuple):
    """An entity named somewhere (heading, map key, graph node) that may hold no facts."""

    entity: str
    path: str
    line: int
    kind: str
    written: str = ""


class Problem(NamedTuple):
    """Input that could not be read as memory (becomes a `bad_input` finding)."""

    path: str
    line: int
    message: str


class Location(NamedTuple):
    """Where a finding's other side is (a NamedTuple, as Finding is)."""

    path: str
    line: int
    fact_id: str = ""
    obs: int = -1


class Finding(NamedTuple):
    """One finding. A NamedTuple rather than a frozen dataclass, as Fact is: a large store's run
    builds tens of thousands (and a warm run reads them back from the memo), and a frozen
    dataclass sets each of its 15 fields through `object.__setattr__`. Use
    `finding._replace(...)` for a changed copy."""

    rule: str
    severity: Severity
    layer: str
    path: str
    line: int
    entity: str
    fidelity: str
    message: str
    confidence: float
    fact_ids: tuple[str, ...]
    related: tuple[Location, ...]
    fingerprint: str
    baseline: str | None = None
    extra: tuple[tuple[str, Any], ...] = ()
    obs: int = -1

    def get(self, key: str, default: Any = None) -> Any:
        for name, value in self.extra:
            if name == key:
                return value
        return default

    @property
    def end_line(self) -> int:
        """The last line of the finding's region: a copied block's, else its own line."""
        end = self.get("block_end")
        return end if isinstance(end, int) and end > self.line else self.line

    @property
    def end_obs(self) -> int | None:
        """The last observation of a block of observations copied within one graph line."""
        end = self.get("block_end_obs")
        return end if isinstance(end, int) else None


@dataclass(frozen=True, slots=True)
class Store:
    """Everything ingest produced from the inputs of one run."""

    facts: tuple[Fact, ...]
    declarations: tuple[Declaration, ...] = ()
    problems: tuple[Problem, ...] = ()
    related_entities: frozenset[str] = frozenset()
    paths: tuple[str, ...] = ()
    alias_pairs: tuple[tuple[str, str, str, str, int], ...] = ()  # name, form, name, form, edits
    files: tuple[Any, ...] = ()  # ingest.reach.MemoryFile per markdown file: what an agent loads
    cue_lexicon: Any = None  # the Lexicon the facts' cues were read with (cues.WORDED)
    cue_vocabulary: Any = None  # the Vocabulary they were read with (cues.RETRACTS)
    # Read with a parse cache: (digests, facts) in store order, a fact's digest of every field but
    # its order when a cache row gives it (no label the store settles; else None) and the fact
    # the row gave. What the engine's memo keys that fact by (with its order), while the store
    # holds that very object. () without the cache.
    origins: tuple[Any, ...] = ()
    roots: Any = None  # ingest.confined.Roots: where `@imports` may be read (None: the working directory)
    headings: tuple[Fact, ...] = ()  # headings that mark their title with a status (HEADING_KIND)


@dataclass(frozen=True, slots=True)
class Report:
    """What one engine run returns; formatters turn it into text."""

    engine: str
    facts: tuple[Fact, ...]
    findings: tuple[Finding, ...]
    paths: tuple[str, ...] = ()
    suppressed: int = 0
    fixed: tuple[dict[str, Any], ...] = ()
    notes: tuple[str, ...] = field(default_factory=tuple)
