"""From paths on disk to one Store: walking, decoding, dispatch by content, alias folding."""

from __future__ import annotations

import io
import itertools
import json
import os
import re
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, cast

from memory_autopsy import parallel
from memory_autopsy.ingest.aliases import resolve_entities
from memory_autopsy.ingest.cache import ParseCache
from memory_autopsy.ingest.confined import OUTSIDE, LeadsOutside, Roots, read_inside
from memory_autopsy.ingest.dialects import detect, hidden_folder, is_memory_file
from memory_autopsy.ingest.frontmatter import Loader, read_front_matter
from memory_autopsy.ingest.json_store import (
    JsonResult,
    is_pretty_stream,
    parse_json_document,
    parse_json_lines,
    parse_json_stream,
)
from memory_autopsy.ingest.labels import settle_decided, settle_labels
from memory_autopsy.ingest.long_lines import MAX_LINE_BYTES, bounded
from memory_autopsy.ingest.reach import MemoryFile, read_memory_file
from memory_autopsy.ingest.records import (
    Draft,
    Item,
    Record,
    draft_row,
    draft_values,
    finish,
    finish_sent,
    ordered,
    ordered_run,
    record_values,
    row_digest,
    sent,
)
from memory_autopsy.lexicon import Lexicon, default_lexicon
from memory_autopsy.model import HEADING_KIND, Declaration, Fact, Problem, Store
from memory_autopsy.vocabulary import DEFAULT_VOCABULARY, Vocabulary

if TYPE_CHECKING:
    from memory_autopsy.ingest.markdown import Cut, Parser

MAX_BYTES = 1024 * 1024 * 1024


class Source(NamedTuple):
    """One memory file: its display path and its bytes (read once, kept for fixes)."""

    path: str
    data: bytes


def display_path(path: Path | str) -> str:
    text = str(path).replace(os.sep, "/")
    return text[2:] if text.startswith("./") else text


def expand(paths: Iterable[str], roots: Roots | None = None) -> tuple[list[str], list[Problem]]:
    """Files named or found under directories, in a stable order. A link that leads outside
    `roots` is listed as it is, never followed (the reader refuses it by name), so neither the
    content nor the names under an outside folder, nor whether its target exists, are told."""
    given_paths = list(paths)
    roots = roots or Roots.for_paths(given_paths)
    files: list[str] = []
    problems: list[Problem] = []
    for given in given_paths:
        path = Path(given)
        if path.is_symlink() and not roots.inside(given):
            files.append(display_path(given))
        elif path.is_dir():
            found = sorted(
                p for p in path.rglob("*")
                if is_memory_file(p.name) and (p.is_file() or (p.is_symlink() and not roots.inside(str(p))))
                and not any(hidden_folder(part) for part in p.relative_to(path).parts[:-1])
            )
            files.extend(display_path(p) for p in found)
        elif path.is_file():
            files.append(display_path(given))
        elif path.exists():
            problems.append(Problem(display_path(given), 1, "not a regular file"))
        else:
            problems.append(Problem(display_path(given), 1, "no such file or directory"))
    return list(dict.fromkeys(files)), problems


def read_sources(files: Sequence[str], roots: Roots | None = None) -> tuple[list[Source], list[Problem]]:
    """Each file's bytes, read inside `roots` (by default the working directory and the folders
    of files named outside it): a link that leads out is a problem naming the link, unread."""
    roots = roots or Roots.for_paths(files)
    sources: list[Source] = []
    problems: list[Problem] = []
    for name in files:
        try:
            sources.append(Source(name, read_inside(name, roots, MAX_BYTES)))
        except LeadsOutside:
            problems.append(Problem(name, 1, OUTSIDE))
        except OSError as error:  # its strerror says it whole (read_inside)
            problems.append(Problem(name, 1, error.strerror or f"unreadable: {error}"))
    return sources, problems


