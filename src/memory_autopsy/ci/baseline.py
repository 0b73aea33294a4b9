"""The baseline: accepted findings, by content fingerprint and count, in a small stable file.

Identity is `Finding.fingerprint` (content, never line numbers), counted: a second copy of a
baselined problem is new. The file is sorted, carries a format version and the fingerprint
scheme, and has no timestamps, so re-running the update on an unchanged tree is a no-op diff.
A file of an older scheme matches nothing: reading it is refused, and the `baseline` command
rewrites it. In a pull request the baseline is the author's: it must lie in the repository, and
the entries the change adds to it are reported (`Change`).
"""

from __future__ import annotations

import errno
import json
import reprlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

from memory_autopsy import lazyre
from memory_autopsy.engine.findings import FINGERPRINT_VERSION
from memory_autopsy.errors import UsageError
from memory_autopsy.model import Finding

FORMAT_VERSION = 1
SCHEME = f"memoryAutopsy/{FINGERPRINT_VERSION}"
OLDER_SCHEMES = frozenset({"memoryAutopsy/v1"})  # what the `baseline` command may rewrite
DEFAULT_PATH = ".memory-autopsy-baseline.json"
MAX_BASELINE_BYTES = 256 * 1024 * 1024
_LINE_REF = lazyre.compile(r"(\.[A-Za-z]{1,9}):\d+\b")
MESSAGE_LIMIT = 120


@dataclass(frozen=True, slots=True)
class Entry:
    """One recorded finding of a baseline: its fingerprint and, for people, where and what it was."""

    fingerprint: str
    rule: str
    path: str
    entity: str
    message: str
    count: int = 1
    related: tuple[str, ...] = ()

    @property
    def paths(self) -> frozenset[str]:
        return frozenset((self.path, *self.related))

    def as_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"rule": self.rule, "path": self.path, "entity": self.entity,
                                "message": self.message, "count": self.count}
        if self.related:
            data["related_paths"] = list(self.related)
        data["fingerprint"] = self.fingerprint
        return data


class Baseline(NamedTuple):
    entries: tuple[Entry, ...] = ()

    def counts(self) -> dict[str, int]:
        return {e.fingerprint: e.count for e in self.entries}


class Comparison(NamedTuple):
    findings: tuple[Finding, ...]
    fixed: tuple[Entry, ...]


class Change(NamedTuple):
    """How the baseline in force differs from the one at the base of the change under review."""

    path: str
    base: str  # the commit compared with
    state: str  # "added" (none at the base), "rewritten" (the base's is unreadable or older), "changed"
    added: tuple[Entry, ...]  # each with the count of copies the change accepts
    removed: int  # copies accepted at the base and no longer


class OlderScheme(UsageError):
    """A baseline whose fingerprints an older version computed: they match no finding now."""

    def __init__(self, where: str, found: str) -> None:
        super().__init__(f"{where}: baseline fingerprints are {found!r}, this version computes "
                         f"{SCHEME}; rewrite it with `memory-autopsy baseline` (review the diff)")
        self.found = found


def baselinable(finding: Finding) -> bool:
    """A run-level finding with no file (`degraded`) describes the run, not the memory."""
    return bool(finding.path)


def entry_for(finding: Finding, count: int = 1) -> Entry:
    related = sorted({r.path for r in finding.related if r.path and r.path != finding.path})
    message = " ".join(_LINE_REF.sub(r"\1", finding.message).split())
    if len(message) > MESSAGE_LIMIT:
        message = message[: MESSAGE_LIMIT - 1] + "…"
    return Entry(finding.fingerprint, finding.rule, finding.path, finding.entity, message, count,
                 tuple(related))


def from_findings(findings: Iterable[Finding]) -> dict[str, Entry]:
    entries: dict[str, Entry] = {}
    for finding in filter(baselinable, findings):
        seen = entries.get(finding.fingerprint)
        entries[finding.fingerprint] = (
            replace(seen, count=seen.count + 1) if seen else entry_for(finding))
    return entries


def compare(findings: Sequence[Finding], baseline: Baseline, analysed: Iterable[str]) -> Comparison:
    """Mark each finding new/unchanged; entries still unmatched in analysed files are fixed."""
    remaining = baseline.counts()
    marked: list[Finding] = []
    for finding in findings:
        left = remaining.get(finding.fingerprint, 0)
        if left > 0 and baselinable(finding):
            remaining[finding.fingerprint] = left - 1
            marked.append(finding._replace(baseline="unchanged"))
        else:
            marked.append(finding._replace(baseline="new"))
    seen = frozenset(analysed)
    fixed = tuple(replace(e, count=remaining[e.fingerprint]) for e in baseline.entries
                  if remaining[e.fingerprint] > 0 and e.paths <= seen)
    return Comparison(tuple(marked), fixed)


