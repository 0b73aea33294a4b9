"""JSON and JSONL memory stores: flexible keys, wrappers, entity maps, memory graphs."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from memory_autopsy import lazyre
from memory_autopsy.dates import find_dates, parse_date
from memory_autopsy.ingest.records import Draft, Item, Record
from memory_autopsy.model import Declaration, Fidelity, Problem

WRAPPERS = ("facts", "memories", "records", "items", "data", "entries", "observations_list", "results")
ENTITY_KEYS = ("entity", "subject", "name")
CLAIM_KEYS = ("claim", "fact", "text", "memory", "content")
SLOT_KEYS = ("slot", "predicate", "attribute")
VALUE_KEYS = ("value", "object")
# The latest write dates a record: `updated_at` before `created_at` (mem0 and most stores).
OBSERVED_KEYS = (
    "observed_at", "date", "observed", "updated_at", "updatedAt", "created_at", "createdAt",
    "timestamp", "_savedAt",
)


@dataclass
class JsonResult:
    """What reading one JSON or JSONL file found: its drafts and what else it declares or breaks."""

    drafts: list[Draft] = field(default_factory=list)
    declarations: list[Declaration] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    related: set[str] = field(default_factory=set)
    references: list[tuple[int, str]] = field(default_factory=list)
    # The drafts and, in their places, the items that need none (`drafts` then holds the drafts
    # alone): read from the parse cache, the rows no store can read otherwise (no `Label: rest`
    # to settle), each its fact's values for records.ordered; read from a JSONL store, its
    # canonical records (records.Record). And the entities the cache's rows name (label
    # settling reads them).
    rows: list[Item] | None = None
    named: list[str] = field(default_factory=list)
    # The labels (entity forms) of the `Label: rest` lines a large markdown file's part settled
    # as it was read, ready rows since (ingest.labels.settle_decided): each counts as a use.
    labels: list[str] = field(default_factory=list)
    # One string object per distinct entity and source of the file's records: a store repeats
    # them record after record and the decoder makes a new copy of each (a 100k-record store
    # peaks at 165 MiB instead of 184)
    strings: dict[str, str] = field(default_factory=dict)
    # With the parse cache: per item, a digest of the fact its row gives (every field but its
    # order; records.row_digest), None for a draft with a label the store settles. Read from the
    # entry, or filled in by the loader once a parsed file's facts are built.
    digests: list[str | None] | None = None

    def items(self) -> Sequence[Item]:
        """Drafts, records and ready rows, in the order the file holds them."""
        return self.drafts if self.rows is None else self.rows


class _LineFinder:
    """Maps records of a whole-file JSON document back to line numbers, in one forward pass:
    lines are counted only over the text between the previous match and the next."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.cursor = 0
        self.line = 1

    def line_of(self, needle: str | None) -> int:
        if needle:
            encoded = json.dumps(needle, ensure_ascii=False)[1:-1][:60]
            pos = self.text.find(encoded, self.cursor)
            if pos >= 0:
                self.line += self.text.count("\n", self.cursor, pos)
                self.cursor = pos + 1
        return self.line


def parse_json_document(document: Any, text: str, path: str, entity_hint: str) -> JsonResult:
    result = JsonResult()
    finder = _LineFinder(text)
    if isinstance(document, str):
        try:
            document = json.loads(document)
        except ValueError:
            document = [document]
        except RecursionError:  # a string holding JSON nested past the parser's depth
            result.problems.append(Problem(path, 1, "JSON nested too deeply"))
            return result
    for item, entity, line in _items(document, entity_hint, finder, result):
        _read_item(item, entity, path, line, result)
    result.declarations = [
        Declaration(d.entity, path, d.line, d.kind, d.written) for d in result.declarations
    ]
    return result


def is_pretty_stream(data: bytes) -> bool:
    """A JSONL file whose first value spans lines: its first non-blank line opens it and no more."""
    for line in data[:4096].split(b"\n"):
        if line.strip():
            return line.strip() in (b"{", b"[", b"[{")
    return False