def load_sources(
    sources: Iterable[Source],
    vocabulary: Vocabulary = DEFAULT_VOCABULARY,
    problems: Sequence[Problem] = (),
    lexicon: Lexicon | None = None,
    cache: ParseCache | None = None,
    jobs: int = 1,
) -> Store:
    """Parse sources one at a time (a source's bytes are dropped before the next). `jobs`: the
    processes a large store read without the cache may be read and derived in (Settings.jobs)."""
    drafts: list[Draft] = []
    # The drafts and, in their places, the records read whole and the parse cache's ready rows.
    items: list[Item] = []
    named: list[str] = []
    labels: list[str] = []
    declarations: list[Declaration] = []
    all_problems = list(problems)
    related: set[str] = set()
    paths: list[str] = []
    files: list[MemoryFile] = []
    origins: list[JsonResult] = []  # with the cache: the results whose items `items` holds, in order
    words = lexicon or default_lexicon()
    for source in sources:
        paths.append(source.path)
        source = _long_lines_out(source, all_problems)
        if source.path.lower().endswith(_MARKDOWN):
            files.append(read_memory_file(source.path, source.data))
        if cache is not None:
            result = _parse_cached(source, lexicon, cache, origins)
        else:
            result = _read_in_parts(source, vocabulary, words, jobs) or parse_source(source, lexicon)
        if not (result.items() or result.problems or result.declarations or result.references):
            all_problems.append(Problem(source.path, 1, f"no facts read ({_why_empty(source)})"))
        drafts.extend(result.drafts)
        items.extend(result.items())
        named.extend(result.named)
        labels.extend(result.labels)
        declarations.extend(result.declarations)
        all_problems.extend(result.problems)
        related.update(result.related)
        del result, source  # the file's bytes go with its last reference (a 1M store: 300 MB)
    settle_labels(drafts, declarations, vocabulary, lexicon, named, labels)
    del drafts
    kept_origins: tuple[tuple[str | None, ...], tuple[Fact, ...]] | tuple[()] = ()
    if cache is None:
        facts = _finished(items, vocabulary, words, jobs)
    else:
        facts, digests = _finish_cached(items, origins, cache, vocabulary, words)
        kept_origins = (tuple(digests), tuple(facts))
        del origins, digests
        cache.flush()  # what is left: parses without drafts, and entries read that a run amends
    del items
    memo = cache.memo if cache is not None else None
    # A heading's claim is no fact: it names no entity, and only the status and quantity layers read it
    headings = tuple(f for f in facts if f.kind == HEADING_KIND)
    if headings:
        facts = [f for f in facts if f.kind != HEADING_KIND]
    facts, declarations, alias_pairs, related = resolve_entities(facts, declarations, related, memo)
    return Store(
        facts=tuple(facts),
        headings=headings,
        declarations=tuple(declarations),
        problems=tuple(all_problems),
        related_entities=frozenset(related),
        paths=tuple(paths),
        alias_pairs=tuple(alias_pairs),
        files=tuple(files),
        cue_lexicon=words,
        cue_vocabulary=vocabulary,
        origins=kept_origins,
    )


def _finished(items: list[Item], vocabulary: Vocabulary, words: Lexicon, jobs: int) -> list[Fact]:
    """The facts of the items in order. With more than one job, the items are cut into runs and
    each run but the first is derived in a child (memory_autopsy.parallel) that sends back
    what it derived, PIECE items at a time, while this process derives the first run; a run
    whose child fails is derived here. A child's run costs it more than its derivation (it
    pickles what it sends, and copies each page it touches), so the first run is the longest."""
    bounds = [0, len(items)]
    if jobs != 1:  # a ready row needs no deriving: the runs hold about equal shares of the others
        derived = [i for i, kind in enumerate(map(type, items)) if kind is not list]
        jobs = parallel.jobs_of(jobs, len(derived))
        bounds = [0, *(derived[i] for i in _runs(len(derived), jobs, DERIVE_SHARE)[1:-1]), len(items)]
    children = [parallel.fork(partial(_sent, items, start, end, vocabulary, words))
                for start, end in zip(bounds[1:], bounds[2:])]
    with parallel.beside(children):
        facts = _facts(items, 0, bounds[1], vocabulary, words)
    for start, end, child in zip(bounds[1:], bounds[2:], children):
        try:
            for piece in child.pieces():
                first = len(facts)
                facts += map(finish_sent, items[first : first + len(piece)], piece, itertools.repeat(vocabulary),
                             itertools.count(first), itertools.repeat(words))
        except parallel.ChildFailed:
            del facts[start:]
            facts += _facts(items, start, end, vocabulary, words)
    return facts


