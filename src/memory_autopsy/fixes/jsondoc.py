"""Fixes inside a whole-file JSON document: stamp `valid_to` on an item, or remove a duplicate.

Items are located by walking the document exactly as the reader does (`json_store`), so the
n-th fact of the file is the n-th item that produced one. The document is then re-serialized
with its own indent, line endings, final newline and, when records were written one per line,
with leaf objects kept on one line.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memory_autopsy import lazyre
from memory_autopsy.fixes.fix import Fix
from memory_autopsy.ingest.json_store import WRAPPERS, JsonResult, _is_record, _read_item

_INLINE_RECORD = lazyre.compile(r'^[ \t]*\{[^\n]*"\s*:[^\n]*\}[ \t]*,?[ \t]*\r?$', re.MULTILINE)
_INDENT = lazyre.compile(r"\n([ \t]+)\S")


@dataclass(frozen=True, slots=True)
class Slot:
    """Where an item lives: container[key] (container None for a top-level record)."""

    container: Any
    key: Any
    item: Any
    kind: str = "record"  # record | synthetic (a `slot: value` map entry) | graph (an observation)


def valid_to_key(item: Mapping[str, Any]) -> str:
    return "invalid_at" if "invalid_at" in item and "valid_to" not in item else "valid_to"


def wants_ascii(text: str) -> bool:
    return "\\u" in text and all(ord(c) < 128 for c in text)


def rewrite(
    text: str, path: str, fixes: Sequence[Fix], positions: Mapping[int, int]
) -> tuple[str, list[Fix], list[tuple[Fix, str]]]:
    document = json.loads(text)
    slots = list(_fact_slots(document))
    applied: list[Fix] = []
    skipped: list[tuple[Fix, str]] = []
    removals: list[Slot] = []
    for fix in fixes:
        index = positions.get(id(fix), -1)
        slot = slots[index] if 0 <= index < len(slots) else None
        if slot is None:
            skipped.append((fix, "could not locate the item in the JSON document"))
            continue
        problem = _edit(slot, fix, removals)
        if problem:
            skipped.append((fix, problem))
        else:
            applied.append(fix)
    _remove(removals)
    return dump_like(document, text), applied, skipped


def _edit(slot: Slot, fix: Fix, removals: list[Slot]) -> str | None:
    if slot.kind == "graph":
        return "memory-graph observations are not rewritten automatically; edit it by hand"
    if fix.action == "delete":
        if slot.container is None:
            return "the item is the whole document"
        removals.append(slot)
        return None
    if slot.kind == "synthetic":
        return "a `slot: value` map entry cannot carry valid_to; edit it by hand"
    if isinstance(slot.item, dict):
        slot.item[valid_to_key(slot.item)] = fix.valid_to
        return None
    if isinstance(slot.item, str) and slot.container is not None:
        slot.container[slot.key] = {"claim": slot.item, "valid_to": fix.valid_to}
        return None
    return "this item shape cannot carry valid_to"


def _remove(removals: list[Slot]) -> None:
    """Each container once: a list is rebuilt without its removed places (deleted one by one,
    each deletion moved every item after it), a mapping loses its removed keys."""
    by_container: dict[int, tuple[Any, set[Any]]] = {}
    for slot in removals:
        by_container.setdefault(id(slot.container), (slot.container, set()))[1].add(slot.key)
    for container, keys in by_container.values():
        if isinstance(container, list):
            container[:] = [item for index, item in enumerate(container) if index not in keys]
        else:
            for key in keys:
                del container[key]


def _fact_slots(document: Any) -> Iterator[Slot]:
    """One entry per fact the reader draws from the document, in the reader's order."""
    for slot in _items(document):
        result = JsonResult()
        _read_item(slot.item, "entity", "", 0, result)
        if _is_graph_node(slot.item):
            yield from (Slot(None, None, slot.item, "graph") for _ in result.drafts)
        elif result.drafts:
            yield slot


def _is_graph_node(item: Any) -> bool:
    return isinstance(item, dict) and (item.get("type") or item.get("_type")) == "entity" and "observations" in item


def _items(document: Any) -> Iterator[Slot]:
    """Mirror of `json_store._items`, with the container of each item."""
    if isinstance(document, str):
        return
    if isinstance(document, list):
        yield from (Slot(document, i, item) for i, item in enumerate(document))
        return
    if not isinstance(document, dict):
        return
    for key in WRAPPERS:
        if isinstance(document.get(key), list):
            yield from _items(document[key])
            return
    if _is_record(document):
        yield Slot(None, None, document)
        return
    yield from _entity_map(document)


def _entity_map(document: dict[str, Any]) -> Iterator[Slot]:
    for name, value in document.items():
        if isinstance(value, list):
            yield from (Slot(value, i, item) for i, item in enumerate(value))
        elif isinstance(value, dict):
            if _is_record(value):
                yield Slot(document, name, value)
                continue
            for slot, slot_value in value.items():
                if isinstance(slot_value, (str, int, float)) and not isinstance(slot_value, bool):
                    yield Slot(value, slot, {"slot": slot, "value": str(slot_value)}, "synthetic")
        elif isinstance(value, str) and value.strip():
            yield Slot(document, name, value)


def dump_like(document: Any, original: str) -> str:
    """Serialize `document` in the layout of `original`."""
    ascii_only = wants_ascii(original)
    match = _INDENT.search(original)
    if match is None:
        compact = '":' in original and '": ' not in original
        text = json.dumps(document, ensure_ascii=ascii_only, separators=(",", ":") if compact else (", ", ": "))
    else:
        inline = bool(_INLINE_RECORD.search(original))
        text = _dump(document, match[1], 0, inline, ascii_only)
    newline = "\r\n" if "\r\n" in original else "\n"
    text = text.replace("\n", newline)
    tail = original[len(original.rstrip()):]
    return text + tail


def _is_leaf(value: dict[str, Any] | list[Any]) -> bool:
    """A record of scalars (and lists of scalars): written on one line in the inline style."""
    children = list(value.values() if isinstance(value, dict) else value)
    if any(isinstance(c, dict) and c for c in children):
        return False
    return all(not isinstance(c, list) or not any(isinstance(x, (dict, list)) for x in c) for c in children)


def _dump(value: Any, indent: str, level: int, inline: bool, ascii_only: bool) -> str:
    if not isinstance(value, (dict, list)) or not value:
        return json.dumps(value, ensure_ascii=ascii_only)
    if inline and level > 0 and _is_leaf(value):
        return json.dumps(value, ensure_ascii=ascii_only)
    pad, close = indent * (level + 1), indent * level
    if isinstance(value, dict):
        parts = [f"{pad}{json.dumps(k, ensure_ascii=ascii_only)}: {_dump(v, indent, level + 1, inline, ascii_only)}"
                 for k, v in value.items()]
        return "{\n" + ",\n".join(parts) + "\n" + close + "}"
    parts = [pad + _dump(v, indent, level + 1, inline, ascii_only) for v in value]
    return "[\n" + ",\n".join(parts) + "\n" + close + "]"
