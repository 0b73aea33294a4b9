"""Findings of the layers that judge each entity alone (engine.run.per_entity: copies, near
copies, explicit retractions, slot conflicts), kept between runs beside the parse cache: on a
large store, a run after a one-line change judges again only the entities the change touched.

An entity's findings from those layers are a function of its facts (every field, its line and
store order included), which of them a pasted block holds (blocks are found store-wide and set
aside), the tool's code and the run's words and date (vocabulary, lexicon, as-of); nothing else
of the store is read. So an entity is keyed by a digest of its facts (a fact a parse-cache row
gives by the digest of its fields the row's entry keeps, and its order; any other by `repr`,
every field, in C) and of its facts in pasted blocks, under a salt of the version, the
engine's code and the words, and an entity whose key was judged before takes its findings
from the entry. A run focused on changed files (the hook in a store of several files) reads
other files' claims for its copies: it keeps nothing. One entry per scope (the paths a run
reads), in SHARDS files by key, holds the entities of its last run: a run that judged an
entity rewrites only the shards its change touched. A shard is plain values marshalled with a
checksum, as the parse cache's entries are (never pickle: the folder sits in a working tree);
written atomically; a shard that is corrupt or of another shape holds nothing, and is
rewritten; the parse cache's bound counts the shards.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable, Sequence
from functools import lru_cache
from operator import attrgetter, is_, itemgetter
from pathlib import Path
from typing import Any

from memory_autopsy import __version__
from memory_autopsy.engine.context import Context
from memory_autopsy.ingest.cache import (
    ENGINE_FOLDER,
    FORMAT,
    PACKAGE,
    SUFFIX,
    UNREADABLE,
    lexicon_key,
    load_entry,
    reader_digest,
    vocabulary_key,
    write_entry,
)
from memory_autopsy.lexicon import default_lexicon
from memory_autopsy.model import Fact, Finding, Location, Severity, Store
from memory_autopsy.normalize import entity_form
from memory_autopsy.settings import Settings

# Below this many facts a store is judged faster than its entry is read and written.
MIN_FACTS = 2000
# What decides a kept entity's findings: the layers and everything they read facts with.
ENGINE_MODULES = ("engine", "claims.py", "dates.py", "normalize.py", "vocabulary.py", "model.py", "rules.py",
                  "cues.py", "lexicon")
_SEVERITIES = {s.value: s for s in Severity}
_SCALARS = (str, int, float, bool, type(None))
_ROW = 15  # the fields of a kept finding
_ORDER = attrgetter("order")
SHARDS = 64  # files per scope
_NEW = tuple.__new__


@lru_cache(maxsize=1)
def engine_key() -> str:
    """This install's engine as a short digest, read once per run."""
    return reader_digest(PACKAGE, ENGINE_MODULES)


def memo_for(settings: Settings, store: Store, facts: int) -> EntityMemo | None:
    """The run's memo: with a cache folder, no focus and a store large enough to gain from it."""
    if not settings.parse_cache or settings.focus is not None or facts < MIN_FACTS:
        return None
    return EntityMemo(Path(settings.parse_cache), settings, store.paths, store.origins)


