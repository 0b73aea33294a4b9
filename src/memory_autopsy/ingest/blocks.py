"""Markdown structure, shared by every markdown dialect: headings, thematic breaks, list items
with their continuation lines, table rows and paragraph sentences, with code fences and HTML
comments left out. Every pattern here is anchored (`^`: a search never retries it at each
position of a long line) and linear in the line's length."""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Generator, Iterator
from dataclasses import dataclass

from memory_autopsy import lazyre

HEADING = lazyre.compile(r"^ {0,3}(#{1,6})(?:[ \t]+|$)")
_BREAK = lazyre.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*")
_SETEXT = lazyre.compile(r"^ {0,3}(=+|-+)[ \t]*")
_ITEM = lazyre.compile(r"^([ \t]*)(?:[-*+\u2022]|\d{1,3}[.)])(?:[ \t]+|$)")
_CHECK = lazyre.compile(r"\[([ xXpP~/-])\][ \t]*")
_FENCE = lazyre.compile(r"^[ \t]*(`{3,}|~{3,})")
# Code in a tag of its own: `<pre>`, and the `<code-snippet name="…" lang="php">` blocks of
# generated agent guidelines. Read as a fence is: up to the closing tag, never a claim.
_CODE_TAG = lazyre.compile(r"^[ \t]*<(pre|code-snippet)(?=[\s>])", re.I)
# Separators own the blanks after them, so no two `[ \t]*` meet around an optional pipe.
_TABLE_RULE = lazyre.compile(r"^[ \t]*(?:\|[ \t]*)?:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*(?:\|[ \t]*)?")
# A stop may be followed by what closes around it: "**Never push there.** The …", "_Always
# commit._ _Directive: …_", "(see below.) EffectComposer …", "not \"roles.\" All …".
_SENTENCE_END = lazyre.compile(
    r"(?<=[.!?])(?:[_*)\]\"'”’]{1,3}(?=[ \t]))?[ \t]+(?=[\"'`*_\[(A-Z0-9])|(?<=[。！？])"
)
# A line that stands alone even inside a paragraph: a record (`x: slot = "v"`, the slot maybe
# namespaced: `x: env:KEY = "v"`), a stamped entry or a line opened by a status mark ("✅ Complete
# agent pipeline", a list without bullets).
_OWN_LINE = lazyre.compile(
    r"^(?:[^:=\"\n]{1,80}:[ \t]*[A-Za-z_](?:[\w.\-]{0,40}(?::[\w./@\-]{1,60}){1,3})?[\w.\- ]{0,40}=[ \t]*\"|\[?\d{4}-\d{2}-\d{2}[ T\]]|[✅☑✔✓❌⬜🟢🔄⏳][ \t])"
)
_SUPPRESS = lazyre.compile(r"memory-autopsy[ \t]*:[ \t]*ignore\b(?P<rules>[^>]*)", re.I)
_RULE_SEPARATOR = lazyre.compile(r"[,\s]+")
# A line of a paragraph that opens with a bold label ("**Date:** 2026-03-22", "**Rationale**:
# …") is a field of its own, as a bullet would be: "**Decision:**" under "**Issue:**" starts anew.
_FIELD = lazyre.compile(r"\*\*[^*\n]{1,40}?(?:[:：]\*\*|\*\*[:：])")
_CELL_SEPARATOR = lazyre.compile(r"(?<!\\)\|")


@dataclass(slots=True)
class Block:
    """One structural unit of a markdown file: a heading, an item, a row, a sentence or a line."""

    kind: str  # heading | break | code | item | row | sentence | line
    text: str
    line: int
    end: int
    level: int = 0  # heading level
    indent: int = 0  # item indent (columns)
    check: str | None = None  # the checkbox character of `- [x] …`
    cells: tuple[str, ...] = ()
    header: tuple[str, ...] = ()
    suppress: tuple[str, ...] = ()


class _Comments:
    """Strips HTML comments, which may span lines, and collects suppression comments."""

    def __init__(self) -> None:
        self.open = False

    def strip(self, raw: str) -> tuple[str, tuple[str, ...]]:
        if "<!--" not in raw and not self.open:
            return raw, ()
        kept: list[str] = []
        rules: list[str] = []
        pos = 0
        while pos <= len(raw):
            if self.open:
                close = raw.find("-->", pos)
                body = raw[pos:] if close < 0 else raw[pos:close]
                rules.extend(_rules(body))
                if close < 0:
                    return "".join(kept), tuple(rules)
                self.open, pos = False, close + 3
                continue
            start = raw.find("<!--", pos)
            if start < 0:
                kept.append(raw[pos:])
                break
            kept.append(raw[pos:start])
            self.open, pos = True, start + 4
        return "".join(kept), tuple(rules)