# A child's share of the work against this process's 1 (measured on the bench's JSONL and
# markdown stores). Deriving a store's read items: the child's first writes to the pages it
# shares with this process copy them, and what it sends costs it a third again. Reading a JSONL
# store's lines: the child forks before the store is read, and this process pays for taking
# in what it sends. Reading a markdown file: each side parses its part and derives its facts,
# and the child pickles what it sends.
DERIVE_SHARE = 0.7
READ_SHARE = 1.1
PARSE_SHARE = 0.9


def _runs(n: int, jobs: int, share: float) -> list[int]:
    """The bounds of `jobs` runs of n items, each run after the first `share` times as long."""
    weights = [1.0] + [share] * (jobs - 1)
    total = sum(weights)
    bounds = [0]
    for weight in weights:
        bounds.append(bounds[-1] + round(n * weight / total))
    bounds[-1] = n
    return bounds


def _facts(items: list[Item], start: int, end: int, vocabulary: Vocabulary, words: Lexicon) -> list[Fact]:
    return [ordered(item, i) if isinstance(item, list) else finish(item, vocabulary, i, False, words)
            for i, item in zip(range(start, end), itertools.islice(items, start, end))]


# Items per piece a child sends: this process reads one while the child pickles the next.
PIECE = 5000


def _sent(items: list[Item], start: int, end: int, vocabulary: Vocabulary, words: Lexicon) -> Iterator[list[Any]]:
    # All derived before any is sent: this process reads the pipe only once its own run is
    # done, and a child that sent as it went would wait on a full pipe meanwhile.
    yield from _in_pieces([sent(item, vocabulary, words) for item in itertools.islice(items, start, end)])


def _in_pieces(values: list[Any]) -> Iterator[list[Any]]:
    """What a child sends, PIECE values at a time."""
    for first in range(0, len(values), PIECE):
        yield values[first : first + PIECE]


def decode(source: Source) -> str | Problem:
    """The file's text, or why it has none; a byte that is not UTF-8 turns the file down (the
    parser reads past it: `_read_text`)."""
    text, problem = _read_text(source, strict=True)
    return text if problem is None else problem


_UTF16 = (b"\xff\xfe", b"\xfe\xff")


def _read_text(source: Source, strict: bool) -> tuple[str, Problem | None]:
    """The file's text and what was wrong with it ("" when it has no text). Not `strict`, a file
    with a byte that is not UTF-8 (a stray Latin-1 "é" in a long log) is read with each such byte
    replaced (U+FFFD), and the first is reported on its line: one byte does not cost the file
    every claim. A fix keeps such a byte as it was (fixes.rewrite reads and writes the file's
    bytes through surrogateescape)."""
    data = source.data
    if not data or data.isspace():  # what `not data.strip()` says, without copying the file
        return "", Problem(source.path, 1, "empty file")
    if b"\x00" in data[:8192] and not data.startswith(_UTF16):
        return "", Problem(source.path, 1, "binary file (NUL bytes)")
    try:
        if data.startswith(_UTF16):
            return data.decode("utf-16"), None
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        bad = f"not UTF-8 (invalid byte at offset {error.start}, line {line})"
        if strict or data.startswith(_UTF16):
            return "", Problem(source.path, 1, bad)
        return data.decode("utf-8-sig", "replace"), Problem(source.path, line, f"{bad}: read with such bytes replaced")


def _why_empty(source: Source) -> str:
    dialect = detect(source.path, source.data[:4096])
    if dialect.reader == "json":
        return f"read as {dialect.system}: no claim, observation or memory block in it"
    return f"read as {dialect.system}: no list item, table row, record or sentence holds a claim"


