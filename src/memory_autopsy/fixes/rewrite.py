"""Rewriting one memory file's text for a fix plan, keeping everything else byte for byte.

Markdown and JSONL are edited line by line (`lines`): only the lines of the items a fix names
change, and the file keeps its encoding, BOM and (absent) final newline. A whole-file
JSON document is edited as data and re-serialized in its own layout (`jsondoc`).
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from memory_autopsy.fixes import jsondoc
from memory_autopsy.fixes.fix import Fix
from memory_autopsy.fixes.lines import Edit, Line, edit_for, overlaps, splice, split_lines
from memory_autopsy.model import Fact

_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))


@dataclass(frozen=True, slots=True)
class Encoding:
    """A file's byte-order mark and codec, kept as found when it is rewritten."""

    bom: bytes
    codec: str


@dataclass(frozen=True, slots=True)
class Rewritten:
    """A file's new bytes and which of its fixes they hold."""

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
    # surrogateescape: a byte that is not UTF-8 comes back as it was (the loader read it replaced)
    text = data[len(encoding.bom):].decode(encoding.codec, "surrogateescape")
    kind = kind_of(path, text, fresh)
    if kind == "json":
        first = firsts(fresh)
        positions = {id(fix): first.get((fix.fact.line, fix.fact.claim), -1) for fix in fixes}
        new_text, applied, skipped = jsondoc.rewrite(text, path, fixes, positions)
    else:
        lines = split_lines(text, newline_only=newline_only(path, data))
        new_text, applied, skipped = _rewrite_lines(lines, fixes, kind)
    return Rewritten(encoding.bom + new_text.encode(encoding.codec, "surrogateescape"), tuple(applied), tuple(skipped))


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


def firsts(fresh: Sequence[Fact]) -> dict[tuple[int, str], int]:
    """The place among `fresh` of the first fact of each line and claim: a fix's fact is found
    there (in one pass: a pass per fix was quadratic)."""
    found: dict[tuple[int, str], int] = {}
    for index, fact in enumerate(fresh):
        found.setdefault((fact.line, fact.claim), index)
    return found


def newline_only(path: str, data: bytes) -> bool:
    """Whether the loader numbered the lines on b"\n" alone: a .jsonl file not in UTF-16
    (`loader.parse_source`); every other file it split with str.splitlines."""
    utf16 = data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE))
    return Path(path).suffix.lower() == ".jsonl" and not utf16


def _rewrite_lines(lines: list[Line], fixes: Sequence[Fix], kind: str) -> tuple[str, list[Fix], list[tuple[Fix, str]]]:
    edits: list[Edit] = []
    taken: set[int] = set()  # the lines of `edits`
    applied: list[Fix] = []
    skipped: list[tuple[Fix, str]] = []
    for fix in fixes:
        edit = edit_for(fix, lines, kind)
        if isinstance(edit, str):
            skipped.append((fix, edit))
        elif overlaps(edit, taken):
            skipped.append((fix, "its lines overlap another fix of this file"))
        else:
            edits.append(edit)
            taken.update(range(edit.start, edit.stop))
            applied.append(_as_written(fix, edit))
    return splice(lines, edits), applied, skipped


def _as_written(fix: Fix, edit: Edit) -> Fix:
    """The fix as it was written: a struck item shows the line that is now in the file."""
    if fix.mark is None or edit.content is None:
        return fix
    return replace(fix, new_line=edit.content.strip())