class EntityMemo:
    """One run's view of its scope's kept entities: what it read back, judged and will write."""

    def __init__(self, root: Path, settings: Settings, paths: Sequence[str], origins: Sequence[Any] = ()) -> None:
        salt = "\0".join((__version__, engine_key(), vocabulary_key(settings.vocabulary),
                          lexicon_key(settings.lexicon or default_lexicon()), settings.as_of or ""))
        scope = hashlib.sha256("\0".join([salt, *sorted(paths)]).encode("utf-8", "surrogatepass"))
        self.salt = salt
        self.folder = root / FORMAT / ENGINE_FOLDER / scope.hexdigest()
        self.kept = self._read()
        self.used: dict[str, list[Any]] = {}
        self.judged: set[str] = set()  # the keys this run judged (new, or kept in another shape)
        self.origins = origins

    def findings(self, ctx: Context, in_blocks: set[int], judge: Callable[[Context, set[int]], list[Finding]]
                 ) -> list[Finding]:
        """What `judge` finds in every entity of the run: kept, or judged now for the entities
        the entry does not hold (all at once, on a context narrowed to them)."""
        found: list[Finding] = []
        missing: dict[str, str] = {}  # entity form -> its key
        for form, facts in ctx.by_entity.items():
            text = self._text(facts)
            if in_blocks:  # a group's facts are in store order: sorted, they read as the group lists them
                text += repr(sorted(in_blocks.intersection(map(_ORDER, facts))))
            key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
            rows = self.kept.get(key)
            kept = None if rows is None else _decoded(rows)
            if rows is None or kept is None:
                missing[form] = key
                continue
            found += kept
            self.used[key] = rows
        if not missing:
            return found
        fresh = judge(ctx.narrowed(missing), in_blocks)
        found += fresh
        self.judged.update(missing.values())
        by_form: dict[str, list[Finding]] = {form: [] for form in missing}
        for finding in fresh:
            listed = by_form.get(entity_form(finding.entity))
            if listed is None:  # a finding of no judged entity: keep nothing of this run's
                return found
            listed.append(finding)
        for form, its in by_form.items():
            if all(_keeps(finding) for finding in its):
                self.used[missing[form]] = its  # encoded when its shard is written
        return found

    def _text(self, facts: Sequence[Fact]) -> str:
        """The facts as keyed: facts parse-cache rows give (store.origins) by their rows'
        digests of their fields and their orders (a warm run reads the digests the cold run
        took), picked and checked in C; a group holding any other fact by every field of it."""
        if self.origins:
            digests, read = self.origins
            orders = list(map(_ORDER, facts))
            pick = itemgetter(*orders) if len(orders) > 1 else lambda seq: (seq[orders[0]],)
            try:
                picked, given = pick(digests), pick(read)
            except IndexError:  # a fact the store was read without (a caller's own store)
                picked, given = (None,), ()
            if None not in picked and all(map(is_, facts, given)):
                return "".join(picked) + repr(orders)
        return "".join(map(tuple.__repr__, facts))

    def save(self) -> None:
        """Write the shards this run changed (an entity judged, or one of the entry no longer
        read): each holds this run's entities of its keys, so an entity's older findings go."""
        if not self.judged:
            return
        changed = {_shard(key) for key in self.judged} | {_shard(key) for key in self.kept.keys() - self.used.keys()}
        by_shard: dict[int, dict[str, list[Any]]] = {shard: {} for shard in changed}
        for key, rows in self.used.items():  # one pass: a cold run changes every shard
            held = by_shard.get(_shard(key))
            if held is not None:
                held[key] = rows
        for shard, groups in by_shard.items():
            target = self.folder / f"{shard:02x}{SUFFIX}"
            if not groups:
                with contextlib.suppress(OSError):
                    target.unlink()
                continue
            # A kept entity's rows as the entry held them; a judged one's findings encoded now,
            # one shard at a time (a cold run's findings, all encoded at once, were the peak).
            groups = {key: [row if type(row) is list else _encoded(row) for row in rows] for key, rows in groups.items()}
            write_entry(target, {"salt": self.salt, "groups": groups})

    def _read(self) -> dict[str, list[Any]]:
        """The entities every readable shard holds (a corrupt or foreign one holds none)."""
        kept: dict[str, list[Any]] = {}
        for target in sorted(self.folder.glob(f"*{SUFFIX}")):
            try:
                entry = load_entry(target)
                groups = entry["groups"]
                if entry["salt"] != self.salt or type(groups) is not dict:
                    continue
                os.utime(target)  # least recently used goes first when the folder is pruned
            except UNREADABLE:
                continue
            kept.update(groups)
        return kept


def _shard(key: str) -> int:
    """The shard of an entity key (its first two hex digits, SHARDS to a scope): a change to one
    entity rewrites the shards of its old and new key, not the whole entry."""
    return int(key[:2], 16) * SHARDS // 256


def _plain(value: Any) -> bool:
    """Whether an entry gives the value back as it is: a scalar, or a list of scalars."""
    return type(value) in _SCALARS or type(value) is list and all(type(v) in _SCALARS for v in value)


def _keeps(finding: Finding) -> bool:
    """Whether an entry can keep the finding: it gives back every extra value as it is."""
    return all(_plain(value) for _, value in finding.extra)


def _encoded(finding: Finding) -> list[Any]:
    """A finding as an entry keeps it (one `_keeps` accepted)."""
    return [
        finding.rule, finding.severity.value, finding.layer, finding.path, finding.line, finding.entity,
        finding.fidelity, finding.message, finding.confidence, list(finding.fact_ids),
        [[r.path, r.line, r.fact_id, r.obs] for r in finding.related], finding.fingerprint, finding.baseline,
        [[name, value] for name, value in finding.extra], finding.obs,
    ]


def _decoded(rows: Any) -> list[Finding] | None:
    """The findings an entry kept, or None for rows of another shape (a miss). A row's types are
    checked with comparisons, not generators, and its finding is made as a tuple directly: a
    warm run reads back every entity it does not judge."""
    if type(rows) is not list:
        return None
    found = []
    try:
        for row in rows:
            if type(row) is not list or len(row) != _ROW:
                return None
            (rule, severity, layer, path, line, entity, fidelity, message, confidence, ids, related,
             fingerprint, baseline, extra, obs) = row
            if not type(rule) is type(layer) is type(path) is type(entity) is type(fidelity) is type(message) \
                    is type(fingerprint) is str:
                return None
            if type(line) is not int or type(obs) is not int or type(confidence) not in (int, float):
                return None
            if not type(ids) is type(related) is type(extra) is list:
                return None
            if related and not all(type(r) is list and len(r) == 4 and type(r[1]) is int for r in related):
                return None
            found.append(_NEW(Finding, (  # in field order, as Finding's own __new__ would place them
                rule, _SEVERITIES[severity], layer, path, line, entity, fidelity, message, confidence,
                tuple(map(str, ids)), tuple(_NEW(Location, r) for r in related) if related else (), fingerprint,
                baseline if type(baseline) is str else None,
                tuple((str(name), value) for name, value in extra) if extra else (), obs,
            )))
    except (TypeError, ValueError, KeyError):
        return None
    return found