def _long_lines_out(source: Source, problems: list[Problem]) -> Source:
    """The source with each line past MAX_LINE_BYTES left out (ingest.long_lines)."""
    if len(source.data) <= MAX_LINE_BYTES:
        return source
    head = source.data[:64].lstrip(b"\xef\xbb\xbf \t\r\n")
    suffix = Path(source.path).suffix.lower()
    document = suffix == ".json" or (suffix != ".jsonl" and suffix not in _MARKDOWN and head[:1] in (b"{", b"["))
    data, found = bounded(source.path, source.data, document)
    problems.extend(found)
    return source._replace(data=data) if found else source


def parse_source(source: Source, lexicon: Lexicon | None = None, front_matter: Loader | None = None) -> JsonResult:
    suffix = Path(source.path).suffix.lower()
    stream = suffix == ".jsonl" and is_pretty_stream(source.data)
    if suffix == ".jsonl" and not source.data.startswith(_UTF16) and not stream:
        return _json_lines_bytes(source)
    text, problem = _read_text(source, strict=False)
    if problem is not None and not text:
        return JsonResult(problems=[problem])
    result = _parse_text(source, text, suffix, stream, lexicon, front_matter)
    if problem is not None:
        result.problems.insert(0, problem)
    return result


def _parse_text(source: Source, text: str, suffix: str, stream: bool, lexicon: Lexicon | None,
                front_matter: Loader | None) -> JsonResult:
    if not text.strip():
        return JsonResult(problems=[Problem(source.path, 1, "empty file")])
    stem = Path(source.path).stem
    if suffix in _MARKDOWN:
        return _markdown(text, source.path, stem, lexicon, front_matter)
    if suffix == ".jsonl":
        streamed = parse_json_stream(text, source.path, stem) if stream else None
        if streamed is not None:
            return streamed
        lines = text.splitlines()
        del text
        return parse_json_lines(lines, source.path, stem)
    return _json_or_markdown(text, source.path, stem, strict=suffix == ".json", lexicon=lexicon,
                             front_matter=front_matter)


def _json_lines_bytes(source: Source) -> JsonResult:
    """JSONL read as bytes, line by line: a large store is never copied into one str."""
    data = source.data
    problem = _unusable(source)
    if problem is not None:
        return JsonResult(problems=[problem])
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    # Line by line from a stream over the bytes (each line keeps its `\n`, JSON whitespace):
    # a split would hold every line of the store at once, a third more than its bytes.
    return parse_json_lines(io.BytesIO(data), source.path, Path(source.path).stem)


def _parse_cached(
    source: Source, lexicon: Lexicon | None, cache: ParseCache, origins: list[JsonResult],
) -> JsonResult:
    """A JSONL store is cached in spans, each the lines parse_json_lines decodes at once (its
    lines are independent records): a line appended to a large store misses one span. Each
    result, read or parsed, goes to `origins` in the order of its items."""
    body = _jsonl_body(source)
    if body is None:  # anything else is cached whole
        result = cache.get(source.path, source.data, kept=True)
        if result is None:
            result = parse_source(source, lexicon, cache.front_matter)
            cache.defer(source.path, source.data, result)
        origins.append(result)
        return result
    rows: list[Item] = []
    merged = JsonResult(rows=rows)
    stem = Path(source.path).stem
    for start, data in _spans(body):
        part = f"lines from {start + 1}"
        result = cache.get(source.path, data, part, kept=True)
        if result is None:
            result = parse_json_lines(bytes(data).split(b"\n"), source.path, stem, first=start + 1,
                                      strings=cache.strings)
            cache.defer(source.path, data, result, part)
        origins.append(result)
        _merge(merged, result)
    return merged


def _merge(into: JsonResult, part: JsonResult) -> None:
    """A part of a file (a span, the lines a child read) read after `into`'s, added to it."""
    into.drafts += part.drafts
    cast("list[Item]", into.rows).extend(part.items())
    into.named += part.named
    into.declarations += part.declarations
    into.problems += part.problems
    into.related |= part.related
    into.references += part.references


_MARKDOWN = (".md", ".markdown", ".mdc")


def _read_in_parts(source: Source, vocabulary: Vocabulary, words: Lexicon, jobs: int) -> JsonResult | None:
    """A large JSONL store or markdown file read in parts (`_lines_in_parts`, `_markdown_in_parts`);
    None for anything else, or where one process reads it."""
    if jobs == 1:
        return None
    suffix = Path(source.path).suffix.lower()
    if suffix == ".jsonl":
        return _lines_in_parts(source, vocabulary, words, jobs)
    return _markdown_in_parts(source, vocabulary, words, jobs) if suffix in _MARKDOWN else None