def change(path: str, base: str, old: Baseline | None, new: Baseline, *,
           comparable: bool = True) -> Change | None:
    """The entries the change adds to the baseline (and how many copies it drops), or None when
    the two accept the same findings. `old`: None when the base has no baseline there;
    `comparable`: False when the base's file was unreadable or of an older scheme."""
    before = old.counts() if old is not None and comparable else {}
    after = new.counts()
    if before == after and old is not None and comparable:
        return None
    added = tuple(replace(e, count=e.count - before.get(e.fingerprint, 0)) for e in new.entries
                  if e.count > before.get(e.fingerprint, 0))
    removed = sum(max(0, n - after.get(fp, 0)) for fp, n in before.items())
    state = "added" if old is None else "changed" if comparable else "rewritten"
    return Change(path, base, state, added, removed)


def update(
    baseline: Baseline,
    findings: Iterable[Finding],
    analysed: Iterable[str],
    *,
    prune_only: bool = False,
    gone: Callable[[str], bool] = lambda path: False,
) -> Baseline:
    """The next baseline: judged entries follow the findings; entries never judged are kept."""
    current = from_findings(findings)
    seen = frozenset(analysed)
    kept: dict[str, Entry] = {}
    for entry in baseline.entries:
        judged = entry.paths <= seen or any(gone(p) for p in entry.paths)
        now = current.get(entry.fingerprint)
        if not judged:
            kept[entry.fingerprint] = entry
        elif now is not None:
            count = min(entry.count, now.count) if prune_only else now.count
            kept[entry.fingerprint] = replace(entry, count=count)
    if not prune_only:
        for fingerprint, entry in current.items():
            kept.setdefault(fingerprint, entry)
    return Baseline(tuple(kept.values()))


def dumps(baseline: Baseline) -> str:
    entries = sorted(baseline.entries, key=lambda e: (e.path, e.rule, e.entity, e.fingerprint))
    document = {"tool": "memory-autopsy", "format": FORMAT_VERSION, "fingerprints": SCHEME,
                "entries": [e.as_dict() for e in entries]}
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def loads(text: str, where: str) -> Baseline:
    try:
        return _parse(text, where)
    except RecursionError:  # the JSON parser (or str() of an entry) recurses once per level
        raise UsageError(f"{where}: not a baseline file (JSON nested too deeply)") from None


def _parse(text: str, where: str) -> Baseline:
    try:
        document = json.loads(text)
    except ValueError as error:
        raise UsageError(f"{where}: not a baseline file (invalid JSON: {error})") from None
    if not isinstance(document, dict) or not isinstance(document.get("entries"), list):
        raise UsageError(f"{where}: not a memory-autopsy baseline (no 'entries' list)")
    _check_versions(document, where)
    return Baseline(tuple(_entry(item, where) for item in document["entries"]))


def load(path: str) -> Baseline:
    return loads(read_text(path), path)


def read_text(path: str) -> str:
    """The baseline file's text, read inside the repository (ingest.confined: a link that leads
    out, even one swapped in after the path was checked, is refused unread), without blocking
    and only from a regular file: reading a FIFO named as the baseline would wait forever."""
    from memory_autopsy.ingest.confined import LeadsOutside, Roots, read_inside

    try:
        data = read_inside(path, Roots.for_paths([path]), MAX_BASELINE_BYTES)
    except LeadsOutside:
        raise UsageError(f"{path}: a link that leads outside the repository (not read)") from None
    except OSError as error:
        if error.errno == errno.ENOENT:
            raise UsageError(f"{path}: no baseline file (create it with `memory-autopsy baseline`)") from None
        if error.errno == errno.EINVAL:
            raise UsageError(f"{path}: the baseline must be a regular file") from None
        raise UsageError(f"{path}: unreadable baseline: {error.strerror or error}") from None
    try:
        return data.decode("utf-8").replace("\r\n", "\n")
    except UnicodeDecodeError as error:
        raise UsageError(f"{path}: unreadable baseline: {error}") from None


def _check_versions(document: Mapping[str, Any], where: str) -> None:
    version = document.get("format")
    if not isinstance(version, int) or version > FORMAT_VERSION:
        raise UsageError(f"{where}: baseline format {reprlib.repr(version)} is not supported by this "
                         f"version (expected {FORMAT_VERSION}); upgrade memory-autopsy")
    found = document.get("fingerprints")
    if found in OLDER_SCHEMES:
        raise OlderScheme(where, str(found))
    if found != SCHEME:
        raise UsageError(f"{where}: baseline fingerprints are {reprlib.repr(found)}, this version "
                         f"computes {SCHEME}; a newer memory-autopsy wrote it, or it is no baseline")


def _entry(item: Any, where: str) -> Entry:
    if not isinstance(item, dict) or not isinstance(item.get("fingerprint"), str):
        raise UsageError(f"{where}: a baseline entry has no fingerprint: {reprlib.repr(item)}")
    count = item.get("count", 1)
    if isinstance(count, bool) or not isinstance(count, int) or count < 1:
        raise UsageError(f"{where}: entry {item['fingerprint']}: count must be a whole number >= 1")
    related = item.get("related_paths", [])
    return Entry(item["fingerprint"], str(item.get("rule", "")), str(item.get("path", "")),
                 str(item.get("entity", "")), str(item.get("message", "")), count,
                 tuple(str(p) for p in related) if isinstance(related, list) else ())