def _rules(comment: str) -> list[str]:
    match = _SUPPRESS.search(comment)
    if match is None:
        return []
    names = [r.strip() for r in _RULE_SEPARATOR.split(match["rules"]) if r.strip()]
    return names or ["*"]


class _Builder:
    def __init__(self) -> None:
        self.item: Block | None = None
        self.item_blank = False
        # An item's continuation lines and their rules, joined once the item ends: joined line
        # by line, a bullet continued over n lines cost n copies of its growing text.
        self.item_more: list[str] = []
        self.item_rules: list[str] = []
        self.para: list[tuple[int, str]] = []
        self.header: tuple[str, ...] = ()
        self.table_head: tuple[int, tuple[str, ...]] | None = None
        self.suppress: list[str] = []

    def flush(self) -> Iterator[Block]:
        if self.item is not None:
            if self.item_more:
                self.item.text = " ".join([self.item.text, *self.item_more]).strip()
                self.item.suppress += tuple(self.item_rules)
                self.item_more, self.item_rules = [], []
            yield self.item
            self.item = None
        if self.table_head is not None:
            line, cells = self.table_head
            yield Block("row", " | ".join(cells), line, line, cells=cells)
            self.table_head = None
        if self.para:
            yield from _sentences(self.para, tuple(self.suppress))
            self.para = []
            self.suppress = []


def iter_blocks(lines: list[str], start: int = 0, end: int | None = None) -> Generator[Block, None, bool]:
    """The blocks of a markdown body (lines[start:end]), in order. Returns whether the lines
    leave nothing open that a line after them would read otherwise (a code fence, an HTML
    comment, a table's header): a heading there reads as it does at the top of a file."""
    build = _Builder()
    comments = _Comments()
    fence: str | None = None
    pending: list[str] = []  # the rules of comment-only lines, for the next line with text
    for index in range(start, len(lines) if end is None else end):
        number = index + 1
        raw = lines[index]
        if fence is not None:
            if _closes(raw, fence):
                fence = None
            continue
        opened = None
        if "`" in raw or "~" in raw or "<" in raw:  # most lines open nothing: no pattern is tried
            opened = _FENCE.match(raw) or _CODE_TAG.match(raw)
        if opened and not comments.open:
            yield from build.flush()
            tag = opened.group(1)
            fence = tag[0] * 3 if tag[0] in "`~" else f"</{tag.lower()}>"
            if fence[0] == "<" and _closes(raw, fence):
                fence = None  # `<pre>one line</pre>`
            yield Block("code", "", number, number)  # content for its section, never a claim
            continue
        text, rules = comments.strip(raw)
        text = text.rstrip()
        if not text.strip():
            pending += rules
            if build.item is not None:
                build.item_blank = True
            if build.para or build.table_head is not None:
                yield from build.flush()
            build.header = ()
            continue
        rules, pending = rules + tuple(pending), []
        yield from _line(build, text, number, rules)
    yield from build.flush()
    return fence is None and not comments.open and not build.header


def _closes(raw: str, fence: str) -> bool:
    """Whether the line closes the code block: its fence's marks open it, or it holds the tag's
    closing tag."""
    return fence in raw.lower() if fence[0] == "<" else raw.strip().startswith(fence)


def _line(build: _Builder, text: str, number: int, rules: tuple[str, ...]) -> Iterator[Block]:
    heading = HEADING.match(text)
    if heading:
        yield from build.flush()
        title = text[heading.end() :].strip().rstrip("#").strip()
        yield Block("heading", title, number, number, level=len(heading.group(1)), suppress=rules)
        return
    if len(build.para) == 1 and build.item is None and _SETEXT.fullmatch(text):
        line, title = build.para[0]
        build.para = []
        level = 1 if text.strip().startswith("=") else 2
        yield Block("heading", title.strip(), line, number, level=level, suppress=rules)
        return
    if _BREAK.fullmatch(text):
        yield from build.flush()
        yield Block("break", "", number, number)
        return
    stripped = text.strip()
    if stripped.startswith("|") and stripped.count("|") >= 2:
        yield from _table_line(build, stripped, number, rules)
        return
    item = _ITEM.match(text)
    if item:
        yield from build.flush()
        indent = len(item.group(1).expandtabs(4))
        body = text[item.end() :]
        check = _CHECK.match(body)
        if check:
            body = body[check.end() :]
        build.item = Block("item", body.strip(), number, number, indent=indent,
                           check=check.group(1) if check else None, suppress=rules)
        build.item_blank = False
        return
    if _OWN_LINE.match(stripped):
        yield from build.flush()
        yield Block("line", stripped, number, number, suppress=rules)
        return
    if build.item is not None:
        own_indent = len(text) - len(text.lstrip())
        if not build.item_blank or own_indent > build.item.indent:
            build.item_more.append(stripped)
            build.item.end = number
            build.item_rules += rules
            return
        yield from build.flush()
    if build.table_head is not None:
        yield from build.flush()
    build.para.append((number, stripped))
    build.suppress += rules