def _lines_in_parts(source: Source, vocabulary: Vocabulary, words: Lexicon, jobs: int) -> JsonResult | None:
    """A large JSONL store read in as many parts as it has jobs (None for anything else: one
    process reads it). The first part is read here and each other in a child (memory_autopsy.
    parallel); every part is cut at a line end and read as parse_json_lines reads the store.
    A part of canonical records alone (the shape a large store has) is sent back as its facts'
    values, derived (`ready rows`, which the loader only orders), with its problems and the
    names its records relate; a part with anything else in it (a draft, whose label the whole
    store settles; a declaration, a reference), and the part of a child that fails, is read
    here again. This process derives its own part's records while the children work."""
    jobs = parallel.jobs_of(jobs, source.data.count(b"\n"))
    body = _jsonl_body(source) if jobs > 1 else None
    if body is None:
        return None
    path, stem = source.path, Path(source.path).stem
    cuts = [0]
    for bound in _runs(len(body), jobs, READ_SHARE)[1:-1]:
        cuts.append(body.find(b"\n", max(bound, cuts[-1])) + 1 or len(body))
    cuts.append(len(body))
    firsts = [1]
    for start, end in zip(cuts, cuts[1:-1]):
        firsts.append(firsts[-1] + body.count(b"\n", start, end))
    parts = list(zip(cuts, cuts[1:], firsts))
    children = [parallel.fork(partial(_part_sent, body, part, path, stem, vocabulary, words)) for part in parts[1:]]
    with parallel.beside(children):
        result = _part(body, parts[0], path, stem)
        if _records_only(result):
            result.rows = _ready_rows(result, vocabulary, words)
    for part, child in zip(parts[1:], children):
        if not _received(child, result):
            _merge(result, _part(body, part, path, stem))
    return result


def _markdown_in_parts(source: Source, vocabulary: Vocabulary, words: Lexicon, jobs: int) -> JsonResult | None:
    """A large markdown file read in as many parts as it has jobs, each from a heading that
    opens an entry (markdown.cuts) to the next. The first part is read here and each other in
    a child (memory_autopsy.parallel) that resumes at its cut; each settles its part's dates
    and the labels it alone decides, and derives its facts (`_part_done`). None (the file is
    read in one process) where a reading does not stand at a cut as the part after it
    assumes (a heading in a code fence, a stamp above it), where a part states a file date
    below one stated above it, or where a child fails."""
    jobs = parallel.jobs_of(jobs, source.data.count(b"\n"))
    text = decode(source) if jobs > 1 else None
    if not isinstance(text, str):
        return None
    from memory_autopsy.ingest.markdown import Parser, cuts  # a warm run reads no markdown

    lines = text.splitlines()
    del text
    meta, start = read_front_matter(lines)
    parser = Parser(source.path, meta, Path(source.path).stem, words)
    parser.describe(lines, start)
    initial = parser.file_date
    found = cuts(lines, [start + bound for bound in _runs(len(lines) - start, jobs, PARSE_SHARE)[1:-1]], words)
    if not found:
        return None
    ends = [cut.at for cut in found[1:]] + [len(lines)]
    children = [parallel.fork(partial(_markdown_sent, parser, lines, cut, end, after, vocabulary, words))
                for cut, end, after in zip(found, ends, [*found[1:], None])]
    with parallel.beside(children):
        whole = parser.read(lines, start, found[0].at) and parser.reaches(lines, found[0])
        done = _part_done(parser, vocabulary, words) if whole else None
    if done is None:
        parallel.stop(children)
        return None
    parts, items = [done[0]], done[1]
    for child in children:
        taken = _taken(child)
        if taken is None:
            break
        parts.append(taken[0])
        items += [Draft(*item) if type(item) is tuple else item for item in taken[1]]  # a draft's fields
    # A file date is the first one the file states: a part that finds one after a part above it
    # did dated its lines by the wrong one.
    dates = [part.file_date if part.file_date != initial else None for part in parts]
    if len(parts) <= len(children) or any(date and any(dates[:k]) for k, date in enumerate(dates)):
        parallel.stop(children)
        return None
    file_date = next(filter(None, dates), initial)
    drafts = [item for item in items if type(item) is Draft]
    for draft in drafts:  # a part's lines that no date of its own reached
        if draft.observed_at is None:
            draft.observed_at = file_date
    result = JsonResult(drafts=drafts, rows=items)
    for part in parts:
        result.declarations += part.declarations
        result.problems += part.problems
        result.references += part.references
        result.named += part.named
        result.labels += part.labels
    return result


