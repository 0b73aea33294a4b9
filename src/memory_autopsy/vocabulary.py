"""The one data table of words the engine reasons with; the rule file extends it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType

# Triggers whose anchor is what follows them ("left Northwind").
FORWARD_TRIGGERS = (
    "left", "quit", "departed", "departed from", "moved off", "moved away from",
    "migrated off", "migrated from", "migrated away from", "switched from",
    "switched away from", "replaced", "deprecated", "sunset", "sunsetted", "retired",
    "decommissioned", "dropped", "removed", "no longer", "stopped using", "abandoned",
    "ditched", "phased out", "got rid of", "moved away", "resigned from", "shut down",
    "transition from", "transitioned from", "migration from", "migrating from", "switching from",
    "moving away from",
)
# Triggers whose anchor is what precedes them ("Helios was sunset", "X replaced by Y").
BACKWARD_TRIGGERS = ("replaced by", "superseded by", "was replaced", "is deprecated")

# Prose verb frames that prove a slot. Phrase -> slot name.
ANCHORS: Mapping[str, str] = MappingProxyType({
    "uses": "anchor:uses", "use": "anchor:uses", "now uses": "anchor:uses",
    "is using": "anchor:uses", "relies on": "anchor:uses", "stores data in": "anchor:uses",
    "migrated to": "anchor:uses", "switched to": "anchor:uses", "moved to": "anchor:uses",
    "runs on": "anchor:runs_on", "is hosted on": "anchor:hosted_on", "hosted on": "anchor:hosted_on",
    "is deployed to": "anchor:deployed_to", "deployed to": "anchor:deployed_to",
    "deployed on": "anchor:deployed_to", "depends on": "anchor:depends_on",
    "works at": "anchor:works_at", "works for": "anchor:works_at", "employed at": "anchor:works_at",
    "employed by": "anchor:works_at", "joined": "anchor:works_at",
    "is based in": "anchor:based_in", "based in": "anchor:based_in", "lives in": "anchor:lives_in",
    "is located in": "anchor:based_in", "reports to": "anchor:reports_to",
    "is owned by": "anchor:owned_by", "owned by": "anchor:owned_by",
    "is written in": "anchor:language", "written in": "anchor:language",
    "is scheduled at": "anchor:schedule", "runs at": "anchor:schedule",
})

# Explicit slot names that mean the same as a prose anchor.
SLOT_ALIASES: Mapping[str, str] = MappingProxyType({
    "tool": "anchor:uses", "uses": "anchor:uses", "employer": "anchor:works_at",
    "company": "anchor:works_at", "host": "anchor:hosted_on", "language": "anchor:language",
    "schedule": "anchor:schedule",
})

# Explicit slot written back when a prose anchor claim is rewritten as a record.
REWRITE_SLOTS: Mapping[str, str] = MappingProxyType({
    "anchor:uses": "tool", "anchor:works_at": "employer", "anchor:hosted_on": "host",
    "anchor:language": "language", "anchor:schedule": "schedule",
})

SYNONYMS: Mapping[str, str] = MappingProxyType({
    "postgres": "postgresql", "pg": "postgresql", "psql": "postgresql", "pgsql": "postgresql",
    "mongo": "mongodb", "k8s": "kubernetes", "js": "javascript", "ts": "typescript",
    "py": "python", "es": "elasticsearch", "gcp": "google cloud", "aws": "amazon web services",
    "mssql": "sql server", "maria": "mariadb", "ha proxy": "haproxy",
})

VERSIONED_SLOTS = frozenset(
    "version release deadline due due_date eta role title status phase stage tier level".split()
)

STATUS_VERBS: Mapping[str, float] = MappingProxyType({
    "verified": 1.0, "confirmed": 1.0, "measured": 0.95, "observed": 0.9, "documented": 0.9,
    "announced": 0.85, "reported": 0.6, "said": 0.5, "believed": 0.4, "reportedly": 0.35,
    "probably": 0.35, "likely": 0.4, "maybe": 0.3, "might": 0.3, "possibly": 0.3,
    "rumor": 0.2, "rumour": 0.2, "guess": 0.2, "unconfirmed": 0.2, "allegedly": 0.25,
})

# Tokens too generic to anchor a retraction on their own.
GENERIC_TOKENS = frozenset(
    """project service system data team cluster server database db app application tool store
    company job work stack backend frontend api team org platform thing stuff setup config
    instance instances integration deployment version approach solution implementation library
    package module""".split()
)

NEGATIONS = ("not ", "never ", "cannot ", "n't ", "no longer", "isn't", "doesn't", "don't")


@dataclass(frozen=True, eq=False)
class Vocabulary:
    """Identity-hashed so derived tables can be cached per vocabulary."""

    forward_triggers: tuple[str, ...] = FORWARD_TRIGGERS
    backward_triggers: tuple[str, ...] = BACKWARD_TRIGGERS
    anchors: Mapping[str, str] = field(default_factory=lambda: ANCHORS)
    synonyms: Mapping[str, str] = field(default_factory=lambda: SYNONYMS)
    slot_aliases: Mapping[str, str] = field(default_factory=lambda: SLOT_ALIASES)
    versioned_slots: frozenset[str] = VERSIONED_SLOTS

    def extended(
        self,
        transitions: tuple[str, ...] = (),
        anchors: Mapping[str, str] | None = None,
        synonyms: Mapping[str, str] | None = None,
    ) -> Vocabulary:
        """A copy with site-specific words added (from the rule file)."""
        merged_anchors = dict(self.anchors)
        for phrase, slot in (anchors or {}).items():
            merged_anchors[phrase.lower()] = slot if slot.startswith("anchor:") else f"anchor:{slot}"
        merged_synonyms = dict(self.synonyms)
        merged_synonyms.update({k.lower(): v.lower() for k, v in (synonyms or {}).items()})
        return replace(
            self,
            forward_triggers=self.forward_triggers + tuple(t.lower() for t in transitions),
            anchors=MappingProxyType(merged_anchors),
            synonyms=MappingProxyType(merged_synonyms),
        )


DEFAULT_VOCABULARY = Vocabulary()
