"""Building canonical facts from parsed pieces."""

from __future__ import annotations

import hashlib
import marshal
from collections import deque
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, fields
from itertools import count, repeat
from operator import attrgetter
from typing import Any, NamedTuple

from memory_autopsy.claims import anchor_slot, status_verb
from memory_autopsy.cues import cues, retraction_cue
from memory_autopsy.engine.context import strip_entity
from memory_autopsy.lexicon import Lexicon, default_lexicon
from memory_autopsy.model import Fact, Fidelity
from memory_autopsy.normalize import content_id, entity_form, normalize_claim
from memory_autopsy.vocabulary import Vocabulary

SOURCE_CLASSES = ("primary", "secondary", "unclassified")


class Derived(NamedTuple):
    """What `finish` computes of a draft before freezing it (the parse cache keeps it, so a warm
    run skips the work). Body, fidelity and entity say what it was derived from: the store-wide
    label settling may still change them, and then the draft is derived again."""

    body: str
    fidelity: Fidelity
    entity: str
    slot: str
    value: str
    qualifier: str
    verb: str  # the status verb, "" for none
    id: str
    stripped: str  # the claim without its `entity:` prefix
    norm: str  # that, normalized
    cues: int  # the claim's cues (cues.cues)


@dataclass(slots=True)
class Draft:
    """A fact before identity is settled; mutable while a parser fills it in."""

    entity: str
    claim: str
    path: str
    line: int
    fidelity: Fidelity
    slot: str = ""
    value: str = ""
    body: str = ""
    observed_at: str | None = None
    valid_from: str | None = None
    valid_to: str | None = None
    source: str | None = None
    source_class: str | None = None
    status_verb: str | None = None
    aliases: tuple[str, ...] = ()
    given_id: str | None = None
    shape: str = "markdown"
    suppress: tuple[str, ...] = ()
    kind: str = "state"
    status: str = ""
    entry: str = ""
    obs: int = -1
    end_line: int = 0
    label: str = ""  # a `Label: text` prefix that may name the entity (settled store-wide)
    label_rest: str = ""
    annotated: bool = False  # the line carries its own date or source
    named: bool = False  # the entity was written (heading, front matter, record), not inferred
    # What `derive` found for this draft (kept by the parse cache, so a warm run skips it), and
    # for a `Label: rest` line what it found once the label was settled as the entity (the parse
    # cache keeps whichever the store read).
    derived: Derived | None = None
    settled: Derived | None = None


_CLASSES = {name: name for name in SOURCE_CLASSES}


def source_class_of(value: object) -> str:
    if type(value) is str and value in _CLASSES:
        return _CLASSES[value]
    text = str(value).strip().lower() if value is not None else ""
    return text if text in SOURCE_CLASSES else "unclassified"


class Record(NamedTuple):
    """A record of a canonical store as read whole (json_store's fast path): a draft's fields up
    to its end line, in Draft's order, as `freeze` reads them. Nothing a store-wide step reads or
    changes is in it (no `Label: rest` to settle, no alias, no status, no entity written by a
    heading), so its fact is made without a draft (`finish`): building a draft of each record,
    and then a row of the draft, was 6% of the instructions of a scan of a JSONL store."""

    entity: str
    claim: str
    path: str
    line: int
    fidelity: Fidelity
    slot: str
    value: str
    body: str
    observed_at: str | None
    valid_from: str | None
    valid_to: str | None
    source: str | None
    source_class: str | None
    status_verb: str
    aliases: tuple[str, ...] = ()
    given_id: str | None = None
    shape: str = "json"
    suppress: tuple[str, ...] = ()
    kind: str = "state"
    status: str = ""
    entry: str = ""
    obs: int = -1
    end_line: int = 0


# What a file's reading gives, in the file's order: a draft, a record read whole, or (from the
# parse cache) a fact's values ready for `ordered`.
Item = Draft | Record | list[Any]
# What `derivation` finds: Derived's fields from the slot on (slot, value, qualifier, status
# verb, id, the claim without its entity, that normalized, its cues).
Derivation = tuple[str, str, str, str, str, str, str, int]


def derive(draft: Draft, vocabulary: Vocabulary, lexicon: Lexicon) -> Derived:
    """The prose slot, status verb, id and normalized body of the draft as it reads now."""
    # Built as Fact is (`ordered`): NamedTuple's own __new__ binds each field by name.
    return _new_tuple(Derived, (draft.body or draft.claim, draft.fidelity, draft.entity,
                                *derivation(draft, vocabulary, lexicon)))


