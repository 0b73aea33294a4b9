"""A content-addressed cache of per-file parse results, so an unchanged file is never parsed
twice (the hook and `ci` lint their whole scope as context on every run).

An entry is keyed by the file's bytes, its display path, the tool's version, the reader's own
code (a digest of the modules that decide a parse result, so a changed reader never serves an
old parse under an unchanged version) and the words the reader uses (the lexicon, and the
vocabulary its drafts' prose slots are derived with: a warm run does not derive them again), and holds
plain values (lists, tuples, strings, numbers) marshalled by this interpreter, as `__pycache__`
holds its code and replay.py its records: never pickle, which can run code, since the cache
folder sits in a working tree that a pull request can write to, and a cache git tracks is
never read (ci.filters.with_cache). marshal reads an entry back in C several times faster than
JSON, and as written: tuples as tuples, and a shared name as one object (see `_fact_row`), where
JSON handed every row its own copy and lists to turn back into tuples (on the warm hook of a
100k-fact store, decoding and rebuilding the entries was 0.7 s of a 1 s load). The key holds
the interpreter's tag, so another Python never reads them, and an entry starts with a CRC-32 of
the rest, so a damaged one is a miss rather than other values. Writes are atomic (a temporary file, then
`os.replace`), so concurrent runs at worst both write the same entry; a corrupt or foreign
entry, or one whose values are not of the types a parse's are (`_Shape`), is a miss and is
rewritten. The folder is bounded: past `max_bytes` the least recently
used entries go.

What `finish` derives of a draft (prose slot, id, normalized body) depends on the store around
the file: a `Label: rest` line reads differently once the store settles its label as an entity.
So a file's entry is written after the run, with each draft's derivation as the store read it;
a run whose store settles a label otherwise derives that draft again and adds it to the entry.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import marshal
import math
import os
import sys
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import fields
from functools import lru_cache
from operator import attrgetter, itemgetter
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from memory_autopsy import __version__
from memory_autopsy.cachedir import PARSES, ignore_itself, write_atomic
from memory_autopsy.ingest.frontmatter import load_mapping
from memory_autopsy.ingest.json_store import JsonResult
from memory_autopsy.ingest.records import (
    DRAFT_FIELDS,
    FACT_FIELDS,
    Derived,
    Draft,
    Item,
    Record,
    as_settled,
    fits,
)
from memory_autopsy.lexicon import Lexicon, default_lexicon
from memory_autopsy.model import Declaration, Fact, Fidelity, Problem
from memory_autopsy.vocabulary import DEFAULT_VOCABULARY, Vocabulary

if TYPE_CHECKING:
    from memory_autopsy.settings import Settings

FORMAT = PARSES  # the entries' folder in the cache folder, named by their format
SUFFIX = ".marshal"  # an entry's file
# What an entry is read with: a corrupt or foreign entry raises one of these, and is a miss
# (MemoryError: marshal allocates the size a planted entry declares before reading its items).
UNREADABLE = (OSError, ValueError, EOFError, KeyError, TypeError, IndexError, AttributeError, RecursionError,
              MemoryError)
MAX_BYTES = 256 * 1024 * 1024
# A run that wrote adds its bytes to a count of the folder's kept in LEDGER, and lists the folder
# to prune it only once the count passes the bound, or at every PRUNE_EVERY-th writing run
# (concurrent runs can each miss the other's bytes; the engine's shards are not counted): listing
# and stating every entry cost each commit ~20 µs an entry, and a cache gathers thousands.
LEDGER = "size"
PRUNE_EVERY = 64
# A row holds the fields in DRAFT_FIELDS order (Draft's positional order); these are checked
# or converted by position, so a cached store is read without a dict per draft. The entry names
# its file once (a row's path is 0), and a row leaves out what repeats another of its fields:
# 0 stands for "the same as" (a body as its claim, a derived slot as the written one).
(_ENTITY, _CLAIM, _PATH, _LINE, _FIDELITY, _SLOT, _VALUE, _BODY, _GIVEN, _ALIASES, _SUPPRESS, _LABEL, _REST, _NAMED,
 _DERIVED, _SETTLED, _OBSERVED, _SOURCE, _SHAPE, _KIND) = (
    DRAFT_FIELDS.index(n)
    for n in ("entity", "claim", "path", "line", "fidelity", "slot", "value", "body", "given_id", "aliases",
              "suppress", "label", "label_rest", "named", "derived", "settled", "observed_at", "source", "shape",
              "kind")
)
_DERIVED_SIZE = len(Derived._fields) - 3  # a derivation as a row keeps it: from its slot on
# A draft without a label, derived as it reads (no store can read it otherwise), is kept as its
# fact's values instead, in FACT_FIELDS order, and then whether its entity was written: a warm run
# places them as they are (no draft, no rearranging). Its path and order are 0, and 0 stands for
# "the same as" in three places: the written entity as the entity, the body as the claim, the
# normalized body as the body. A fact row is one longer than a draft row.
(_F_ID, _F_ENTITY, _F_CLAIM, _F_OBSERVED, _F_SOURCE, _F_FIDELITY, _F_PATH, _F_LINE, _F_ALIASES, _F_WRITTEN, _F_SHAPE,
 _F_SUPPRESS, _F_ORDER, _F_BODY, _F_KIND, _F_NORM) = (
    FACT_FIELDS.index(n)
    for n in ("id", "entity", "claim", "observed_at", "source", "fidelity", "path", "line", "aliases",
              "written_entity", "shape", "suppress", "order", "body", "kind", "norm")
)
_FACT_ROW = len(FACT_FIELDS) + 1
_F_NAMES = (_F_ENTITY, _F_SHAPE, _F_KIND, _F_OBSERVED, _F_SOURCE)  # interned in an entry (`_intern`)
_D_NAMES = (_ENTITY, _SHAPE, _KIND, _OBSERVED, _SOURCE)  # the same, of a draft row
# What the store-wide label settling changes of a draft: an entry keeps the draft as parsed.
Parsed = tuple[str, str, Fidelity, bool]  # entity, body, fidelity, named
_ROW = attrgetter(*DRAFT_FIELDS)
_FIDELITIES = {f.value: f for f in Fidelity}
_VALUES = {f: f.value for f in Fidelity}  # an enum's .value is a Python-level lookup


class _Shape:
    """The types a row's fields may hold, by position, checked before a row is used: an entry
    with a valid checksum may still hold anything marshal writes (a pull request's own, or
    another version's), and a list where a name goes, or a string where a number goes, failed
    deep in the engine (exit 3) where it must be a miss. A row's field types are checked once
    per combination seen (a few in a whole store), its "same as" markers (an int) and the
    items of its tuples on each row."""

    def __init__(self, names: Sequence[str], kinds: dict[str, tuple[type, ...]], markers: Sequence[str] = (),
                 texts: Sequence[str] = ()) -> None:
        self.kinds = tuple(frozenset(kinds[name]) for name in names)  # a field without a kind: KeyError here
        self.markers = tuple(names.index(name) for name in markers)
        self.texts = tuple(names.index(name) for name in texts)
        self.known: dict[tuple[type, ...], tuple[itemgetter[Any], tuple[int, ...]] | None] = {}

    def check(self, row: list[Any]) -> None:
        """ValueError unless each field of `row` is of its kind, each marker that is an int is 0
        and each tuple holds strings only."""
        signature = tuple(map(type, row))
        try:
            zeros = self.known[signature]
        except KeyError:
            zeros = self.known[signature] = self._learn(signature)
        if zeros is not None and zeros[0](row) != zeros[1]:
            raise ValueError("cache entry of another shape")
        if self.texts and any(map(row.__getitem__, self.texts)):  # most hold none
            for at in self.texts:
                if not all(type(text) is str for text in row[at]):
                    raise ValueError("cache entry of another shape")

    def _learn(self, signature: tuple[type, ...]) -> tuple[itemgetter[Any], tuple[int, ...]] | None:
        if len(signature) != len(self.kinds) or not all(t in kind for t, kind in zip(signature, self.kinds)):
            raise ValueError("cache entry of another shape")
        ints = [at for at in self.markers if signature[at] is int]
        if not ints:
            return None
        return itemgetter(*ints, ints[0]), (0,) * (len(ints) + 1)  # twice the first: always a tuple


_TEXT, _OPTIONAL, _NUMBER, _SAME = (str,), (str, type(None)), (int,), (str, int)  # _SAME: 0, "the same as"
_COMMON = {"entity": _TEXT, "claim": _TEXT, "path": _NUMBER, "line": _NUMBER, "fidelity": _TEXT, "slot": _TEXT,
           "value": _TEXT, "observed_at": _OPTIONAL, "valid_from": _OPTIONAL, "valid_to": _OPTIONAL,
           "source": _OPTIONAL, "status_verb": _OPTIONAL, "aliases": (tuple,), "shape": _TEXT,
           "suppress": (tuple,), "kind": _TEXT, "status": _TEXT, "entry": _TEXT, "obs": _NUMBER,
           "end_line": _NUMBER, "named": (bool,)}
_DRAFT_SHAPE = _Shape(DRAFT_FIELDS, {
    **_COMMON, "body": _SAME, "source_class": _OPTIONAL, "given_id": _OPTIONAL, "label": _TEXT,
    "label_rest": _TEXT, "annotated": (bool,), "derived": (list, type(None)), "settled": (list, type(None)),
}, markers=("path", "body"), texts=("aliases", "suppress"))
_FACT_SHAPE = _Shape((*FACT_FIELDS, "named"), {
    **_COMMON, "id": _TEXT, "source_class": _TEXT, "written_entity": _SAME, "id_given": (bool,),
    "order": _NUMBER, "qualifier": _TEXT, "body": _SAME, "norm": _SAME, "cues": _NUMBER,
}, markers=("path", "order", "written_entity", "body", "norm"), texts=("aliases", "suppress"))
_DERIVED_SHAPE = _Shape(("slot", "value", "qualifier", "verb", "id", "stripped", "norm", "cues"), {
    "slot": _SAME, "value": _SAME, "qualifier": _TEXT, "verb": _TEXT, "id": _SAME, "stripped": _SAME,
    "norm": _SAME, "cues": _NUMBER}, markers=("slot", "value", "id", "stripped", "norm"))
# The lists beside the rows: declarations, problems, references (as `encode` writes them)
_DECLARATION = (str, str, int, str, str)
_PROBLEM = (str, int, str)
_REFERENCE = (int, str)


def cache_for(settings: Settings) -> ParseCache | None:
    """The run's parse cache, when its settings name a folder for one."""
    if not settings.parse_cache:
        return None
    return ParseCache(settings.parse_cache, settings.lexicon, MAX_BYTES, vocabulary=settings.vocabulary)


class ParseCache:
    def __init__(
        self, root: Path | str, lexicon: Lexicon | None = None, max_bytes: int = MAX_BYTES,
        vocabulary: Vocabulary = DEFAULT_VOCABULARY,
    ) -> None:
        self.root = Path(root) / FORMAT
        self.vocabulary = vocabulary
        self.salt = (f"{__version__}\0{reader_key()}\0{lexicon_key(lexicon or default_lexicon())}"
                     f"\0{vocabulary_key(vocabulary)}\0{sys.implementation.cache_tag} marshal {marshal.version}")
        self.max_bytes = max_bytes
        # Entries this run reads are touched and the ones it writes are new: from this second
        # on, an entry is this run's (a filesystem's coarser clock only protects fewer).
        self.opened = float(int(time.time()))
        self.hits = self.misses = self.written = 0
        self.bytes_written = 0
        self._pending: list[tuple[str, JsonResult, dict[int, Parsed]] | None] = []
        self._read: list[tuple[str, list[tuple[int, Draft, Derived | None]]]] = []
        self.strings: dict[str, str] = {}  # one copy of each name and source the JSONL spans parsed this run hold

    def key(self, path: str, data: bytes | memoryview, part: str = "") -> str:
        """`part` names a piece of a file cached on its own (a span of a JSONL store's lines)."""
        digest = hashlib.sha256(self.salt.encode("utf-8"))
        digest.update(b"\0" + path.encode("utf-8", "surrogatepass") + b"\0")
        if part:
            digest.update(b"part " + part.encode("utf-8") + b"\0")
        digest.update(data)
        return digest.hexdigest()

    def _file(self, key: str) -> Path:
        return self.root / key[:2] / f"{key[2:]}{SUFFIX}"

    def get(self, path: str, data: bytes | memoryview, part: str = "", *, kept: bool = False) -> JsonResult | None:
        """`kept`: `flush` adds to the entry what `finish` had to derive again (the store around
        the file settled one of its labels otherwise), so the next run derives nothing."""
        key = self.key(path, data, part)
        target = self._file(key)
        try:
            result = decode(load_entry(target), path)
            os.utime(target)  # least recently used goes first when the folder is pruned
        except UNREADABLE:
            self.misses += 1
            return None
        self.hits += 1
        if kept and result.drafts:
            self._read.append((key, [(i, d, d.derived) for i, d in enumerate(result.items()) if type(d) is Draft]))
        return result

    def defer(self, path: str, data: bytes | memoryview, result: JsonResult, part: str = "") -> None:
        """Write a parse at `flush`, once `finish` has derived each draft as the settled store
        reads it: a cold run derives each draft once, as a run without the cache does, and the
        entry holds the derivation a warm run will use. What settling may change (a labelled
        draft's entity, body, fidelity) is kept as parsed until then."""
        parsed = {i: (d.entity, d.body, d.fidelity, d.named) for i, d in enumerate(result.items())
                  if type(d) is Draft and d.label}
        self._pending.append((self.key(path, data, part), result, parsed))

    def last_items(self) -> dict[int, int]:
        """The `id` of each deferred parse's last item (a draft or a record) -> the parse's
        place among them: once that item is finished, every item of the parse is (the loader
        finishes them in order), and `write_deferred` can write its entry and let them go."""
        return {id(entry[1].items()[-1]): n for n, entry in enumerate(self._pending)
                if entry is not None and entry[1].items()}

    def write_deferred(self, n: int, facts: Sequence[Fact] = ()) -> None:
        """`facts`: the facts finish made of the parse's items, in their order: a fact row is
        taken from its fact, not made again of the draft."""
        entry, self._pending[n] = self._pending[n], None
        if entry is not None:
            key, result, parsed = entry
            self._write(key, encode(result, parsed, facts))

    def flush(self) -> None:
        for n in range(len(self._pending)):
            self.write_deferred(n)
        for key, drafts in self._read:
            again = [(i, draft) for i, draft, old in drafts if draft.derived is not old]
            if again:
                self._amend(key, again)
        self._pending, self._read = [], []

    def memo(self, kind: str, inputs: list[Any], compute: Callable[[], list[Any]],
             valid: Callable[[Any], bool]) -> list[Any]:
        """What `compute` returned for the same inputs in an earlier run, else its result, kept.
        For a store-wide step of the reader that is a pure function of small inputs (the
        look-alike names): kept beside the parse entries, under the same key salt and bound. An
        entry whose rows are not all `valid` is a miss."""
        text = json.dumps(inputs, ensure_ascii=True, separators=(",", ":"))
        key = self.key(kind, text.encode("utf-8"), "memo")
        target = self._file(key)
        try:
            entry = load_entry(target)
            if type(entry["result"]) is list and all(valid(row) for row in entry["result"]):
                os.utime(target)
                return entry["result"]
        except UNREADABLE:
            pass
        result = compute()
        if all(valid(row) for row in result):  # kept only as it will be read back
            self._write(key, {"result": result, "drafts": []})
        return result

    def front_matter(self, text: str) -> dict[str, Any]:
        """A front matter block's mapping (`frontmatter.load_mapping`), kept by its text as a
        `memo` of its (key, value) pairs: an edit to a memory file's body reads its unchanged
        front matter back, and a run that reads no new front matter never imports PyYAML
        (13-20 ms of the hook on a commit). A mapping holding a value of none of JSON's kinds (a
        date, a nested key that is not a string) is not kept: it is read each time."""
        pairs = self.memo("front matter", [text], lambda: [[k, v] for k, v in load_mapping(text).items()],
                          _kept_pair)
        return dict(pairs)

    def _amend(self, key: str, drafts: list[tuple[int, Draft]]) -> None:
        try:
            entry = load_entry(self._file(key))
            rows = entry["drafts"]
            for i, draft in drafts:
                _place(rows[i], (draft.derived,), draft)
        except UNREADABLE:
            return
        self._write(key, entry)

    def _write(self, key: str, entry: dict[str, Any]) -> None:
        if not self.written:
            ignore_itself(self.root.parent)
        target = self._file(key)
        if write_entry(target, entry):
            self.written += 1
            with contextlib.suppress(OSError):
                self.bytes_written += target.stat().st_size

    def prune_after_run(self) -> None:
        """Prune once the run has read and written all it will (a lint: after the engine has
        read and written its shards), when it wrote anything and the folder's count of its bytes
        (LEDGER) passes the bound, keeping what it touched; a folder with no count is pruned, and
        the prune writes the count it measured."""
        if not self.written:
            return
        counted = _read_ledger(self.root / LEDGER)
        if counted is not None:
            size, runs = counted[0] + self.bytes_written, counted[1] + 1
            if size <= self.max_bytes and runs < PRUNE_EVERY:
                _write_ledger(self.root / LEDGER, size, runs)
                return
        _write_ledger(self.root / LEDGER, self.prune(since=self.opened), 0)

    def prune(self, since: float | None = None) -> int:
        """Drop the least recently used entries until the folder is under its bound, but none
        touched since `since` (a run passes `opened`: what it read or wrote stays, so a store
        whose entries pass the bound keeps them all rather than losing the ones its next run
        reads first: a 1M JSONL store's ~300 MB of spans cycled, each run after a change
        parsing again the spans the run before had dropped). The engine's kept findings (a
        folder of shards per scope) count too, and go only after every parse entry: a shard
        spares a run judging its entities again, a parse entry reading one file or span.
        Returns the bytes left."""
        kept_from = float("inf") if since is None else since
        entries = []
        parsed = [entry for folder in self.root.glob("??") for entry in folder.iterdir()]
        # Every file of the folders counts, an earlier version's too (its JSON entries are never
        # read again): never touched, they go first of their kind.
        for engine, found in ((False, parsed), (True, (self.root / ENGINE_FOLDER).glob("*/*"))):
            for entry in found:
                try:
                    stat = entry.stat()
                except OSError:
                    continue
                entries.append((engine, stat.st_mtime, stat.st_size, entry))
        total = sum(size for _, _, size, _ in entries)
        for _, mtime, size, entry in sorted(entries):
            if total <= self.max_bytes:
                break
            if mtime >= kept_from:
                continue
            try:
                entry.unlink()
                total -= size
            except OSError:
                continue
        return total


def _read_ledger(path: Path) -> tuple[int, int] | None:
    """(bytes, writing runs since the last prune) as LEDGER holds them; None when unreadable."""
    try:
        with open(path, encoding="ascii") as handle:
            size, runs = (int(part) for part in handle.read(64).split())
    except (OSError, ValueError):
        return None
    return (size, runs) if size >= 0 and runs >= 0 else None


def _write_ledger(path: Path, size: int, runs: int) -> None:
    write_atomic(path, lambda handle: handle.write(f"{size} {runs}\n"))


# Where the engine keeps the findings of the layers that judge each entity alone (engine.memo).
ENGINE_FOLDER = "engine"


_CHECK = 4  # the checksum's bytes


def load_entry(target: Path) -> Any:
    """An entry's value; ValueError when its checksum does not match (a damaged file: marshal
    would read many a flipped byte as another value, where JSON mostly failed to parse)."""
    with open(target, "rb") as handle:
        data = memoryview(handle.read())
    if len(data) < _CHECK or zlib.crc32(data[_CHECK:]) != int.from_bytes(data[:_CHECK], "little"):
        raise ValueError("damaged cache entry")
    return marshal.loads(data[_CHECK:])


def entry_parts(value: Any) -> tuple[bytes, bytes]:
    """An entry's file as written: the CRC-32 of the marshalled value, then the value (~10 ms
    for 24 MB); ValueError for a value marshal cannot write."""
    data = marshal.dumps(value)
    return zlib.crc32(data).to_bytes(_CHECK, "little"), data


def write_entry(target: Path, value: Any) -> bool:
    """An entry written atomically (`write_atomic`); False when it cannot be, or when marshal
    cannot write the value (a str subclass a caller's store holds): it is made again next run."""
    try:
        check, data = entry_parts(value)
    except ValueError:
        return False
    return write_atomic(target, lambda handle: (handle.write(check), handle.write(data)), binary=True)


PACKAGE = Path(__file__).resolve().parent.parent
# What decides a parse result: the readers, and the modules they read claims with.
READER_MODULES = ("ingest", "dates.py", "normalize.py", "claims.py", "clauses.py", "vocabulary.py", "model.py",
                  "cues.py")


@lru_cache(maxsize=1)
def reader_key() -> str:
    """This install's reader as a short digest, read once per run."""
    return reader_digest(PACKAGE)


def reader_digest(package: Path, modules: tuple[str, ...] = READER_MODULES) -> str:
    """The code of `modules` under `package` as a short digest (a file that cannot be read
    counts by its name)."""
    digest = hashlib.sha256()
    for name in modules:
        target = package / name
        for path in sorted(target.glob("*.py")) if target.is_dir() else [target]:
            try:
                data = path.read_bytes()
            except OSError:
                data = b"?"
            digest.update(path.name.encode("utf-8") + b"\0" + data + b"\0")
    return digest.hexdigest()[:16]


@lru_cache(maxsize=8)
def lexicon_key(lexicon: Lexicon) -> str:
    """The words that change what the reader reads, as a short stable digest."""
    return _fields_key(lexicon)


@lru_cache(maxsize=8)
def vocabulary_key(vocabulary: Vocabulary) -> str:
    """The words prose slots and status verbs are derived with, as a short stable digest."""
    return _fields_key(vocabulary)


def _fields_key(words: Lexicon | Vocabulary) -> str:
    parts = {f.name: _plain(getattr(words, f.name)) for f in fields(words)}
    text = json.dumps(parts, sort_keys=True, ensure_ascii=True)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _kept_pair(row: Any) -> bool:
    """A front matter entry as kept: [a string key, an exact value]."""
    return type(row) is list and len(row) == 2 and type(row[0]) is str and _exact(row[1])


def _exact(value: Any) -> bool:
    """Whether the value is of JSON's kinds, however deep (a finite float): what front matter
    keeps, given back equal and of the same types."""
    kind = type(value)
    if kind in (str, int, bool) or value is None:
        return True
    if kind is float:
        return math.isfinite(value)
    if kind is list:
        return all(map(_exact, value))
    if kind is dict:
        return all(type(k) is str for k in value) and all(map(_exact, value.values()))
    return False


def _plain(value: Any) -> Any:
    if isinstance(value, (frozenset, set)):
        return sorted(value)
    if hasattr(value, "items"):
        return {str(k): v for k, v in sorted(value.items())}
    return value


def encode(result: JsonResult, parsed: dict[int, Parsed] | None = None, facts: Sequence[Fact] = ()) -> dict[str, Any]:
    """`parsed`: the drafts whose labels the store settled since, as they were parsed (by their
    place among the items); `facts`: the items' facts, when finish has made them. A parse's
    items are its drafts and records (records.Record)."""
    parsed = parsed or {}
    # A parse's items: its drafts and records (rows read ready from an entry are never written back).
    items = cast("Sequence[Draft | Record]", result.items())
    made: Sequence[Fact | None] = facts if len(facts) == len(items) else [None] * len(items)
    return {
        "path": items[0].path if items else None,
        "digests": result.digests,
        "drafts": [_entry_row(item, fact, parsed.get(i)) for i, (item, fact) in enumerate(zip(items, made))],
        "declarations": [[d.entity, d.path, d.line, d.kind, d.written] for d in result.declarations],
        "problems": [[p.path, p.line, p.message] for p in result.problems],
        "related": sorted(result.related),
        "references": [list(r) for r in result.references],
    }


def _same(value: str | None, other: str | None) -> str | int | None:
    return 0 if value == other else value


def _entry_row(item: Draft | Record, fact: Fact | None, parsed: Parsed | None) -> list[Any]:
    """An item of a parse as its entry keeps it: its fact's row, or its draft's."""
    if isinstance(item, Record):
        if fact is not None and fact[_F_LINE] == item.line and fact[_F_CLAIM] is item.claim:
            return _fact_row(fact, False)  # derived as it reads, whatever the store around it
        return _row(Draft(*item))
    kept = _as_fact(item, fact)
    return _fact_row(kept, item.named) if kept is not None else _row(item, parsed)


def _as_fact(draft: Draft, fact: Fact | None) -> Fact | None:
    """The fact the entry keeps the draft as, when finish made it (the draft's line and claim),
    no label is left for the store to settle, and it was derived from what the draft says; None
    keeps the draft as its draft row."""
    if fact is None or fact[_F_LINE] != draft.line or fact[_F_CLAIM] is not draft.claim or draft.label:
        return None
    return fact if draft.derived is not None and fits(draft.derived, draft) else None


def _fact_row(fact: Fact, named: bool) -> list[Any]:
    """A fact as an entry keeps it (`named`: whether its draft's entity was written), its names
    interned."""
    row: list[Any] = list(fact)
    _intern(row, _F_NAMES)
    row[_F_PATH] = row[_F_ORDER] = 0
    row[_F_FIDELITY] = _VALUES[row[_F_FIDELITY]]
    if row[_F_NORM] == row[_F_BODY]:
        row[_F_NORM] = 0
    if row[_F_BODY] == row[_F_CLAIM]:
        row[_F_BODY] = 0
    if row[_F_WRITTEN] == row[_F_ENTITY]:
        row[_F_WRITTEN] = 0
    row.append(named)
    return row


def _row(draft: Draft, parsed: Parsed | None = None) -> list[Any]:
    """A draft as an entry keeps it: its names interned and its lists as tuples, as a fact row's."""
    row: list[Any] = list(_ROW(draft))
    row[_PATH] = 0
    if parsed is not None:
        row[_ENTITY], row[_BODY], row[_FIDELITY], row[_NAMED] = parsed
    _intern(row, _D_NAMES)
    row[_ALIASES] = tuple(row[_ALIASES]) if row[_ALIASES] else ()
    row[_SUPPRESS] = tuple(row[_SUPPRESS]) if row[_SUPPRESS] else ()
    row[_FIDELITY] = _VALUES[row[_FIDELITY]]
    if row[_BODY] and row[_BODY] == draft.claim:
        row[_BODY] = 0
    row[_DERIVED] = row[_SETTLED] = None
    _place(row, (draft.derived, draft.settled), draft)
    return row


def _place(row: list[Any], derivations: tuple[Derived | None, ...], draft: Draft) -> None:
    """Each derivation into the row's slot for what it was derived from: the line as the row
    reads (decode rebuilds the draft from it), or as it reads once its label is settled as the
    entity. One that fits neither is left out: `finish` derives it again."""
    body = draft.claim if row[_BODY] == 0 else row[_BODY]
    as_read = (body or draft.claim, _FIDELITIES[row[_FIDELITY]], row[_ENTITY])
    settled = as_settled(draft.label, draft.label_rest, draft.claim)
    for derived in derivations:
        for at, basis in ((_DERIVED, as_read), (_SETTLED, settled)):
            kept = _derived_row(derived, basis, draft)
            if kept is not None:
                row[at] = kept
                break


def _derived_row(d: Derived | None, basis: tuple[str, Fidelity, str], draft: Draft) -> list[Any] | None:
    if d is None or (d.body, d.fidelity, d.entity) != basis:
        return None  # derived from what the draft no longer says: derived again when finished
    return [
        _same(d.slot, draft.slot), _same(d.value, draft.value), d.qualifier, d.verb,
        _same(d.id, draft.given_id), _same(d.stripped, draft.claim), _same(d.norm, d.stripped), d.cues,
    ]


def _derived(row: list[Any], at: int, body: str, fidelity: Fidelity, entity: str) -> Derived | None:
    if row[at] is None:
        return None
    return Derived(body, fidelity, entity, *_resolved(row, row[at]))


def _resolved(row: list[Any], kept: Any) -> list[Any]:
    """A derivation as its row keeps it, with each "same as" marker read back."""
    if type(kept) is not list or len(kept) != _DERIVED_SIZE:
        raise ValueError("cache entry of another shape")
    _DERIVED_SHAPE.check(kept)
    slot, value, qualifier, verb, fact_id, stripped, norm, cues = kept
    stripped = row[_CLAIM] if stripped == 0 else stripped
    return [
        row[_SLOT] if slot == 0 else slot, row[_VALUE] if value == 0 else value, qualifier, verb,
        row[_GIVEN] if fact_id == 0 else fact_id, stripped, stripped if norm == 0 else norm, cues,
    ]


def _intern(row: list[Any], names: tuple[int, ...]) -> None:
    """The row's names (its entity, shape, kind, observation and source, shared with the run's
    other rows) interned: marshal reads an interned string back interned, so every entry's rows
    hold one copy of each, as a parse shares them (the engine's passes over a store's facts
    compare and hash them: 100k copies of "state" cost each pass a cache miss a fact)."""
    for at in names:
        if type(row[at]) is str:
            row[at] = sys.intern(row[at])


def decode(data: dict[str, Any], path: str) -> JsonResult:
    """The entry's drafts, and its fact rows (a draft without a label, whose derivation no
    store reads otherwise) as their facts' values (records.ordered makes the facts): building a
    draft for each, and then its fact of the draft, was most of a warm load. Either row's names
    come back interned and its aliases and suppressions as tuples (`_intern`). A row is told by
    its length: a fact row is one longer than a draft row."""
    drafts: list[Draft] = []
    rows: list[Item] = []
    named: list[str] = []
    if type(data["drafts"]) is not list:
        raise ValueError("cache entry of another shape")
    if data["drafts"] and data["path"] != path:
        raise ValueError("cache entry of another file")
    for row in data["drafts"]:
        if type(row) is not list:
            raise ValueError("cache entry of another shape")
        if len(row) == _FACT_ROW:  # its fact's values, as kept (names interned): placed as they are
            _FACT_SHAPE.check(row)
            entity = row[_F_ENTITY]
            if row.pop():  # the entity was written
                named.append(entity)
            row[_F_FIDELITY] = _FIDELITIES[row[_F_FIDELITY]]
            row[_F_PATH] = path
            if row[_F_WRITTEN] == 0:
                row[_F_WRITTEN] = entity
            if row[_F_BODY] == 0:
                row[_F_BODY] = row[_F_CLAIM]
            if row[_F_NORM] == 0:
                row[_F_NORM] = row[_F_BODY]
            rows.append(row)
            continue
        _DRAFT_SHAPE.check(row)
        fidelity = row[_FIDELITY] = _FIDELITIES[row[_FIDELITY]]
        row[_PATH] = path
        claim = row[_CLAIM]
        if row[_BODY] == 0:
            row[_BODY] = claim
        row[_DERIVED] = _derived(row, _DERIVED, row[_BODY] or claim, fidelity, row[_ENTITY])
        if row[_SETTLED] is not None:
            row[_SETTLED] = _derived(row, _SETTLED, *as_settled(row[_LABEL], row[_REST], claim))
        draft = Draft(*row)
        drafts.append(draft)
        rows.append(draft)
    digests = data.get("digests")  # an entry without them (None) keys its facts by every field
    if digests is not None and (type(digests) is not list or len(digests) != len(rows) or not all(
            type(d) is str or d is None for d in digests)):
        raise ValueError("cache entry of another shape")
    related = data["related"]
    if type(related) is not list or not all(type(name) is str for name in related):
        raise ValueError("cache entry of another shape")
    return JsonResult(
        drafts=drafts,
        rows=rows,
        named=named,
        digests=digests,
        declarations=[Declaration(*row) for row in _rows(data["declarations"], _DECLARATION)],
        problems=[Problem(*row) for row in _rows(data["problems"], _PROBLEM)],
        related=set(related),
        references=[(line, text) for line, text in _rows(data["references"], _REFERENCE)],
    )


def _rows(rows: Any, types: tuple[type, ...]) -> list[list[Any]]:
    """`rows` when it is a list of lists of exactly these types; ValueError otherwise."""
    if type(rows) is not list or not all(type(row) is list and tuple(map(type, row)) == types for row in rows):
        raise ValueError("cache entry of another shape")
    return rows
