"""Inline ignores matched to the findings they silence.

A markdown comment (`<!-- memory-autopsy: ignore RULE -->`) belongs to a line of the file and
silences the findings on that line. A JSON or JSONL record's `memory-autopsy-ignore` belongs to
the record: a minified document holds every record on line 1 and a memory-graph line holds a
node's observations, so an ignore matched by line let one appended record silence a whole file.
A record's ignore silences a finding only when the fact the finding flags is one of the
record's own: the same path, line, observation and fact id. Facts that share all four (a copy of
a record, or a record that gives another's `id`) cannot be told apart there, so a finding on
them is silenced only for the rules every one of them ignores: a copy with an ignore never
silences the record it copies.
"""

from __future__ import annotations

from collections.abc import Sequence

from memory_autopsy.model import Fact, Finding
from memory_autopsy.rules import rule_of

# The shapes of what JSON and JSONL stores hold (ingest.json_store): records, graph observations
# and relations, and a memory block's lines, which are all placed at their record's line.
RECORD_SHAPES = frozenset({"json", "graph", "relation"})
EVERY = frozenset({"*", "all"})

RecordKey = tuple[str, int, int, str]  # path, line, observation, fact id


def named(names: Sequence[str]) -> frozenset[str]:
    """The rules an ignore names, by name or code (`MA101`); `*` and `all` as written."""
    return frozenset(rule_of(name) or name for name in names)


def silenced(rules: frozenset[str], rule: str) -> bool:
    return rule in rules or not rules.isdisjoint(EVERY)


class Suppressions:
    """The rules each markdown line and each record ignores, read off a run's facts."""

    def __init__(self, facts: Sequence[Fact]) -> None:
        self.by_line: dict[tuple[str, int], frozenset[str]] = {}
        self.by_record: dict[RecordKey, frozenset[str]] = {}
        for fact in [f for f in facts if f.suppress]:
            if fact.shape in RECORD_SHAPES:
                self.by_record[record_key(fact)] = EVERY
            else:
                self.by_line[(fact.path, fact.line)] = named(fact.suppress)
        if self.by_record:
            self._keep_common(facts)

    def _keep_common(self, facts: Sequence[Fact]) -> None:
        """Each record key's rules narrowed to those every fact at that key ignores (one
        without an ignore leaves none). The facts are sifted by line first: a store may hold a
        million facts and a handful of ignores."""
        by_record = self.by_record
        lines = {line for _, line, _, _ in by_record}
        for fact in [f for f in facts if f.line in lines]:
            key = record_key(fact)
            rules = by_record.get(key)
            if rules is not None and fact.shape in RECORD_SHAPES:
                by_record[key] = common(rules, named(fact.suppress))

    def silences(self, finding: Finding) -> bool:
        """Whether an ignore on the finding's line (markdown) or its flagged record says so."""
        rules = self.by_line.get((finding.path, finding.line))
        if rules is None and finding.fact_ids and self.by_record:
            rules = self.by_record.get((finding.path, finding.line, finding.obs, finding.fact_ids[0]))
        return rules is not None and silenced(rules, finding.rule)


def record_key(fact: Fact) -> RecordKey:
    return fact.path, fact.line, fact.obs, fact.id


def common(first: frozenset[str], second: frozenset[str]) -> frozenset[str]:
    """The rules both ignores name, `*` or `all` standing for every rule."""
    if not first.isdisjoint(EVERY):
        return second
    if not second.isdisjoint(EVERY):
        return first
    return first & second