def derivation(draft: Draft | Record, vocabulary: Vocabulary, lexicon: Lexicon) -> Derivation:
    """What `derive` finds of a draft or a record, from its slot on (as `freeze` reads it)."""
    body = draft.body or draft.claim
    slot, value, qualifier = draft.slot, draft.value, ""
    # A guideline ("Use uv") or a task asserts nothing about now; an event can state the new value.
    if not slot and draft.fidelity is not Fidelity.FULL and draft.shape != "relation" and draft.kind in ("state", "event"):
        proven = anchor_slot(body, vocabulary)
        if proven is not None:
            slot, value, qualifier = proven
    # A record that states its status verb (even as null) is trusted; "" means none.
    verb = draft.status_verb if draft.status_verb is not None else status_verb(body, vocabulary)
    fact_id = draft.given_id or content_id(
        (
            entity_form(draft.entity),
            slot,
            normalize_claim(value),
            normalize_claim(draft.claim),
            draft.observed_at,
            draft.valid_from,
            draft.valid_to,
            draft.source,
        )
    )
    stripped = strip_entity(draft.claim, (draft.entity,))
    norm = normalize_claim(stripped)
    cued = cues(draft.claim, norm, lexicon)
    if draft.fidelity is not Fidelity.FULL:  # the transition layer reads prose only
        cued |= retraction_cue(stripped, vocabulary)
    return slot, value, qualifier, verb or "", fact_id, stripped, norm, cued


def settle(draft: Draft) -> None:
    """Read a `Label: rest` line's label as its entity (what the store-wide settling decides)."""
    draft.entity, draft.body, draft.named = draft.label, draft.label_rest, True
    draft.fidelity = Fidelity.PARTIAL


def as_settled(label: str, label_rest: str, claim: str) -> tuple[str, Fidelity, str]:
    """(body, fidelity, entity) that `derive` reads off a line `settle` settled: what a
    derivation of the settled line says it was derived from."""
    return label_rest or claim, Fidelity.PARTIAL, label


def fits(derived: Derived, draft: Draft) -> bool:
    """Whether `derived` was derived from what the draft says now."""
    return (derived.fidelity is draft.fidelity and derived.entity == draft.entity
            and derived.body == (draft.body or draft.claim))


def finish(draft: Draft | Record, vocabulary: Vocabulary, order: int, keep: bool = False,
           lexicon: Lexicon | None = None) -> Fact:
    """Fill derived fields (prose slot, status verb, id) and freeze. `keep`: leave what was
    derived on the draft, for a parse cache entry written after the run (a run without the
    cache lets it go: a million drafts would hold a million of them at once). A record is
    derived as a draft of its fields is, and made its fact at once."""
    if isinstance(draft, Record):
        return ordered(record_values(draft, vocabulary, lexicon or default_lexicon()), order)
    derived = _derived_before(draft)
    if derived is None:
        if not keep:  # nothing keeps what was derived: its values go to the fact as they are
            return freeze(_FIELDS(draft), derivation(draft, vocabulary, lexicon or default_lexicon()), order)
        derived = draft.derived = derive(draft, vocabulary, lexicon or default_lexicon())
    return freeze(_FIELDS(draft), derived[3:], order)


def record_values(record: Record, vocabulary: Vocabulary, lexicon: Lexicon) -> list[Any]:
    """The values of a record's fact, its order left to `ordered` (a ready row)."""
    return values_of(record, derivation(record, vocabulary, lexicon), record.path)


def draft_values(draft: Draft, vocabulary: Vocabulary, lexicon: Lexicon) -> list[Any]:
    """The values of a draft's fact as `finish` makes it (a draft nothing in the store can
    change any more), its order left to `ordered` (a ready row)."""
    return values_of(_FIELDS(draft), derivation(draft, vocabulary, lexicon), draft.path)


def _derived_before(draft: Draft) -> Derived | None:
    """What was derived of the draft as it reads now (by the parse cache, or when its label was
    settled), if anything was."""
    derived, settled = draft.derived, draft.settled
    if derived is not None and fits(derived, draft):
        return derived
    if settled is not None and fits(settled, draft):
        return settled
    return None


def sent(item: Item, vocabulary: Vocabulary, lexicon: Lexicon) -> tuple[Any, ...] | None:
    """What a child deriving part of a store sends back of an item (memory_autopsy.parallel):
    its derivation, each value the item holds already written 0 as `values_of` reads it (a
    third of the bytes); None for an item `finish` derives nothing of (a row, a draft derived
    before)."""
    if isinstance(item, list) or not isinstance(item, Record) and _derived_before(item) is not None:
        return None
    slot, value, qualifier, verb, fact_id, stripped, norm, cued = derivation(item, vocabulary, lexicon)
    return (0 if slot == item.slot else slot, 0 if value == item.value else value, qualifier, verb, fact_id,
            0 if stripped == item.claim else stripped, 0 if norm == stripped else norm, cued)