class _MarkdownPart(NamedTuple):
    """What reading a part of a markdown file found besides its lines (a child sends it first)."""

    declarations: list[Declaration]
    problems: list[Problem]
    references: list[tuple[int, str]]
    file_date: str | None  # the file's date as the part found it (first: at the file's start)
    named: list[str]  # the entities its ready rows name
    labels: list[str]  # the labels it settled (labels.settle_decided)


def _part_done(parser: Parser, vocabulary: Vocabulary, words: Lexicon) -> tuple[_MarkdownPart, list[Item]]:
    """A part read: its dates settled (markdown.Parser.finish), and the labels it alone
    decides (labels.settle_decided); each line's fact's values (a ready row), or its draft where
    only the store settles the line's label, or its date (a line only a file date stated above
    the part would date)."""
    own = parser.finish()
    dated = [draft for draft in own.drafts if draft.observed_at is not None]
    undecided, labels = settle_decided(dated, own.declarations, vocabulary, words)
    left = {id(draft) for draft in undecided} | {id(draft) for draft in own.drafts if draft.observed_at is None}
    items: list[Item] = [draft if id(draft) in left else draft_values(draft, vocabulary, words) for draft in own.drafts]
    named = [draft.entity for draft in own.drafts if draft.named and not draft.label and id(draft) not in left]
    return _MarkdownPart(own.declarations, own.problems, own.references, parser.file_date, named, labels), items


def _markdown_sent(parser: Parser, lines: list[str], cut: Cut, end: int, after: Cut | None, vocabulary: Vocabulary,
                   words: Lexicon) -> Iterator[Any]:
    """What a child sends of a markdown file's part, from `cut` to `end` (the next cut, `after`,
    or the file's end): its _MarkdownPart, then its items (`_part_done`; a draft as its fields),
    PIECE at a time. None alone when the reading does not stand at `after` as the part after it
    assumes."""
    parser.resume(lines, cut)
    clean = parser.read(lines, cut.at, end)  # the file's end may leave a table open
    if after is not None and not (clean and parser.reaches(lines, after)):
        yield None
        return
    part, items = _part_done(parser, vocabulary, words)
    yield part
    yield from _in_pieces([draft_row(item) if type(item) is Draft else item for item in items])


def _part(body: bytes, part: tuple[int, int, int], path: str, stem: str) -> JsonResult:
    """The lines of body[start:end] (cut after a line end, or at the end), the first numbered
    `first`, read from a stream over the whole body (which is not copied)."""
    start, end, first = part
    stream = io.BytesIO(body)
    stream.seek(start)
    lines = stream if end == len(body) else itertools.islice(stream, body.count(b"\n", start, end))
    return parse_json_lines(lines, path, stem, first=first)


def _records_only(result: JsonResult) -> bool:
    """Whether a part holds canonical records (and problems) alone: nothing the rest of the
    store can change. A JSONL parse's rows are its records and its drafts, so without a draft
    they are all records."""
    return not (result.drafts or result.declarations or result.named or result.references)


def _part_sent(body: bytes, part: tuple[int, int, int], path: str, stem: str, vocabulary: Vocabulary,
               words: Lexicon) -> Iterator[Any]:
    """What a child sends of its part: its problems and related names, then its records'
    values PIECE at a time; or None alone, for a part this process must read itself."""
    result = _part(body, part, path, stem)
    if not _records_only(result):
        yield None
        return
    rows = _ready_rows(result, vocabulary, words)
    yield result.problems, result.related
    yield from _in_pieces(rows)