_GAP = lazyre.compile(r"[\s,]*")  # between two values of a stream: white space, and a comma or not


def parse_json_stream(text: str, path: str, entity_hint: str) -> JsonResult | None:
    """JSON values one after another, each printed over several lines, with commas between them
    or not: a JSONL store written with an indent. Read as the list of its values, or None when the
    text is not such a stream (its lines are then read one by one, as JSONL's are)."""
    decode = json.JSONDecoder().raw_decode
    gap = _GAP.match
    values: list[Any] = []
    end = len(text)
    at = gap(text, 0).end()  # type: ignore[union-attr]
    while at < end:
        try:
            value, at = decode(text, at)
        except (ValueError, RecursionError):
            return None
        values.append(value)
        at = gap(text, at).end()  # type: ignore[union-attr]
    if not values:
        return None
    return parse_json_document(values[0] if len(values) == 1 else values, text, path, entity_hint)


def parse_json_lines(lines: Iterable[Any], path: str, entity_hint: str, first: int = 1,
                     strings: dict[str, str] | None = None) -> JsonResult:
    """Lines of a JSONL store, as str or (read straight from disk) as bytes, with or without
    their line ends; `first` is the number of the first line (a span of a store read on its
    own), `strings` the names and sources read before (a store's other spans). The lines are
    taken CHUNK non-blank lines at a time: an iterator of a large store's lines is never held
    whole."""
    items: list[Item] = []
    result = JsonResult(rows=items) if strings is None else JsonResult(rows=items, strings=strings)
    numbered = enumerate(lines, first)
    pending: list[tuple[int, Any]] = []
    while taken := list(islice(numbered, CHUNK)):
        pending += [(n, line) for n, line in taken if line.strip()]
        del taken
        while len(pending) >= CHUNK:
            _read_chunk(pending[:CHUNK], path, entity_hint, result, items)
            del pending[:CHUNK]
    if pending:
        _read_chunk(pending, path, entity_hint, result, items)
    return result


# Lines decoded per JSON call: one C-level pass per chunk, while parsed dicts stay few.
CHUNK = 20000


def _read_chunk(numbered: list[tuple[int, Any]], path: str, entity_hint: str, result: JsonResult,
                items: list[Item]) -> None:
    """A canonical record goes to `items` (the result's) as it is, a records.Record; any other
    line is read into drafts, which go to `items` in its place."""
    append = items.append
    drafts = result.drafts
    for (number, line), item in zip(numbered, _decode_lines([line for _, line in numbered])):
        if type(item) is dict and len(item) == 12:  # a canonical record, as _read_item reads it
            record = _canonical(item, path, number, result.strings)
            if record is not None:
                append(record)
                continue
        if item is _BROKEN:
            try:
                item = json.loads(line)
            except (ValueError, RecursionError) as error:
                message = getattr(error, "msg", "nested too deeply")
                result.problems.append(Problem(path, number, f"malformed JSON line: {message}"))
                continue
        if isinstance(item, (dict, str)):
            read = len(drafts)
            _read_item(item, entity_hint, path, number, result)
            items += drafts[read:]
        else:
            result.problems.append(Problem(path, number, "a JSON line must be an object or a string"))


_BROKEN = object()


# What the chunk's sentinel (`NaN`, read through parse_constant=tuple) decodes to: no JSON
# value is a tuple, so a line cannot forge one.
_SENTINEL = ("N", "a", "N")


