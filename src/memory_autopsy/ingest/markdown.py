"""Markdown memory: explicit records, entity claims, sections and dated entries, list items
with their continuation lines and nesting, tables, checkbox and status markers, prose.

Dates are settled after the whole file is read, so a `**Last Updated**:` line at the end of
a section still dates the section, and an entry dated by its first stamped line dates its
undated lines too. Precedence: the line's own date, the innermost dated section, the entry,
a date written in the claim's prose, the file (front matter, a file-level date line, a dated
file name)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from memory_autopsy import lazyre
from memory_autopsy.cues import GONE_WORDS, share_done
from memory_autopsy.dates import find_dates, parse_date
from memory_autopsy.ingest.annotations import (
    BARE_SLOT,
    EXPLICIT,
    Annotations,
    read_prose,
    read_rest,
    split_aliases,
    strip_emphasis,
)
from memory_autopsy.ingest.blocks import HEADING, Block, iter_blocks
from memory_autopsy.ingest.frontmatter import Loader, read_front_matter, scalar
from memory_autopsy.ingest.reading import (
    cell_status,
    date_label,
    heading_parts,
    kind_of,
    label_prefix,
    section_kind,
    status_of,
)
from memory_autopsy.ingest.records import Draft
from memory_autopsy.lexicon import Lexicon, default_lexicon
from memory_autopsy.model import HEADING_KIND, HISTORY, Declaration, Fidelity, Problem

# What leads an index line's summary after its link ("** — ", ": ")
_SUMMARY_LEAD = lazyre.compile(r"^[\s*]*(?:[—–:-]+\s*)?")
_CLAUSES = lazyre.compile(r"[;,]\s")
MIN_SUMMARY_WORDS = 2

# Each pattern is matched at the start of a claim: `^` keeps a search from retrying it at every
# position of a long line.
_REFERENCE = lazyre.compile(
    r"^\s*(?:\*\*)?(?:\[(?P<text>[^\]]{1,200})\]\((?!https?:)[^)\s]{1,300}\)|\[\[(?P<wiki>[^\]]{1,200})\]\])")
_STRUCK = lazyre.compile(r"^~~(?P<claim>[^~]+)~~\s*\(superseded (?P<date>[0-9-]{7,10})[^)]*\)(?P<rest>.*)")
_PINNED = lazyre.compile(r"^(?P<name>[\w@/.\-]{1,60})(?: \([^()]{1,40}\))?\s+[-–—:]\s+v?(?P<version>\d{1,4}(?:\.\d{1,4}){0,3})")
_STAMPED = lazyre.compile(r"^\s*[\[(]?\d{4}-\d{2}-\d{2}")
# "**Status:** ✅ COMPLETE", "状態: 完了": a line that only states a status, under its label
_STATUS_LINE = lazyre.compile(r"([^\W\d_][^:：\n]{0,24})[:：](.*)")
_VALUE_END = lazyre.compile(r"[(（]|[ \t][-–—][ \t]")  # "In Progress (codex)", "Done - shipped"
_ALNUM = lazyre.compile(r"[^\W_]")  # what str.isalnum() accepts: a word character but `_`
_EMPTY_CELL = frozenset({"", "-", "—", "–", "n/a", "na", "none", "tbd", "?", "..."})
_FILE_DATE_KEYS = ("updated", "last_updated", "lastupdated", "updated_at", "date", "modified",
                   "timestamp", "created", "created_at")


@dataclass
class _Section:
    """A heading in force while a markdown file is read: its entity, date and status."""

    level: int
    name: str
    entity: str | None
    date: str
    status: str | None  # the status a generic heading gives; None for a named heading
    guideline: bool
    ident: str
    line: int
    has_content: bool = False
    claimed: bool = False  # its title already carries a status (a heading claim)
    open_boxes: int = 0  # its own check boxes, open and checked
    checked_boxes: int = 0
    open_claim: _Pending | None = None  # the claim that its title is pending, while only open boxes follow it


class _StackView(NamedTuple):
    entity: str | None  # the innermost named section's entity
    status: str  # the innermost generic heading's status
    guideline: bool  # inside a guideline section
    idents: tuple[str, ...]  # the sections, innermost first


@dataclass
class _Pending:
    """A draft and what its date will be settled from."""

    draft: Draft
    line_date: str | None
    stamp: str | None
    sections: tuple[str, ...]
    entry: str
    prose_date: str | None
    void: bool = False  # withdrawn before the file ends (a section's title read as pending too soon)


@dataclass
class MarkdownResult:
    """What reading one markdown file found: its drafts and what else it declares or breaks."""

    drafts: list[Draft] = field(default_factory=list)
    declarations: list[Declaration] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    references: list[tuple[int, str]] = field(default_factory=list)


def parse_markdown(
    text: str, path: str, default_entity: str, lexicon: Lexicon | None = None,
    front_matter: Loader | None = None,
) -> MarkdownResult:
    """`front_matter` reads a front matter block into its mapping (PyYAML by default)."""
    lines = text.splitlines()
    meta, start = read_front_matter(lines, front_matter)
    parser = Parser(path, meta, default_entity, lexicon or default_lexicon())
    parser.describe(lines, start)
    for block in iter_blocks(lines, start):
        parser.block(block)
    return parser.finish()


class Cut(NamedTuple):
    """Where a part of a markdown file may start (memory_autopsy.parallel): a heading of level 1
    or 2 that opens an entry, so nothing above it but the level-1 heading in force (`above`,
    its line index, or -1) reaches what follows it; its line index (`at`) and level."""

    at: int
    level: int
    above: int


def cuts(lines: list[str], targets: Sequence[int], lexicon: Lexicon) -> list[Cut]:
    """A cut at the first heading at or after each target line index that can start a part,
    each after the one before. A file may hold a line that reads as such a heading but is not
    one (in a code fence, an HTML comment): the reading of the part before a cut tells
    (`Parser.reaches`)."""
    found: list[Cut] = []
    for target in targets:
        index = max(target, found[-1].at + 1 if found else 0)
        while index < len(lines):
            line = lines[index]
            heading = HEADING.match(line) if line.startswith(("#", " ")) else None
            if heading is not None and len(heading.group(1)) <= 2 and "<!--" not in line:
                title = line[heading.end() :].strip().rstrip("#").strip()
                _, kind, date, _ = heading_parts(title, lexicon)
                if kind != "" or date:  # a neutral heading continues the entry above it
                    break
            index += 1
        if index >= len(lines):
            break
        level = len(HEADING.match(lines[index]).group(1))  # type: ignore[union-attr]
        found.append(Cut(index, level, _above(lines, index) if level == 2 else -1))
    return found


def _above(lines: list[str], index: int) -> int:
    """The last line before `index` that reads as a level-1 heading, or -1."""
    for above in range(index - 1, -1, -1):
        line = lines[above]
        if line.startswith(("#", " ")) and (heading := HEADING.match(line)) and len(heading.group(1)) == 1:
            return above
    return -1


class Parser:
    """Reads a markdown file's blocks in order (`block`), then settles their dates (`finish`).
    A large file may be read in parts (memory_autopsy.parallel): a part from a `Cut` to the
    next, each by a parser of its own that `resume`s at its cut."""

    def __init__(self, path: str, meta: dict[str, Any], default_entity: str, lexicon: Lexicon) -> None:
        self.given = (path, meta, default_entity, lexicon)
        self.path = path
        self.lexicon = lexicon
        self.result = MarkdownResult()
        self.file_date = parse_date(scalar(meta, *_FILE_DATE_KEYS)) or parse_date(default_entity)
        source = scalar(meta, "source")
        self.file_source = str(source).strip() if isinstance(source, (str, int)) and str(source).strip() else None
        named = scalar(meta, "entity", "name")
        named = str(named).strip() if isinstance(named, (str, int)) else ""
        self.file_entity = named or default_entity
        self.file_fidelity = Fidelity.PARTIAL if named else Fidelity.RESIDUAL
        self.file_named = bool(named)
        self.guideline_file = str(scalar(meta, "type") or "").casefold() in ("feedback", "rule", "rules")
        self.stack: list[_Section] = []
        self.entry = f"{path}:0"
        self.parents: list[tuple[int, str, str, str | None]] = []  # (indent, intro text, status, date)
        self.pending: list[_Pending] = []
        self.section_dates: dict[str, str] = {}
        self.entry_dates: dict[str, tuple[str, str]] = {}  # entry -> (date, section dated in)
        # Entries that can be a dated log entry: opened by `---`, a dated heading or a generic one
        # (a named entity's section is a topic, and the file start is no entry).
        self.log_entries: set[str] = set()
        self.stamp: str | None = None  # a standalone `[DATE] - title` line dates what follows it
        self.stamped = False  # … and ends the section kind of the heading above it
        self._stack_view: _StackView | None = None  # what every claim reads off the stack

    # --- parts -----------------------------------------------------------------------

    def read(self, lines: list[str], start: int, end: int) -> bool:
        """Read lines[start:end]; whether they leave no code fence, comment or table open."""
        blocks = iter_blocks(lines, start, end)
        while True:
            try:
                block = next(blocks)
            except StopIteration as done:
                return bool(done.value)
            self.block(block)

    def resume(self, lines: list[str], cut: Cut) -> None:
        """Stand where the file's reading reaches `cut` when nothing above it reaches further:
        under the level-1 heading above it, with no stamp. (A file date stated above the cut
        dates this part's undated lines once the parts are put together.)"""
        if cut.above >= 0:
            self.read(lines, cut.above, cut.above + 1)

    def reaches(self, lines: list[str], cut: Cut) -> bool:
        """Close what the heading at `cut` closes, having read up to it; whether this reading
        now stands where one that `resume`s at the cut does (else the part after the cut must
        be read on from here)."""
        self._close_sections(cut.level)
        start = Parser(*self.given)
        start.resume(lines, cut)
        return start._standing() == self._standing()

    def _standing(self) -> tuple[Any, ...]:
        """What a heading that opens an entry leaves of the reading above it for what follows:
        the sections above it (the level-1 heading: no entity, so whether it holds content
        does not count) and the stamp."""
        sections = tuple((s.level, s.name, s.entity, s.date, s.status, s.guideline, s.ident, s.line)
                         for s in self.stack)
        return sections, self.stamp

    # --- structure -------------------------------------------------------------------

    def block(self, block: Block) -> None:
        if block.kind == "heading":
            self._heading(block)
        elif block.kind == "break":
            self.entry = f"{self.path}:{block.line}"
            self.log_entries.add(self.entry)
            self.parents = []
            self.stamp = None
        elif block.kind == "code":
            self._mark_content()
        elif block.kind == "row":
            self._mark_content()
            self._row(block)
        else:
            self._mark_content()
            self._text(block)

    def _heading(self, block: Block) -> None:
        self._close_sections(block.level)
        self.parents = []
        self.stamped = False
        name, kind, date, named = heading_parts(block.text, self.lexicon)
        entity = name if named and block.level >= 2 else None
        ident = f"{self.path}:{block.line}"
        if kind != "" or date:  # a neutral heading (Rationale, Details) continues its entry
            self.entry = ident
            if kind is not None or date:
                self.log_entries.add(ident)
        guideline = kind == "" and name.casefold() in self.lexicon.guideline_sections
        self.stack.append(_Section(block.level, name, entity, date, kind, guideline, ident, block.line))
        self._stack_view = None
        if date:
            self.section_dates[ident] = date
            if self.entry == ident:
                self.entry_dates.setdefault(ident, (date, ident))
        if kind is None and name:
            self._heading_claim(block, name)

    def _heading_claim(self, block: Block, name: str) -> None:
        """A heading that marks its own title with a status ("## Phase 5: Polish ✅ COMPLETE",
        "### Segments - IN PROGRESS", "## 阶段 2 - ✅ 已完成"), or that a generic heading above
        gives one as it gives its items ("### solution08.go" under "## Remaining Issues"), says
        that of its title: a claim of kind `heading`, which only the status layer reads
        (Store.headings), and the quantity layer for a share done. A heading that gives its title
        a share done ("### 4. Integrations - 50% complete") is such a claim too, in progress
        below the whole. A generic heading ("Next Steps", "✅ Completed") is no claim itself."""
        status = status_of(block.text, self.lexicon) or self._section_status
        if status not in _STATUSES:
            share = _share_status(name)
            if share is None:
                return
            status = share
        self._title_claim(block, name, status)
        self.stack[-1].claimed = True

    def _title_claim(self, block: Block, name: str, status: str) -> _Pending:
        """A claim of kind `heading` that the section titled `name` has `status`, placed at `block`."""
        draft = Draft(
            entity=self._entity or self.file_entity, claim=name, path=self.path, line=block.line,
            fidelity=Fidelity.PARTIAL, body=name, named=True,
        )
        self._finish(draft, block, status)
        draft.kind, draft.status = HEADING_KIND, status
        return self.pending[-1]

    def describe(self, lines: list[str], start: int) -> None:
        """The front matter's `description` (`lines[1:start]` hold it) is a summary of the file."""
        description = scalar(self.given[1], "description")
        if not isinstance(description, str):
            return
        for index in range(1, start):
            if lines[index].startswith("description:"):
                self._summary(Block("line", description, index + 1, index + 1), description)
                return

    def _summary(self, block: Block, text: str, title: str = "") -> None:
        """A summary of a memory file, an index line's ("- [Invoice export](invoice_export.md) —
        CSV export of monthly invoices (DONE)") or its front matter's description, says what the
        file holds. The status it gives is the status layer's, as a heading's is (a claim of
        kind `heading`, titled by the link's text), and nothing else reads it: an index that
        repeats its files' descriptions is no copy. A summary whose clauses give several
        statuses ("Phase 1+2 done, Phase 3 open") gives the whole none."""
        summary = strip_emphasis(_SUMMARY_LEAD.sub("", text))
        if len(summary.split()) < MIN_SUMMARY_WORDS:
            return
        status = status_of(summary, self.lexicon)
        if status and {status_of(part, self.lexicon) for part in _CLAUSES.split(summary)} - {"", status}:
            status = ""
        self._title_claim(block, f"{title} — {summary}" if title else summary, status if status in _STATUSES else "")

    def _status_line(self, block: Block, body: str) -> None:
        """A line of a section that only states a status under a status label ("**Status:** ✅
        COMPLETE", "**状態**: ✅ Completed (2026-01-01)" under "### Phase 3: AI Implementation")
        says that of the section's title, as a heading that marks itself does: a heading claim,
        placed on the status line. The first such line of a named section decides; a line nested
        in a list item is that item's."""
        section = self.stack[-1] if self.stack else None
        if section is None or section.claimed or section.status is not None or not section.name:
            return
        if block.indent or block.kind not in ("sentence", "line", "item"):
            return
        line = _STATUS_LINE.match(body.lstrip(" \t-*+"))
        if line is None or line.group(1).strip(" *_").casefold() not in self.lexicon.status_columns:
            return
        value = line.group(2).strip(" *_")
        status = cell_status(value, self.lexicon) or cell_status(_VALUE_END.split(value, maxsplit=1)[0], self.lexicon)
        if status not in _STATUSES:
            return
        self._title_claim(block, section.name, status)
        section.claimed = True

    def _box(self, block: Block) -> None:
        """A named section whose own check boxes are all open ("### Phase 1: Core/Domain" over
        "- [ ] CellState.cs", "- [ ] PlayerType.cs") says its title is pending: a heading claim on
        its first open box, kept when the section closes with two open boxes or more and none
        checked, and no status of its own."""
        section = self.stack[-1] if self.stack else None
        if section is None or block.indent:
            return
        status = self.lexicon.checkbox.get(block.check or "", "")
        if status == "done":
            section.checked_boxes += 1
            return
        if status != "pending":
            return
        section.open_boxes += 1
        if section.open_boxes == 1 and not section.checked_boxes and section.status is None and section.name:
            section.open_claim = self._title_claim(block, section.name, "pending")

    def _close_sections(self, level: int) -> None:
        while self.stack and self.stack[-1].level >= level:
            section = self.stack.pop()
            claim = section.open_claim
            if claim is not None and (section.claimed or section.checked_boxes or section.open_boxes < 2):
                claim.void = True
            self._stack_view = None
            if section.entity and not section.has_content and _is_name(section.entity):
                self.result.declarations.append(
                    Declaration(section.entity, self.path, section.line, "heading", section.entity)
                )
            if self.stack and section.has_content:
                self.stack[-1].has_content = True

    def _mark_content(self) -> None:
        if self.stack:
            self.stack[-1].has_content = True

    @property
    def _view(self) -> _StackView:
        """Read off the stack once per heading, not once per claim."""
        view = self._stack_view
        if view is None:
            view = self._stack_view = _StackView(
                next((s.entity for s in reversed(self.stack) if s.entity), None),
                next((s.status for s in reversed(self.stack) if s.status), ""),
                any(s.guideline for s in self.stack),
                tuple(s.ident for s in reversed(self.stack)),
            )
        return view

    @property
    def _entity(self) -> str | None:
        return self._view.entity

    @property
    def _section_status(self) -> str:
        if self.stamped:  # stamped entries appended under a template's Next Steps
            return ""
        return self._view.status

    @property
    def _guideline_section(self) -> bool:
        return self.guideline_file or self._view.guideline

    # --- claims ----------------------------------------------------------------------

    def _text(self, block: Block) -> None:
        body = strip_emphasis(block.text)
        if not _ALNUM.search(body):
            return
        dated = date_label(block.text, self.lexicon)
        if dated is not None:
            self._date_line(dated)
            return
        if block.kind == "item" and (link := _REFERENCE.match(block.text)):
            self.result.references.append((block.line, block.text))
            self._summary(block, block.text[link.end():], (link["text"] or link["wiki"]).strip())
            return
        self._status_line(block, body)
        if block.check is not None:
            self._box(block)
        if block.kind == "sentence" and len(body.split()) < self.lexicon.sentence_min_words:
            self._lead(body)  # "**Before:**", "Deleted:": too short to claim, it heads its list
            if not self.stack and self.file_date is None and (found := find_dates(body)):
                self.file_date = found[0]  # "2025-04-01 17:54:42 - Log of updates made."
            return
        nested, intro_status = self._nest(block, body)
        if nested is None:
            return
        status = status_of(block.text, self.lexicon, block.check) or intro_status
        draft = self._explicit(nested, block.line) or self._prose(nested, block)
        if draft is None:
            return
        self._finish(draft, block, status)

    def _nest(self, block: Block, body: str) -> tuple[str | None, str]:
        """Nested items keep their parent's context: "Removed:" applies to its children."""
        if block.kind != "item":
            self._lead(body)
            return body, ""
        while self.parents and self.parents[-1][0] >= block.indent:
            self.parents.pop()
        intro = next((p for p in reversed(self.parents) if p[1]), None)
        if body.rstrip().endswith((":", "：")) and len(body.split()) <= 6:  # "Removed:", not a sentence
            status = status_of(block.text, self.lexicon, block.check)
            self.parents.append((block.indent, body.rstrip(" :："), status, None))
            return None, ""
        self.parents.append((block.indent, "", "", None))
        if intro is None:
            return body, ""
        return f"{intro[1]}: {body}", intro[2]

    def _lead(self, body: str) -> None:
        """A paragraph ends the list context above it; one that records what follows as gone or
        as what was ("The following were removed during the cleanup:", "**Before:**") is the
        context of the list it introduces, as an item "Removed:" is of its children: the items
        say it, not the lead."""
        self.parents = [(-1, body.rstrip(" :："), "", None)] if _gone_lead(body, self.lexicon) else []

    def _date_line(self, dated: str) -> None:
        section = next((s for s in reversed(self.stack) if s.level >= 2), None)
        if section is None:
            self.file_date = self.file_date or dated
        else:
            self.section_dates.setdefault(section.ident, dated)

    def _explicit(self, body: str, number: int) -> Draft | None:
        if "=" not in body:  # both forms hold `slot = "value"`
            return None
        match = EXPLICIT.match(body)
        if match is not None:
            entity, aka = match["entity"].strip(), match["aka"]
        else:  # `slot = "value"` under an entity's heading: no aliases
            match, entity, aka = BARE_SLOT.match(body), self._entity, None
            if match is None or entity is None:
                return None
        notes = read_rest(match["rest"])
        for item in notes.bad_dates:
            self.result.problems.append(Problem(self.path, number, f"unreadable date {item!r}"))
        claim = f'{entity}: {match["slot"].strip()} = "{match["value"].strip()}"'
        draft = Draft(
            entity=entity, claim=claim, path=self.path, line=number, fidelity=Fidelity.FULL,
            slot=match["slot"].strip(), value=match["value"].strip(), body=claim,
            aliases=split_aliases(aka), named=True,
        )
        self._annotate(draft, notes)
        return draft

    def _prose(self, body: str, block: Block) -> Draft | None:
        struck = _STRUCK.match(body)
        if struck:  # `~~claim~~ (superseded DATE, see path:line)`: resolved history, as the fix writes it
            body = struck["claim"] + struck["rest"]
        claim, notes = read_prose(body)
        if not _ALNUM.search(claim):
            return None
        entity = self._entity
        draft = Draft(
            entity=entity or self.file_entity, claim=claim, path=self.path, line=block.line,
            fidelity=Fidelity.PARTIAL if entity else self.file_fidelity, body=claim,
            named=bool(entity) or self.file_named,
        )
        pinned = _PINNED.fullmatch(claim)
        if pinned:  # "- php - 8.2.12": a package list pins a version
            name = pinned["name"].strip()
            draft.entity, draft.slot, draft.value = name, "version", f"{name} {pinned['version']}"
            draft.body, draft.named = draft.value, True
            draft.fidelity = Fidelity.PARTIAL
        prefix = label_prefix(claim) if not pinned else None
        if prefix is not None:
            draft.label, draft.label_rest = prefix
            draft.annotated = bool(notes.observed_at or notes.source)
        self._annotate(draft, notes)
        if struck:
            draft.valid_to = parse_date(struck["date"])
        return draft

    def _row(self, block: Block) -> None:
        cells = [strip_emphasis(c) for c in block.cells]
        if not any(cells) or not block.header:
            if any(len(c) > 1 for c in cells) and block.header == ():
                self._text(Block("sentence", " | ".join(c for c in cells if c), block.line, block.end))
            return
        header = [strip_emphasis(h) for h in block.header]
        first, rest = cells[0], list(zip(header[1:], cells[1:]))
        # "2026-02-09", or a date with its time or a note: "2026-02-09 12:19Z", "2026-02-09 (deploy)"
        row_date = parse_date(first) or (parse_date(first.split(None, 1)[0]) if " " in first else None)
        status = ""
        for name, cell in rest:
            if name.casefold() in self.lexicon.status_columns:
                status = status or cell_status(cell, self.lexicon)
        entity = self._entity or self.file_entity
        subject = entity if row_date else first
        if not subject or subject.casefold() in _EMPTY_CELL:
            return
        for name, cell in rest:
            if cell.casefold() in _EMPTY_CELL or not name:
                continue
            claim = f"{subject}: {name}: {cell}" if not row_date else f"{name}: {cell}"
            draft = Draft(
                entity=subject, claim=claim, path=self.path, line=block.line,
                fidelity=Fidelity.PARTIAL, body=f"{name}: {cell}", named=True,
                slot=name.casefold(), value=cell, shape="table",
            )
            draft.observed_at = row_date
            self._finish(draft, block, status, line_date=row_date)
            if row_date:  # a dated row of a log table is an entry of its own, as a dated heading is
                self._own_entry(self.pending[-1], row_date, block.line)

    def _own_entry(self, item: _Pending, date: str, line: int) -> None:
        item.entry = item.draft.entry = f"{self.path}:{line}"
        self.log_entries.add(item.entry)
        self.entry_dates.setdefault(item.entry, (date, ""))

    def _annotate(self, draft: Draft, notes: Annotations) -> None:
        draft.observed_at = notes.observed_at
        draft.valid_from, draft.valid_to = notes.valid_from, notes.valid_to
        draft.source = notes.source or self.file_source
        draft.source_class = notes.source_class

    def _finish(self, draft: Draft, block: Block, status: str, line_date: str | None = None) -> None:
        section_status = self._section_status
        draft.status = status or (section_status if section_status in _STATUSES else "")
        draft.kind = self._kind(draft.claim, status, section_status)
        if draft.kind == "state" and draft.label_rest:  # "db: Use x" is a guideline;
            if self._kind(draft.label_rest, status, section_status) == "guideline":  # "db: hosted on x" a state
                draft.kind = "guideline"
        if draft.kind in ("guideline", "state") or draft.kind == "event" and section_status == "in_progress":
            draft.status = status  # the section's status is not theirs (an event reports work done)
        if draft.kind == "state" and (section_status == HISTORY or _tells_what_was(draft.label, self.lexicon)):
            draft.kind = HISTORY  # "## Before" / "- Port 8000: FastAPI backend": what was, not what is
        draft.suppress = block.suppress
        draft.end_line = block.end
        draft.entry = self.entry
        line_date = line_date or draft.observed_at
        # A date in a claim's prose may date it; an explicit record's value is data (`renewal =
        # "2026-12-06"` was not observed on that day), as a JSON record's value is: its claim is
        # read up to the quoted value, which ends it.
        written = draft.claim if draft.fidelity is not Fidelity.FULL else draft.claim[: -len(draft.value) - 2]
        prose = find_dates(written) if line_date is None else []
        if block.kind == "item" and self.parents and self.parents[-1][0] == block.indent:
            # A detail nested under "- [2026-03-01] Shipped the exporter" was written that day too
            inherited = next((p[3] for p in reversed(self.parents[:-1]) if p[3]), None)  # its dated ancestor's
            line_date = line_date or (None if prose else inherited)
            self.parents[-1] = (*self.parents[-1][:3], line_date or (prose[0] if prose else None))
        self.pending.append(_Pending(
            draft, line_date, self.stamp, self._view.idents, self.entry,
            prose[0] if prose else None,
        ))
        if line_date and block.kind == "line" and _STAMPED.match(block.text):
            self.stamp, self.stamped = line_date, True
            if self.file_date is None and not any(s.level >= 2 for s in self.stack):
                self.file_date = line_date  # "2025-04-01 17:54:42 - Log of updates made." at the top
        if line_date:
            self.entry_dates.setdefault(self.entry, (line_date, self.stack[-1].ident if self.stack else ""))

    def _entry_date(self, item: _Pending) -> str | None:
        """An entry's first stamp dates its other sections (the Rationale of a dated Decision),
        never the undated siblings of the stamped line: those stay undated."""
        dated = self.entry_dates.get(item.entry)
        own = item.sections[0] if item.sections else ""
        return dated[0] if dated is not None and dated[1] != own else None

    def _kind(self, text: str, status: str, section_status: str) -> str:
        return kind_of(text, self.lexicon, status=status, section_status=section_status,
                       guideline_section=self._guideline_section)

    def finish(self) -> MarkdownResult:
        self._close_sections(0)
        for item in self.pending:
            if item.void:
                continue
            item.draft.observed_at = (
                item.line_date
                or next((self.section_dates[s] for s in item.sections if s in self.section_dates), None)
                or item.stamp
                or self._entry_date(item)
                or item.prose_date
                or self.file_date
            )
            if item.entry not in self.log_entries or item.entry not in self.entry_dates:
                item.draft.entry = ""  # not a dated entry: no narrative to keep together
            self.result.drafts.append(item.draft)
        self.pending = []
        return self.result


_STATUSES = ("done", "pending", "in_progress", "blocked")


def _share_status(title: str) -> str | None:
    """The status a heading's share done gives its title ("### 4. Integrations - **50%
    complete**" is in progress, "#### UI Components (100% Complete)" done), or None."""
    share = share_done(title)
    if share is None:
        return None
    return "done" if share >= 100 else "pending" if share <= 0 else "in_progress"


_LEAD_WORDS = 16  # a paragraph that introduces a list is short


def _gone_lead(body: str, lexicon: Lexicon) -> bool:
    """A short paragraph ending in a colon that records what follows as gone ("The following
    were removed during the API cleanup:", "Deleted in the refactor:") or as what was
    ("**Before:**", "Historical context:"), or that opens with a removal label over a short
    count ("**Deleted:** 8 files, 372 lines")."""
    words = body.casefold().split()
    if not body.rstrip().endswith((":", "：")):
        # "**Deleted:** 8 files, 372 lines": a short count under a removal label heads its list too
        label, colon, _ = body.partition(":")
        return bool(colon) and len(words) <= _LEAD_WORDS // 2 and label.strip(" *_`").casefold() in GONE_WORDS
    return len(words) <= _LEAD_WORDS and (any(w.strip("*_`.,:") in GONE_WORDS for w in words)
                                          or _tells_what_was(body.rstrip(" :："), lexicon))


def _tells_what_was(label: str, lexicon: Lexicon) -> bool:
    """A label or a lead that tells what was ("Before: …", "Historical context:", "Legacy: …"):
    a heading of that name would be a history section."""
    return bool(label) and section_kind(label, lexicon) == HISTORY


def _is_name(text: str) -> bool:
    """A heading that can declare an entity: a short name, not a sentence or a `key: value`."""
    return len(text) <= 60 and len(text.split()) <= 5 and not any(ch in text for ch in ":：。.!?")
