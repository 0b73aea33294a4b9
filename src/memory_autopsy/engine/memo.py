"""Findings of the layers that judge one group of facts alone, kept between runs beside the
parse cache: on a large store, the hook after a one-line change judges again only the groups
the change touched. The near-duplicate layer keeps its groups (one entity's prose in one file):
the costliest judge per fact. A slot group is judged faster than it is digested and read back
(measured on the 100k bench store), so the slot layer keeps none.

A group's findings are a function of the group's facts (every field, its line and store
order included), the tool's code and the run's words (vocabulary, lexicon); nothing else of
the store is read. So a group is keyed by a digest of its facts as written (`repr` of each
fact: every field, in C) under a salt of the version, the engine's code and the words, and a
group whose key was judged before takes its findings from the entry instead of the layer.
One entry per scope (the paths a run reads) holds the groups of its last run and, up to as
many again, of the runs before (a hook that changes one file, then another). Plain JSON,
never pickle (the folder sits in a working tree); written atomically; an entry that is
corrupt or of another shape is a miss and is rewritten whole; the parse cache's bound counts
it.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterable, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

from memory_autopsy import __version__
from memory_autopsy.ingest.cache import (
    ENGINE_FOLDER,
    FORMAT,
    PACKAGE,
    lexicon_key,
    reader_digest,
    vocabulary_key,
    write_atomic,
)
from memory_autopsy.lexicon import default_lexicon
from memory_autopsy.model import Fact, Finding, Location, Severity
from memory_autopsy.settings import Settings

# Below this many facts a store is judged faster than its entry is read and written.
MIN_FACTS = 2000
# What decides a kept group's findings: the layers and everything they read facts with.
ENGINE_MODULES = ("engine", "claims.py", "dates.py", "normalize.py", "vocabulary.py", "model.py", "rules.py",
                  "cues.py", "lexicon")
_SEVERITIES = {s.value: s for s in Severity}
_SCALARS = (str, int, float, bool, type(None))
_ROW = 15  # the fields of a kept finding


@lru_cache(maxsize=1)
def engine_key() -> str:
    """This install's engine as a short digest, read once per run."""
    return reader_digest(PACKAGE, ENGINE_MODULES)


def memo_for(settings: Settings, paths: Sequence[str], facts: int) -> GroupMemo | None:
    """The run's memo: with a cache folder and a store large enough to gain from it."""
    if not settings.parse_cache or facts < MIN_FACTS:
        return None
    return GroupMemo(Path(settings.parse_cache), settings, paths)


class GroupMemo:
    def __init__(self, root: Path, settings: Settings, paths: Sequence[str]) -> None:
        salt = "\0".join((__version__, engine_key(), vocabulary_key(settings.vocabulary),
                          lexicon_key(settings.lexicon or default_lexicon())))
        scope = hashlib.sha256("\0".join([salt, *sorted(paths)]).encode("utf-8", "surrogatepass"))
        self.salt = salt
        self.target = root / FORMAT / ENGINE_FOLDER / f"{scope.hexdigest()}.json"
        self.kept = self._read()
        self.used: dict[str, list[Any]] = {}
        self.hits = self.misses = 0

    def findings(self, layer: str, facts: Sequence[Fact], judge: Callable[[], Iterable[Finding]]) -> list[Finding]:
        """What `judge` finds in `facts` (one group, as `layer` reads it): kept, or judged now."""
        text = layer + "\0" + "".join(map(tuple.__repr__, facts))
        key = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
        rows = self.kept.get(key)
        if rows is not None:
            found = _decoded(rows)
            if found is not None:
                self.used[key] = rows
                self.hits += 1
                return found
        found = list(judge())
        encoded = [_encoded(finding) for finding in found]
        if None not in encoded:
            self.used[key] = encoded
        self.misses += 1
        return found

    def save(self) -> None:
        """Write this run's groups (and as many again of earlier runs), unless nothing changed."""
        if not self.misses and len(self.used) == len(self.kept):
            return
        earlier = [(key, rows) for key, rows in self.kept.items() if key not in self.used]
        groups = dict(self.used)
        groups.update(earlier[: len(self.used)])
        entry = {"salt": self.salt, "groups": groups}
        write_atomic(self.target, lambda handle: handle.write(
            json.dumps(entry, ensure_ascii=True, separators=(",", ":"))))

    def _read(self) -> dict[str, list[Any]]:
        try:
            with open(self.target, encoding="utf-8") as handle:
                entry = json.load(handle)
            groups = entry["groups"]
            if entry["salt"] != self.salt or type(groups) is not dict:
                return {}
            os.utime(self.target)  # least recently used goes first when the folder is pruned
        except (OSError, ValueError, KeyError, TypeError, RecursionError):
            return {}
        return groups


def _plain(value: Any) -> bool:
    """Whether JSON gives the value back as it is: a scalar, or a list of scalars."""
    return type(value) in _SCALARS or type(value) is list and all(type(v) in _SCALARS for v in value)


def _encoded(finding: Finding) -> list[Any] | None:
    """A finding as an entry keeps it; None for one whose extra values JSON would not give back."""
    if not all(_plain(value) for _, value in finding.extra):
        return None
    return [
        finding.rule, finding.severity.value, finding.layer, finding.path, finding.line, finding.entity,
        finding.fidelity, finding.message, finding.confidence, list(finding.fact_ids),
        [[r.path, r.line, r.fact_id, r.obs] for r in finding.related], finding.fingerprint, finding.baseline,
        [[name, value] for name, value in finding.extra], finding.obs,
    ]


def _decoded(rows: Any) -> list[Finding] | None:
    """The findings an entry kept, or None for rows of another shape (a miss)."""
    if type(rows) is not list:
        return None
    found = []
    try:
        for row in rows:
            if type(row) is not list or len(row) != _ROW:
                return None
            (rule, severity, layer, path, line, entity, fidelity, message, confidence, ids, related,
             fingerprint, baseline, extra, obs) = row
            if not all(type(v) is str for v in (rule, layer, path, entity, fidelity, message, fingerprint)):
                return None
            if type(line) is not int or type(obs) is not int or type(confidence) not in (int, float):
                return None
            if not all(type(r) is list and len(r) == 4 and type(r[1]) is int for r in related):
                return None
            found.append(Finding(
                rule=rule, severity=_SEVERITIES[severity], layer=layer, path=path, line=line, entity=entity,
                fidelity=fidelity, message=message, confidence=confidence,
                fact_ids=tuple(str(i) for i in ids), related=tuple(Location(*r) for r in related),
                fingerprint=fingerprint, baseline=baseline if type(baseline) is str else None,
                extra=tuple((str(name), value) for name, value in extra), obs=obs,
            ))
    except (TypeError, ValueError, KeyError):
        return None
    return found