def _table_line(build: _Builder, stripped: str, number: int, rules: tuple[str, ...]) -> Iterator[Block]:
    if build.item is not None or build.para:
        yield from build.flush()
    if _TABLE_RULE.fullmatch(stripped):
        if build.table_head is not None:
            build.header = build.table_head[1]
            build.table_head = None
        return
    cells = _cells(stripped)
    if not build.header and build.table_head is None:
        build.table_head = (number, cells)  # a header only if a rule line follows
        return
    if build.table_head is not None:
        yield from build.flush()
    yield Block("row", " | ".join(cells), number, number, cells=cells, header=build.header,
                suppress=rules)


def _cells(row: str) -> tuple[str, ...]:
    inner = row.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return tuple(cell.strip() for cell in _CELL_SEPARATOR.split(inner))


def _sentences(para: list[tuple[int, str]], rules: tuple[str, ...]) -> Iterator[Block]:
    """A paragraph read sentence by sentence; each sentence keeps the line it starts on."""
    starts: list[tuple[int, int]] = []  # (offset in the joined text, line number)
    parts: list[str] = []
    size = 0
    for line, text in para:  # joined once: joined line by line, n lines cost n copies of the text
        if parts or text:  # a blank before the first text adds no separator
            size += 1 if parts else 0
            parts.append(text)
        starts.append((size, line))  # where the line's text starts, past the space joining it
        size += len(text)
    joined = " ".join(parts)
    last = para[-1][0]
    cuts = _cuts(joined)
    fields = [at for (at, _), (_, text) in zip(starts[1:], para[1:]) if text[:2] == "**" and _FIELD.match(text)]
    if fields:
        cuts = sorted({*cuts, *fields})
    pos = 0
    cursor = 0
    for cut in cuts:
        raw = joined[pos:cut]
        sentence = raw.strip()
        if sentence:
            # The sentence's lines: from the one its text starts on to the one it ends on (a cut
            # holds the blanks after a stop, which reach the next line's start).
            begin = pos + len(raw) - len(raw.lstrip())
            end = begin + len(sentence)
            while cursor + 1 < len(starts) and starts[cursor + 1][0] <= begin:
                cursor += 1
            first = starts[cursor][1]
            end_cursor = cursor
            while end_cursor + 1 < len(starts) and starts[end_cursor + 1][0] < end:
                end_cursor += 1
            yield Block("sentence", sentence, first, min(starts[end_cursor][1], last), suppress=rules)
        pos = cut


_ABBREVIATIONS = frozenset("e.g. i.e. etc. vs. approx. incl. e.g., i.e., cf. no. nr. fig. mr. mrs. dr. st. v.".split())
# A month's short name ends no sentence before its day ("Last updated: Mar. 22, 2026").
_MONTH_ABBREVIATIONS = frozenset("jan. feb. mar. apr. jun. jul. aug. sep. sept. oct. nov. dec.".split())


def _cuts(joined: str) -> list[int]:
    """Sentence ends, past abbreviations and code spans ("e.g. `?? "?"`" ends no sentence)."""
    ticks = []  # found by str.find: a loop over every character cost 0.12 s a MB of paragraph
    at = joined.find("`")
    while at >= 0:
        ticks.append(at)
        at = joined.find("`", at + 1)
    cuts = []
    for match in _SENTENCE_END.finditer(joined):
        if bisect_left(ticks, match.start()) % 2:
            continue
        before = joined[max(0, match.start() - 8) : match.start()].rsplit(" ", 1)[-1].casefold()
        if before in _ABBREVIATIONS:
            continue
        if before in _MONTH_ABBREVIATIONS and joined[match.end() : match.end() + 1].isdigit():
            continue
        cuts.append(match.end())
    return cuts + [len(joined)]