def _decode_lines(lines: list[Any]) -> list[Any]:
    """All lines as one JSON array (one C-level pass), each line's value between two sentinels;
    every line _BROKEN (read again alone, for its message) unless each sentinel stands between
    two values. The array is joined with newlines, which no JSON string holds raw, so no string
    spans two lines; and a chunk whose lines hold a `NaN` or `Infinity` of their own is read line
    by line. A count of values alone let two broken lines that complete each other (`{…}, ["q"`
    then `"r"]`) pass as two records."""
    if not lines:
        return []
    broken = [_BROKEN] * len(lines)
    try:
        if isinstance(lines[0], bytes):
            body = b"\n,NaN\n,".join(lines)
            if body.count(b"NaN") != len(lines) - 1 or b"Infinity" in body:
                return broken
            items = json.loads(b"[" + body + b"]", parse_constant=tuple)
        else:
            text = "\n,NaN\n,".join(lines)
            if text.count("NaN") != len(lines) - 1 or "Infinity" in text:
                return broken
            items = json.loads("[" + text + "]", parse_constant=tuple)
    except (ValueError, RecursionError):
        return broken
    if len(items) != 2 * len(lines) - 1:
        return broken
    sentinels = items[1::2]
    return items[::2] if sentinels.count(_SENTINEL) == len(sentinels) else broken


def _items(
    document: Any, entity_hint: str, finder: _LineFinder, result: JsonResult
) -> Iterator[tuple[Any, str, int]]:
    if isinstance(document, list):
        for item in document:
            yield item, entity_hint, finder.line_of(_needle(item))
        return
    if not isinstance(document, dict):
        return
    if isinstance(document.get("entities"), list) or isinstance(document.get("relations"), list):
        yield from _graph_document(document, entity_hint, finder, result)
        return
    blocks = _memory_blocks(document)
    if blocks:
        for block in blocks:
            yield {"_block": block}, str(block.get("label") or entity_hint), finder.line_of(_needle_of_block(block))
        return
    for key in WRAPPERS:
        if isinstance(document.get(key), list):
            yield from _items(document[key], entity_hint, finder, result)
            return
    if _is_record(document):
        yield document, entity_hint, finder.line_of(_needle(document))
        return
    yield from _entity_map(document, finder, result)


def _graph_document(
    document: dict[str, Any], entity_hint: str, finder: _LineFinder, result: JsonResult
) -> Iterator[tuple[Any, str, int]]:
    """The MCP memory server's one-document shape: `{"entities": [...], "relations": [...]}`."""
    for key in ("entities", "relations"):
        items = document.get(key)
        if not isinstance(items, list):
            continue
        for item in items:
            if isinstance(item, dict):
                yield item, entity_hint, finder.line_of(_text(item.get("name") or item.get("from")) or None)


def _memory_blocks(document: dict[str, Any]) -> list[dict[str, Any]]:
    """A Letta agent file's memory blocks (top-level `blocks`, or each agent's `memory_blocks`)."""
    found: list[dict[str, Any]] = []
    candidates: list[Any] = [document.get("blocks"), document.get("core_memory")]
    agents = document.get("agents")
    if isinstance(agents, list):
        candidates += [a.get("memory_blocks") for a in agents if isinstance(a, dict)]
    for blocks in candidates:
        if isinstance(blocks, list):
            found += [b for b in blocks if isinstance(b, dict) and "label" in b and isinstance(b.get("value"), str)]
    return found


def _needle_of_block(block: dict[str, Any]) -> str:
    value = str(block.get("value") or "")
    return value.strip().splitlines()[0] if value.strip() else str(block.get("label"))


def _entity_map(
    document: dict[str, Any], finder: _LineFinder, result: JsonResult
) -> Iterator[tuple[Any, str, int]]:
    for name, value in document.items():
        line = finder.line_of(name)
        if isinstance(value, list):
            if not value:
                result.declarations.append(Declaration(name, "", line, "map-key", name))
            for item in value:
                yield item, name, finder.line_of(_needle(item))
        elif isinstance(value, dict):
            if not value:
                result.declarations.append(Declaration(name, "", line, "map-key", name))
            if _is_record(value):
                yield value, name, line
                continue
            for slot, slot_value in value.items():
                if isinstance(slot_value, (str, int, float)) and not isinstance(slot_value, bool):
                    yield {"slot": slot, "value": str(slot_value)}, name, finder.line_of(slot)
        elif isinstance(value, str) and value.strip():
            yield value, name, line


def _needle(item: Any) -> str | None:
    if isinstance(item, str):
        return item
    if isinstance(item, dict):
        for key in CLAIM_KEYS + VALUE_KEYS + ENTITY_KEYS:
            if isinstance(item.get(key), str):
                return str(item[key])
    return None


