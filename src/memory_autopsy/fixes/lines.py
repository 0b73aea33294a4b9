"""Line edits of a markdown or JSONL file: each fix replaces or removes one whole item.

An item is every line from `fact.line` to `fact.last_line` (a wrapped bullet), so a delete
never leaves a continuation line behind and a rewrite never keeps half of the old text. Each
edit keeps the line ending of the item's last line; every other line stays byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from memory_autopsy import lazyre
from memory_autopsy.fixes import jsondoc
from memory_autopsy.fixes.fix import Fix
from memory_autopsy.fixes.items import span

_PREFIX = lazyre.compile(r"^(\s*(?:(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?)?)")
_TRAILING_COMMENT = lazyre.compile(r"\s*<!--.*?-->\s*$")

Line = tuple[str, str]  # (content, line ending)


@dataclass(frozen=True, slots=True)
class Edit:
    """One item's lines replaced by one line, or deleted."""

    start: int  # index of the item's first line
    stop: int  # index after its last line
    content: str | None  # the one line that replaces the item; None deletes it


def split_lines(text: str, *, newline_only: bool = False) -> list[Line]:
    """(content, line ending) pairs, numbered exactly as the loader numbered the file's lines.

    The loader reads a JSONL store as bytes split on b"\n" alone (`loader._json_lines_bytes`),
    and everything else with `str.splitlines`, which also breaks at U+2028, U+0085, \x0c,
    \x1c-\x1e and a lone \r. Splitting a JSONL store the second way shifts every later line
    number, and a fix for line N then edits another record.
    """
    if newline_only:
        return _split_newlines(text)
    pairs = []
    for raw in text.splitlines(keepends=True):
        parts = raw.splitlines()
        content = parts[0] if parts else ""
        pairs.append((content, raw[len(content):]))
    return pairs


def _split_newlines(text: str) -> list[Line]:
    pieces = text.split("\n")
    pairs = [(piece, "\n") for piece in pieces[:-1]]
    if pieces[-1]:
        pairs.append((pieces[-1], ""))  # the last line has no final newline
    # A CRLF line's \r belongs to its ending (kept byte for byte); any other \r stays content.
    return [(content[:-1], "\r" + end) if content.endswith("\r") else (content, end) for content, end in pairs]


def edit_for(fix: Fix, lines: Sequence[Line], kind: str) -> Edit | str:
    """The edit for `fix`, or why it cannot be made."""
    item = span(fix.fact) if kind == "markdown" else range(fix.fact.line, fix.fact.line + 1)
    start, stop = item.start - 1, item.stop - 1
    if not 0 <= start < stop <= len(lines):
        return "the item's lines are out of range"
    if fix.action == "delete":
        return Edit(start, stop, None)
    contents = [content for content, _ in lines[start:stop]]
    if kind == "jsonl" and fix.fact.obs >= 0:
        # valid_to on the line would end every observation of the node, not just this one
        return "memory-graph observations are not rewritten automatically; edit it by hand"
    if kind == "jsonl":
        stamped = jsonl_line(contents[0], fix.valid_to or "")
        return Edit(start, stop, stamped) if stamped is not None else "the line is not a JSON object or string"
    if fix.mark is not None:
        struck = strike(contents, fix.mark)
        return Edit(start, stop, struck) if struck is not None else "the item is already marked superseded"
    return Edit(start, stop, record_line(contents[0], fix.new_line or ""))


def splice(lines: Sequence[Line], edits: Sequence[Edit]) -> str:
    starts = {edit.start: edit for edit in edits}
    kept: list[Line] = []
    index = 0
    while index < len(lines):
        edit = starts.get(index)
        if edit is None:
            kept.append(lines[index])
            index += 1
            continue
        if edit.content is not None:
            kept.append((edit.content, lines[edit.stop - 1][1]))
        index = edit.stop
    if kept and lines and not lines[-1][1]:
        kept[-1] = (kept[-1][0], "")  # the file had no final newline: neither has the new last line
    return "".join(content + end for content, end in kept)


def overlaps(edit: Edit, taken: set[int]) -> bool:
    """Whether the edit touches a line of `taken` (the lines of the edits made so far): a set,
    where a pass over every earlier edit made a plan of n fixes cost n * n checks."""
    return not taken.isdisjoint(range(edit.start, edit.stop))


def strike(contents: Sequence[str], mark: str) -> str | None:
    """The item struck through on its first line, keeping its marker and indent, then `mark`.

    Continuation lines are joined into the struck text (the edit removes them), and a trailing
    HTML comment (a suppression, a note) stays after the mark, outside the strikethrough.
    """
    prefix = _prefix(contents[0])
    text = " ".join([contents[0][len(prefix):].strip(), *(c.strip() for c in contents[1:])]).strip()
    comment = _TRAILING_COMMENT.search(text)
    tail = comment.group(0).strip() if comment else ""
    text = text[: comment.start()] if comment else text
    if text.startswith("~~") and "(superseded " in text:
        return None  # an earlier --apply marked it; striking again would only nest the marks
    return f"{prefix}~~{text}~~ {mark}" + (f" {tail}" if tail else "")


def record_line(content: str, new_line: str) -> str:
    """An explicit record in place of the line, keeping its marker, indent and trailing comment."""
    comment = _TRAILING_COMMENT.search(content)
    return _prefix(content) + new_line + (comment.group(0) if comment else "")


def _prefix(content: str) -> str:
    match = _PREFIX.match(content)
    return match[1] if match else ""


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