def finish_sent(item: Item, derived: Sequence[Any] | None, vocabulary: Vocabulary, order: int,
                lexicon: Lexicon) -> Fact:
    """The fact of an item and what a child sent of it (`sent`)."""
    if derived is None:
        return ordered(item, order) if isinstance(item, list) else finish(item, vocabulary, order, False, lexicon)
    row = item if isinstance(item, Record) else _FIELDS(item)
    return freeze(row, derived, order)


def freeze(row: Sequence[Any], derived: Sequence[Any], order: int) -> Fact:
    """The fact of a draft's fields (`row`, in Draft's field order) and of what was derived of
    it (Derived from its slot on)."""
    return ordered(values_of(row, derived, row[_PATH_AT]), order)


def values_of(row: Sequence[Any], derived: Sequence[Any], path: str) -> list[Any]:
    """A fact's values in `FACT_FIELDS` order, its order left to `ordered`, of a draft's fields
    and its derivation as `freeze` reads them. A derived value written 0 is the same as the one
    it repeats (a derived slot, value or id as written, a norm as the stripped claim, a stripped
    claim as the claim): the parse cache hands over a row it read this way, so a draft whose
    derivation nothing in the store can change is never built."""
    (entity, claim, _, line, fidelity, written_slot, written_value, _, observed_at, valid_from, valid_to, source,
     source_class, _, aliases, given_id, shape, suppress, kind, status, entry, obs, end_line, *_) = row
    slot, value, qualifier, verb, fact_id, stripped, norm, cued = derived
    if stripped == 0:
        stripped = claim
    return [
        given_id if fact_id == 0 else fact_id, entity, written_slot if slot == 0 else slot,
        written_value if value == 0 else value, claim, observed_at, valid_from, valid_to, source,
        source_class_of(source_class), fidelity, verb or None, path, line, aliases, entity, shape,
        given_id is not None, suppress, 0, qualifier, stripped, kind, status, entry, obs,
        end_line if end_line > line else 0, stripped if norm == 0 else norm, cued,
    ]


def row_digest(fact: Fact) -> str:
    """A fact's every field but its order (its place in one store), as a short stable digest:
    what the engine's memo keys a fact a parse-cache row gives by, with its order. The fields
    are written by marshal's version 2, in C: a pure function of their values (no references
    between objects and no interned strings, which later versions mark), where `repr` took
    ~4 µs a fact; a value marshal cannot write (a str subclass) is written by `repr`."""
    values = fact[:_FIDELITY_AT] + (fact.fidelity.value,) + fact[_FIDELITY_AT + 1 : _ORDER_AT] + fact[_ORDER_AT + 1 :]
    try:
        data = marshal.dumps(values, 2)
    except ValueError:
        data = b"repr\0" + tuple.__repr__(values).encode("utf-8", "surrogatepass")
    return hashlib.blake2b(data, digest_size=12).hexdigest()


def ordered(values: list[Any], order: int) -> Fact:
    """The fact of its values in `FACT_FIELDS` order (`values_of`), its order placed."""
    values[_ORDER_AT] = order
    if _POSITIONAL:  # a million facts: a tuple built in place, not 29 keyword arguments
        return _new_tuple(Fact, values)
    named: dict[str, Any] = dict(zip(FACT_FIELDS, values))
    return Fact(**named)


def ordered_run(values: list[list[Any]], first: int) -> Iterator[Fact]:
    """`ordered` of each values list, the first placed at order `first`, in C: a warm store's
    facts are made a span of cached rows at a time (a Python call each was 40 ms at 100k)."""
    if not _POSITIONAL:
        return map(ordered, values, count(first))
    deque(map(list.__setitem__, values, repeat(_ORDER_AT), count(first)), maxlen=0)
    return map(_new_tuple, repeat(Fact), values)


# The order `finish` lists a fact's fields in; should Fact ever change, keywords take over.
FACT_FIELDS = (
    "id", "entity", "slot", "value", "claim", "observed_at", "valid_from", "valid_to", "source",
    "source_class", "fidelity", "status_verb", "path", "line", "aliases", "written_entity", "shape",
    "id_given", "suppress", "order", "qualifier", "body", "kind", "status", "entry", "obs", "end_line",
    "norm", "cues",
)
_POSITIONAL = Fact._fields == FACT_FIELDS
_ORDER_AT = FACT_FIELDS.index("order")
_FIDELITY_AT = FACT_FIELDS.index("fidelity")
DRAFT_FIELDS = tuple(f.name for f in fields(Draft))  # a draft's positional order (the parse cache's rows)
_FIELDS = attrgetter(*DRAFT_FIELDS[: DRAFT_FIELDS.index("end_line") + 1])  # what `freeze` reads of a draft
_PATH_AT = DRAFT_FIELDS.index("path")
draft_row = attrgetter(*DRAFT_FIELDS)  # a draft's every field: Draft(*row) is the draft again
_new_tuple = tuple.__new__