def _ready_rows(result: JsonResult, vocabulary: Vocabulary, words: Lexicon) -> list[Item]:
    """A part of canonical records alone (`_records_only`) as its facts' values, derived."""
    return [record_values(record, vocabulary, words) for record in cast("list[Record]", result.rows)]


def _received(child: parallel.Child, result: JsonResult) -> bool:
    """Whether a child's part was added to `result` (its rows, problems and related names)."""
    taken = _taken(child)
    if taken is None:
        return False
    (problems, related), rows = taken
    cast("list[Item]", result.rows).extend(rows)
    result.problems += problems
    result.related |= related
    return True


def _taken(child: parallel.Child) -> tuple[Any, list[Any]] | None:
    """What a child that reads a part sent: its first piece and the values of the others; None
    for a child that failed, or that sent None first (its part is read here: it is let end)."""
    values: list[Any] = []
    try:
        pieces = child.pieces()
        head = next(pieces, None)
        if head is None:
            deque(pieces, maxlen=0)
            return None
        for piece in pieces:
            values += piece
    except parallel.ChildFailed:
        return None
    return head, values


def _finish_cached(items: list[Any], origins: list[JsonResult], cache: ParseCache,
                   vocabulary: Vocabulary, words: Lexicon) -> tuple[list[Any], list[str | None]]:
    """The facts of a run through the cache (each item replaced by its fact in place), and the
    digest of each fact a row gives (records.row_digest; None for a draft with a label, whose
    fact depends on the rest of the store): read from the entry, or taken now of a parsed
    file's fact. `origins` are the results whose items `items` holds, one after the other: a
    result read whole from an entry (no drafts, a digest for every row) is made in one pass.
    A parsed file's entry (or span's) is written once its last item (a draft or a record) is
    finished, with its digests and derivations, and each result is let go once read, so the
    file's drafts go then, not at the run's end (a 1M-fact store held every draft, derivation
    and fact at once)."""
    last = cache.last_items()
    digests: list[str | None] = [None] * len(items)
    start = 0
    origins.reverse()
    while origins:
        result = origins.pop()
        end = start + len(result.items())
        kept = result.digests
        if not result.drafts and kept is not None and all(kept):  # a digest is never empty
            items[start:end] = ordered_run(items[start:end], start)
            digests[start:end] = kept
            start = end
            continue
        if kept is None:
            kept = result.digests = [None] * (end - start)
        for i in range(start, end):
            item = items[i]
            ready = isinstance(item, list)
            fact = items[i] = ordered(item, i) if ready else finish(item, vocabulary, i, True, words)
            if not (type(item) is Draft and item.label):
                digest = kept[i - start]
                if digest is None:
                    digest = kept[i - start] = row_digest(fact)
                digests[i] = digest
            if not ready and id(item) in last:
                cache.write_deferred(last[id(item)], items[start : i + 1])
        start = end
    return items, digests


# Records per parse-cache entry of a JSONL store: a line appended to it reads this many again
# (parsed, derived, digested and written: at 5,000 that was ~0.35 s of a 100k store's hook),
# where each entry read costs an open and a decode call (~0.2 ms).
SPAN = 1000


def _spans(body: bytes) -> Iterator[tuple[int, bytes | memoryview]]:
    """Each span's first line (from 0) and its bytes: from a non-blank line, SPAN non-blank
    lines, to the next span's first line (the last span to the end). A span is a view of the
    store's bytes where it can be: hashed for its cache key, and copied only to be parsed."""
    newlines = body.count(b"\n")
    if newlines < SPAN:  # one span at most, found without splitting every line
        offset = index = 0
        while offset <= len(body):
            end = body.find(b"\n", offset)
            end = len(body) if end == -1 else end
            line = body[offset:end]
            if line and not line.isspace():
                yield index, body[offset:]
                return
            offset, index = end + 1, index + 1
        return
    if body[:1].isspace() or re.search(rb"\n\s", body):
        yield from _split_spans(body)
        return
    # No line starts with a space or is empty, but for the end's after a last newline: every
    # line is non-blank, and the spans are found by counting newlines, never splitting the store
    # into its lines (at 100k lines, splitting and joining them again was a tenth of a warm hook).
    lines = newlines + (not body.endswith(b"\n"))
    starts = [0]
    guess = len(body) * SPAN // lines
    for _ in range(SPAN, lines, SPAN):
        start = _after_newlines(body, starts[-1], SPAN, guess)
        guess = start - starts[-1]
        starts.append(start)
    view = memoryview(body)
    for k, start in enumerate(starts):
        end = starts[k + 1] - 1 if k + 1 < len(starts) else len(body)
        yield k * SPAN, view[start:end]


