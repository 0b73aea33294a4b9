"""Markdown memory files: explicit records, entity claims, section and dated blocks, bullets."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memory_autopsy.dates import parse_date
from memory_autopsy.ingest.annotations import (
    BARE_SLOT,
    EXPLICIT,
    Annotations,
    read_prose,
    read_rest,
    split_aliases,
    strip_emphasis,
)
from memory_autopsy.ingest.frontmatter import read_front_matter
from memory_autopsy.ingest.records import Draft
from memory_autopsy.model import Declaration, Fidelity, Problem

_HEADING = re.compile(r"^(?P<marks>#{1,6})\s+(?P<text>.*?)\s*#*\s*$")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d{1,3}[.)])\s+(?:\[[ xX]\]\s+)?(?P<text>.*)$")
_FENCE = re.compile(r"^\s*(```|~~~)")
_HEADING_DATE = re.compile(r"^(?P<name>.*?)\s*\((?P<date>[^()]*)\)\s*$")
_ENTITY_PREFIX = re.compile(r"^(?P<entity>[^:]{1,60}?)\s*:\s+(?P<claim>\S.*)$")
_SUPPRESS = re.compile(r"<!--\s*memory-autopsy\s*:\s*ignore(?P<rules>[^>]*?)-->", re.I)
_COMMENT = re.compile(r"<!--.*?-->")


@dataclass
class _Section:
    level: int
    entity: str | None
    date: str | None
    line: int
    has_content: bool = False


@dataclass
class MarkdownResult:
    drafts: list[Draft] = field(default_factory=list)
    declarations: list[Declaration] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)


def parse_markdown(text: str, path: str, default_entity: str) -> MarkdownResult:
    lines = text.splitlines()
    meta, start = read_front_matter(lines)
    parser = _Parser(path, meta, default_entity)
    parser.run(lines, start)
    return parser.result


class _Parser:
    def __init__(self, path: str, meta: dict[str, str], default_entity: str) -> None:
        self.path = path
        self.result = MarkdownResult()
        self.file_date = next(
            (parse_date(meta[k]) for k in ("date", "updated", "created", "timestamp") if k in meta),
            None,
        )
        self.file_source = meta.get("source") or None
        named = meta.get("entity") or meta.get("name")
        self.file_entity = named or default_entity
        self.file_fidelity = Fidelity.PARTIAL if named else Fidelity.RESIDUAL
        self.stack: list[_Section] = []
        self.pending_suppress: tuple[str, ...] = ()

    def run(self, lines: list[str], start: int) -> None:
        in_fence = False
        for index in range(start, len(lines)):
            raw = lines[index]
            if _FENCE.match(raw):
                in_fence = not in_fence
                self._mark_content()
                continue
            if in_fence:
                continue
            self._line(raw, index + 1)
        self._close_sections(0)

    def _line(self, raw: str, number: int) -> None:
        suppress = _suppressions(raw)
        text = _COMMENT.sub("", raw).rstrip()
        if not text.strip():
            if suppress:
                self.pending_suppress = suppress
            return
        suppress = suppress + self.pending_suppress
        self.pending_suppress = ()
        heading = _HEADING.match(text)
        if heading:
            self._heading(len(heading["marks"]), heading["text"], number)
            return
        self._mark_content()
        bullet = _BULLET.match(text)
        body = strip_emphasis(bullet["text"] if bullet else text.strip())
        if body:
            self._claim(body, number, is_bullet=bool(bullet), suppress=suppress)

    def _mark_content(self) -> None:
        if self.stack:
            self.stack[-1].has_content = True

    def _heading(self, level: int, text: str, number: int) -> None:
        self._close_sections(level)
        name = strip_emphasis(text)
        date = parse_date(name)
        entity: str | None = None
        if date is None:
            dated = _HEADING_DATE.match(name)
            if dated and parse_date(dated["date"]):
                name, date = dated["name"].strip(), parse_date(dated["date"])
            entity = name if level >= 2 and name else None
        self.stack.append(_Section(level, entity, date, number))

    def _close_sections(self, level: int) -> None:
        while self.stack and self.stack[-1].level >= level:
            section = self.stack.pop()
            if section.entity and not section.has_content:
                self.result.declarations.append(
                    Declaration(section.entity, self.path, section.line, "heading", section.entity)
                )
            if self.stack and section.has_content:
                self.stack[-1].has_content = True

    @property
    def _context_entity(self) -> str | None:
        return next((s.entity for s in reversed(self.stack) if s.entity), None)

    @property
    def _context_date(self) -> str | None:
        return next((s.date for s in reversed(self.stack) if s.date), None) or self.file_date

    def _claim(self, body: str, number: int, *, is_bullet: bool, suppress: tuple[str, ...]) -> None:
        draft = self._explicit(body, number) or self._prose(body, number, is_bullet=is_bullet)
        if draft is None:
            return
        draft.suppress = suppress
        self.result.drafts.append(draft)

    def _explicit(self, body: str, number: int) -> Draft | None:
        match = EXPLICIT.match(body)
        entity = match["entity"].strip() if match else None
        if match is None:
            match = BARE_SLOT.match(body)
            entity = self._context_entity
            if match is None or entity is None:
                return None
        assert entity is not None
        notes = read_rest(match["rest"])
        self._report_bad_dates(notes, number)
        claim = f'{entity}: {match["slot"].strip()} = "{match["value"].strip()}"'
        draft = Draft(
            entity=entity, claim=claim, path=self.path, line=number, fidelity=Fidelity.FULL,
            slot=match["slot"].strip(), value=match["value"].strip(), body=claim,
            aliases=split_aliases(match.groupdict().get("aka")),
        )
        return self._annotate(draft, notes)

    def _prose(self, body: str, number: int, *, is_bullet: bool) -> Draft | None:
        """Bullets are claims; an unbulleted line only as `entity: claim` with a date or source."""
        claim, notes = read_prose(body)
        if not claim:
            return None
        entity, fidelity, rest = self._context_entity, Fidelity.PARTIAL, claim
        prefix = _ENTITY_PREFIX.match(claim)
        named = prefix is not None and _looks_like_entity(prefix["entity"])
        if not is_bullet and not (named and (notes.observed_at or notes.source)):
            return None
        if entity is None or not is_bullet:
            if prefix is not None and named:
                entity, rest = prefix["entity"].strip(), prefix["claim"].strip()
            else:
                entity, fidelity = self.file_entity, self.file_fidelity
        draft = Draft(
            entity=entity, claim=claim, path=self.path, line=number, fidelity=fidelity, body=rest
        )
        return self._annotate(draft, notes)

    def _annotate(self, draft: Draft, notes: Annotations) -> Draft:
        draft.observed_at = notes.observed_at or self._context_date
        draft.valid_from, draft.valid_to = notes.valid_from, notes.valid_to
        draft.source = notes.source or self.file_source
        draft.source_class = notes.source_class
        return draft

    def _report_bad_dates(self, notes: Annotations, number: int) -> None:
        for item in notes.bad_dates:
            self.result.problems.append(Problem(self.path, number, f"unreadable date {item!r}"))


def _looks_like_entity(text: str) -> bool:
    words = text.split()
    return 0 < len(words) <= 4 and not any(ch in text for ch in "/\\[]{}<>|") and "http" not in text


def _suppressions(raw: str) -> tuple[str, ...]:
    rules: list[str] = []
    for match in _SUPPRESS.finditer(raw):
        names = [r.strip() for r in re.split(r"[,\s]+", match["rules"]) if r.strip()]
        rules.extend(names or ["*"])
    return tuple(rules)

