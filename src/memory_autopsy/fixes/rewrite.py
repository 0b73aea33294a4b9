"""Rewriting one memory file's text for a fix plan, keeping everything else byte for byte.

Markdown and JSONL are edited line by line: only the lines a fix names change, each keeps its
own line ending, and the file keeps its encoding, BOM and (absent) final newline. A whole-file
JSON document is edited as data and re-serialized in its own layout (`jsondoc`).
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory_autopsy.fixes import jsondoc
from memory_autopsy.fixes.plan import Fix
from memory_autopsy.model import Fact

_PREFIX = re.compile(r"^(\s*(?:(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?)?)")
_TRAILING_COMMENT = re.compile(r"\s*<!--.*?-->\s*$")
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))


@dataclass(frozen=True, slots=True)
class Encoding:
    bom: bytes
    codec: str


@dataclass(frozen=True, slots=True)
class Rewritten:
    data: bytes
    applied: tuple[Fix, ...]
    skipped: tuple[tuple[Fix, str], ...]


def sniff(data: bytes) -> Encoding:
    for bom, codec in _BOMS:
        if data.startswith(bom):
            return Encoding(bom, codec)
    return Encoding(b"", "utf-8")


def rewrite(path: str, data: bytes, fixes: Sequence[Fix], fresh: Sequence[Fact]) -> Rewritten:
    """The new bytes for `path` with `fixes` applied; `fresh` are the file's facts, in order."""
    encoding = sniff(data)
    text = data[len(encoding.bom):].decode(encoding.codec)
    kind = kind_of(path, text, fresh)
    if kind == "json":
        positions = {id(fix): position(fix, fresh) for fix in fixes}
        new_text, applied, skipped = jsondoc.rewrite(text, path, fixes, positions)
    else:
        new_text, applied, skipped = _rewrite_lines(text, fixes, kind)
    return Rewritten(encoding.bom + new_text.encode(encoding.codec), tuple(applied), tuple(skipped))


def kind_of(path: str, text: str, fresh: Sequence[Fact]) -> str:
    """markdown, jsonl or json: read off what the loader made of the file."""
    suffix = Path(path).suffix.lower()
    if suffix in (".md", ".markdown"):
        return "markdown"
    if suffix == ".jsonl":
        return "jsonl"
    try:
        json.loads(text)
    except (ValueError, RecursionError):
        return "markdown" if any(f.shape == "markdown" for f in fresh) else "jsonl"
    return "json"


def position(fix: Fix, fresh: Sequence[Fact]) -> int:
    for index, fact in enumerate(fresh):
        if fact.line == fix.fact.line and fact.claim == fix.fact.claim:
            return index
    return -1


def split_lines(text: str) -> list[tuple[str, str]]:
    """(content, line ending) pairs, split exactly where the parsers split (str.splitlines)."""
    pairs = []
    for raw in text.splitlines(keepends=True):
        parts = raw.splitlines()
        content = parts[0] if parts else ""
        pairs.append((content, raw[len(content):]))
    return pairs


def _rewrite_lines(text: str, fixes: Sequence[Fix], kind: str) -> tuple[str, list[Fix], list[tuple[Fix, str]]]:
    lines = split_lines(text)
    changes: dict[int, str | None] = {}
    applied: list[Fix] = []
    skipped: list[tuple[Fix, str]] = []
    for fix in fixes:
        index = fix.fact.line - 1
        if not 0 <= index < len(lines):
            skipped.append((fix, "line is out of range"))
            continue
        if fix.action == "delete":
            changes[index] = None
        else:
            edited = _supersede_line(lines[index][0], fix, kind)
            if edited is None:
                skipped.append((fix, "the line is not a JSON object or string"))
                continue
            changes[index] = edited
        applied.append(fix)
    kept = [(changes.get(i, content), end) for i, (content, end) in enumerate(lines) if changes.get(i, "") is not None]
    if kept and lines and not lines[-1][1]:
        kept[-1] = (kept[-1][0], "")
    return "".join(str(content) + end for content, end in kept), applied, skipped


def _supersede_line(content: str, fix: Fix, kind: str) -> str | None:
    if kind == "jsonl":
        return jsonl_line(content, fix.valid_to or "")
    prefix = _PREFIX.match(content)
    comment = _TRAILING_COMMENT.search(content)
    return (prefix[1] if prefix else "") + (fix.new_line or "") + (comment.group(0) if comment else "")


def jsonl_line(content: str, valid_to: str) -> str | None:
    """The same record with its validity end stamped; only this line is re-serialized."""
    try:
        item: Any = json.loads(content)
    except ValueError:
        return None
    if isinstance(item, str):
        item = {"claim": item}
    if not isinstance(item, dict):
        return None
    item[jsondoc.valid_to_key(item)] = valid_to
    indent = content[: len(content) - len(content.lstrip())]
    compact = '":' in content and '": ' not in content
    separators = (",", ":") if compact else (", ", ": ")
    return indent + json.dumps(item, ensure_ascii=jsondoc.wants_ascii(content), separators=separators)