def _is_record(item: dict[str, Any]) -> bool:
    keys = item.keys()
    return any(k in keys for k in CLAIM_KEYS) or (
        any(k in keys for k in SLOT_KEYS) and any(k in keys for k in VALUE_KEYS)
    ) or item.get("type") in ("entity", "relation") or item.get("_type") in ("entity", "relation")


def _first(item: dict[str, Any], keys: Iterable[str]) -> Any:
    for key in keys:
        value = item.get(key)
        if value is not None and value != "":
            return value
    return None


def _text(value: Any) -> str:
    if type(value) is str:
        return value.strip()
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)
    return ""


def _read_item(item: Any, entity: str, path: str, line: int, result: JsonResult) -> None:
    if isinstance(item, str):
        if item.strip():
            result.drafts.append(
                Draft(entity=entity, claim=item.strip(), path=path, line=line,
                      fidelity=Fidelity.RESIDUAL, shape="json")
            )
        return
    if not isinstance(item, dict):
        return
    if "_block" in item and len(item) == 1:
        _memory_block(item["_block"], entity, path, line, result)
        return
    kind = item.get("type") or item.get("_type")
    if kind == "relation" or (kind is None and "relationType" in item and "from" in item):
        _relation(item, _text(item.get("from")), path, line, result)
        return
    if (kind == "entity" or kind is None) and isinstance(item.get("observations"), list) and "name" in item:
        _graph_node(item, path, line, result)
        return
    if kind in (None, "entity", "observation") and "entityName" in item and "name" not in item:
        # one observation call per line, as the MCP memory server's add_observations takes it:
        # `{"entityName": …, "contents": […]}`, or one `observation` with its own date
        said = item.get("contents", item.get("observation"))
        if isinstance(said, (str, list)):
            _graph_node({**item, "name": item["entityName"], "observations": [said] if isinstance(said, str) else said},
                        path, line, result)
            return
    draft = _record(item, entity, path, line, result.strings)
    if draft is not None:
        result.drafts.append(draft)
    elif kind not in ("entity", "relation", "observation"):  # a graph's item that names no node says nothing
        _prose_fields(item, entity, path, line, result)


# Short fields that name what a record is about, in the order tried.
_SUBJECT_KEYS = ("section", "category", "topic", "area", "component", "module", "feature", "title", "project")
_STATUS_KEYS = ("status", "state")
# A record of a shape no store names (`{"section": …, "entry": …}`, `{"labels": […],
# "properties": {"description": …, "status": …}}`): its prose is what it claims. A field is
# prose when it holds a sentence (four words or more) and is none of those that name the
# record, give its subject or status, date it or say where it comes from.
_NOT_PROSE = frozenset({*OBSERVED_KEYS, *ENTITY_KEYS, *_SUBJECT_KEYS, *_STATUS_KEYS, "id", "source", "url", "uri",
                        "link", "path", "file", "ts", "schema", "type", "kind"})
_PROSE_WORDS = 4
_SUBJECT_WORDS = 8