def _after_newlines(body: bytes, start: int, n: int, guess: int) -> int:
    """The offset just after the n-th newline from `start` (there are at least n), found from a
    guess of its distance: one count, then a step per newline the guess was off by."""
    end = min(start + guess, len(body))
    seen = body.count(b"\n", start, end)
    while seen < n:
        end = body.find(b"\n", end) + 1
        seen += 1
    while seen > n:
        end = body.rfind(b"\n", start, end)
        seen -= 1
    return body.rfind(b"\n", start, end) + 1


def _split_spans(body: bytes) -> Iterator[tuple[int, bytes]]:
    """_spans of a store with blank lines, or lines that start with a space, among its lines."""
    lines = body.split(b"\n")
    starts = [i for i, line in enumerate(lines) if line and not line.isspace()][::SPAN] + [len(lines)]
    for start, end in zip(starts, starts[1:]):
        yield start, b"\n".join(lines[start:end])


def _jsonl_body(source: Source) -> bytes | None:
    """The bytes of a JSONL store that parse_source reads line by line, else None."""
    data = source.data
    if Path(source.path).suffix.lower() != ".jsonl" or data.startswith(_UTF16):
        return None
    if is_pretty_stream(data):  # its values span lines: read whole
        return None
    if _unusable(source) is not None:
        return None
    return data[3:] if data.startswith(b"\xef\xbb\xbf") else data


def _unusable(source: Source) -> Problem | None:
    data = source.data
    if not data or data.isspace():
        return Problem(source.path, 1, "empty file")
    if b"\x00" in data[:8192]:
        return Problem(source.path, 1, "binary file (NUL bytes)")
    if not data.isascii():
        decoded = decode(source)
        if isinstance(decoded, Problem):
            return decoded
    return None


def _markdown(text: str, path: str, stem: str, lexicon: Lexicon | None = None,
              front_matter: Loader | None = None) -> JsonResult:
    from memory_autopsy.ingest.markdown import parse_markdown  # a warm run reads no markdown

    parsed = parse_markdown(text, path, stem, lexicon, front_matter)
    return JsonResult(parsed.drafts, parsed.declarations, parsed.problems, references=parsed.references)


def _json_or_markdown(
    text: str, path: str, stem: str, *, strict: bool, lexicon: Lexicon | None = None,
    front_matter: Loader | None = None,
) -> JsonResult:
    try:
        document = json.loads(text)
    except ValueError as error:
        lines = text.splitlines()
        if _looks_like_json_lines(lines, strict=strict):
            return parse_json_lines(lines, path, stem)
        if strict:
            lineno = getattr(error, "lineno", 1)
            message = getattr(error, "msg", str(error))
            return JsonResult(problems=[Problem(path, 1, f"malformed JSON (line {lineno}): {message}")])
        return _markdown(text, path, stem, lexicon, front_matter)
    except RecursionError:
        return JsonResult(problems=[Problem(path, 1, "JSON nested too deeply")])
    return parse_json_document(document, text, path, stem)


def _looks_like_json_lines(lines: list[str], *, strict: bool) -> bool:
    """JSON lines: every line (a .json file) or most lines (a file read by content) parse."""
    stripped = [line.strip() for line in lines if line.strip()]
    if len(stripped) < 2:
        return False
    parsed = sum(_parses_as_object(line) for line in stripped)
    return parsed == len(stripped) if strict else parsed >= len(stripped) / 2


def _parses_as_object(line: str) -> bool:
    if not line.startswith("{"):
        return False
    try:
        return isinstance(json.loads(line), dict)
    except ValueError:
        return False