def _prose_fields(item: dict[str, Any], entity: str, path: str, line: int, result: JsonResult) -> None:
    """Each prose field of a record (and of a record it holds) as a fact of the record's
    subject, all at the record's place (one item, as a table row's cells are); a status field
    ("status": "Completed") is the status of the first, what the record is ("description": …)."""
    fields = [item, *(value for value in item.values() if isinstance(value, dict))]
    named = _text(_first(item, ENTITY_KEYS)) or next(
        (text for record in fields for key in _SUBJECT_KEYS
         if 0 < len(text := _text(record.get(key))) and len(text.split()) <= _SUBJECT_WORDS), "")
    status = next((text for record in fields for key in _STATUS_KEYS
                   if 0 < len(text := _text(record.get(key))) and len(text.split()) <= 3), "")
    stamp = next((date for record in fields if (date := parse_date(_first(record, OBSERVED_KEYS)))), None)
    said = [text for record in fields for key, value in record.items() if key not in _NOT_PROSE
            for text in (_strings(value) if isinstance(value, list) else (_text(value),))
            if len(text.split()) >= _PROSE_WORDS and not text.startswith(("http://", "https://"))]
    if status:  # read as a table's status cell; imported here, as only such a record needs it
        from memory_autopsy.ingest.reading import cell_status
        from memory_autopsy.lexicon import default_lexicon

        status = cell_status(status, default_lexicon())
    for index, text in enumerate(said):
        told = status if not index else ""
        result.drafts.append(
            Draft(entity=named or entity, claim=text, path=path, line=line,
                  fidelity=Fidelity.PARTIAL if named else Fidelity.RESIDUAL, observed_at=stamp, shape="json",
                  named=bool(named), suppress=_ignored(item), kind="task" if told else "state", status=told)
        )


def _graph_node(item: dict[str, Any], path: str, line: int, result: JsonResult) -> None:
    """Every observation of a graph node is its own fact, located by `line` and its index. The
    node is one record: its ignore covers its observations and the relations it holds, and an
    observation written as an object may carry its own."""
    name = _text(item.get("name"))
    observations = item.get("observations")
    if not name or not isinstance(observations, list):
        return
    nested = item.get("relations")
    if not observations and not nested:
        result.declarations.append(Declaration(name, path, line, "graph-node", name))
    named_dates = find_dates(name)  # "Fix_Task_2025-11-10": the node's name dates it
    node_date = parse_date(_first(item, OBSERVED_KEYS)) or (named_dates[0] if named_dates else None)
    ignored = _ignored(item)
    for index, observation in enumerate(observations):
        suppress = ignored
        if isinstance(observation, dict):
            text = _text(_first(observation, CLAIM_KEYS))
            stamp = parse_date(_first(observation, OBSERVED_KEYS))
            suppress += _ignored(observation)
        else:
            text, stamp = _text(observation), None
        if not text:
            continue
        if stamp is None:
            written = find_dates(text[:2000])
            stamp = written[0] if written else node_date
        result.drafts.append(
            Draft(entity=name, claim=text, path=path, line=line, fidelity=Fidelity.PARTIAL,
                  observed_at=stamp, shape="graph", obs=index, named=True, suppress=suppress)
        )
    if isinstance(nested, list):  # relations kept inside the node: `{relationType, to}`
        for relation in nested:
            if isinstance(relation, dict):
                _relation(relation, name, path, line, result, ignored)


def _relation(item: dict[str, Any], source: str, path: str, line: int, result: JsonResult,
              ignored: tuple[str, ...] = ()) -> None:
    """`{from, to, relationType}` is a fact about `from` ("billing uses ledger-db"); `ignored`:
    what the node holding it ignores."""
    target, verb = _text(item.get("to")), _text(item.get("relationType") or item.get("type"))
    for name in (source, target):
        if name:
            result.related.add(name)
    if not (source and target and verb):
        return
    result.drafts.append(
        Draft(entity=source, claim=f"{source} {verb.replace('_', ' ')} {target}", path=path,
              line=line, fidelity=Fidelity.PARTIAL, body=f"{verb.replace('_', ' ')} {target}",
              observed_at=parse_date(_first(item, OBSERVED_KEYS)), shape="relation", named=True,
              suppress=ignored + _ignored(item))
    )


def _memory_block(block: dict[str, Any], label: str, path: str, line: int, result: JsonResult) -> None:
    """A Letta memory block: its value is read as markdown, every fact at the block's line,
    numbered by its line inside the block."""
    from memory_autopsy.ingest.markdown import parse_markdown

    parsed = parse_markdown(str(block["value"]), path, label)
    for draft in parsed.drafts:
        draft.obs, draft.line, draft.end_line = draft.line - 1, line, 0
        draft.shape = "json"
        result.drafts.append(draft)


_CANONICAL = frozenset(
    "id entity slot value claim observed_at valid_from valid_to source source_class fidelity status_verb".split()
)


def _canonical(item: dict[str, Any], path: str, line: int, strings: dict[str, str]) -> Record | None:
    """The 12-field record of a canonical store, read without the flexible-key search; its
    entity and source are the first copy `strings` holds."""
    if len(item) != 12 or not _CANONICAL.issuperset(item):
        return None
    entity, claim, slot, value, given = item["entity"], item["claim"], item["slot"], item["value"], item["id"]
    observed = item["observed_at"]
    if not (type(entity) is str and type(claim) is str and type(given) is str and given
            and type(slot) is str and type(value) is str and (observed is None or type(observed) is str)):
        return None
    valid_from, valid_to, verb = item["valid_from"], item["valid_to"], item["status_verb"]
    for optional in (valid_from, valid_to, verb, item["source"], item["source_class"]):
        if optional is not None and type(optional) is not str:
            return None
    claim, slot, value = claim.strip(), slot.strip(), value.strip()
    entity = strings.setdefault(entity := entity.strip(), entity)
    if not claim or not entity:
        return None
    source = item["source"]
    if source:
        source = strings.setdefault(source, source)
    full = bool(slot and value)
    fidelity = Fidelity.FULL if full else Fidelity.PARTIAL
    slot, value = (slot, value) if full else ("", "")
    observed_at = parse_date(observed) if observed else None
    valid_from = parse_date(valid_from) if valid_from else None
    valid_to = parse_date(valid_to) if valid_to else None
    status_verb = verb.strip() if verb else ""
    # In Record's field order, each value named as its field (by keyword, a record cost twice
    # as long to build: 1.2-1.5 µs against 0.5-0.7): the claim is its body, it has no aliases.
    return Record(entity, claim, path, line, fidelity, slot, value, claim, observed_at, valid_from, valid_to,
                  source or None, item["source_class"], status_verb, (), given)


def _record(item: dict[str, Any], entity: str, path: str, line: int, strings: dict[str, str]) -> Draft | None:
    fast = _canonical(item, path, line, strings)
    if fast is not None:
        return Draft(*fast)  # a record's fields are a draft's first ones, in order
    get = item.get  # or-chains: this runs once per record of a million-line store
    slot = _text(get("slot") or get("predicate") or get("attribute"))
    value = _text(get("value") or get("object"))
    claim = _text(get("claim") or get("fact") or get("text") or get("memory") or get("content"))
    named = _text(get("entity") or get("subject") or get("name"))
    if not claim and slot and value:
        claim = f'{named or entity}: {slot} = "{value}"'
    if not claim:
        return None
    full = bool(slot and value)
    fidelity = Fidelity.FULL if full else (Fidelity.PARTIAL if named else Fidelity.RESIDUAL)
    observed = _first(item, OBSERVED_KEYS)
    valid_from = get("valid_from") or get("valid_at")
    valid_to = get("valid_to") or get("invalid_at")
    given = get("id")
    return Draft(
        entity=named or entity, claim=claim, path=path, line=line, fidelity=fidelity,
        slot=slot if full else "", value=value if full else "", body=claim,
        observed_at=parse_date(observed) if observed else None,
        valid_from=parse_date(valid_from) if valid_from else None,
        valid_to=parse_date(valid_to) if valid_to else None,
        source=_text(get("source")) or None,
        source_class=_text(get("source_class")) or None,
        status_verb=(_text(get("status_verb")) if "status_verb" in item else None),
        aliases=_strings(get("aliases")),
        given_id=str(given) if isinstance(given, (str, int)) and str(given) else None,
        shape="json",
        suppress=_ignored(item),
    )


def _ignored(item: dict[str, Any]) -> tuple[str, ...]:
    """The rules a record's own ignore names: it covers that record's facts alone
    (engine.suppressions matches it by record, not by line)."""
    get = item.get
    return _strings(get("memory-autopsy-ignore") or get("memory_autopsy_ignore"))


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        return (value,)
    if isinstance(value, list):
        return tuple(v for v in value if isinstance(v, str))
    return ()
