"""Patterns spelled for speed say what the patterns they stand for say, on every line of the
real memory files in the repository and on the edge cases each rewrite could get wrong."""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

import pytest

from memory_autopsy.dates import YEAR
from memory_autopsy.ingest import annotations, reading
from memory_autopsy.ingest.annotations import strip_emphasis

ROOT = Path(__file__).resolve().parent.parent
EDGES = [
    "", "2025", "in 202 5", "v1234", "١٢٣٤", "２０２５年", "a 12-34-56", "2026-01-05", "x-2026-01-05y",
    "12026-01-05", "2026-1-05", "**2026-01-05**", "(done)", "(in progress) (done)", "（完成）",
    "(" + "x" * 40 + ")", "(" + "x" * 41 + ")", "((done))", "(a (b) c)", "**bold** and __under__ `code`",
    "*one* _one_", "a:b", 'e: s = "v"', 'e (aka f): s = "v"', 'e (aka: f, g): env:KEY = "v" -- 2025-01-01',
    'x: y: z = "v"', 'a(b): c = "d"', '= "v"', '<button wire:click="x">', 'e:s="v"', 'e : s  =  "v" ; valid_from=2025',
    "e" * 79 + ': s = "v"', "e" * 80 + ': s = "v"', "e" * 81 + ': s = "v"', 'e\n: s = "v"', 'entity: slot = "unclosed',
    'a "quoted": s = "v"', 'e: s = "v"\n', 'e: s = "v" (source: x)', "ok ✅ — fertig", "\u00e9t\u00e9: s = \"v\"",
]


def _lines() -> list[str]:
    lines = set(EDGES)
    for folder in ("eval/real/files", "examples", "tests/fixtures"):
        for path in sorted((ROOT / folder).rglob("*")):
            if path.is_file() and path.suffix in (".md", ".mdc", ".jsonl", ".json", ".txt"):
                text = path.read_text(encoding="utf-8", errors="replace")
                lines.update(text.splitlines())
                lines.update(line.strip().lstrip("-*+ ").strip() for line in text.splitlines())
    sys.path.insert(0, str(ROOT / "bench"))
    import generate  # the bench's markdown: explicit records with namespaced slots, windows, sources

    with tempfile.TemporaryDirectory() as folder:
        for shape in ("md", "table", "copies"):
            text = generate.generate_shape(shape, 1000, Path(folder) / f"{shape}.md", seed=5).read_text("utf-8")
            lines.update(line.lstrip("-|* ") for line in text.splitlines())
    return sorted(lines)


LINES = _lines()


def test_the_lines_are_many() -> None:
    assert len(LINES) > 3000  # the real files are in the repository: the tests below read them


def test_the_year_test_finds_four_digits_where_a_repeat_of_four_did() -> None:
    fast, spelled = re.compile(YEAR), re.compile(r"\d{4}")
    assert [line for line in LINES if (fast.search(line) is None) is not (spelled.search(line) is None)] == []
    assert fast.search("١٢٣٤") and fast.search("x２０２５") and not fast.search("in 202 5")


def test_a_stamp_is_looked_for_only_in_a_line_it_could_be_in() -> None:
    stamped = [line for line in LINES if reading._STAMP.search(line)]
    assert len(stamped) > 20
    assert [line for line in stamped if not reading._DAY_DASHES.search(line)] == []


def test_the_ascii_paren_finds_what_the_paren_finds_in_ascii_text() -> None:
    ascii_lines = [line for line in LINES if line.isascii() and "(" in line]
    assert len(ascii_lines) > 200
    for line in ascii_lines:
        fast = [(m.span(), m.group(1)) for m in reading._ASCII_PAREN.finditer(line)]
        assert fast == [(m.span(), m.group(1)) for m in reading._PAREN.finditer(line)], line


def test_a_status_in_parentheses_is_read_in_both_scripts() -> None:
    from memory_autopsy.lexicon import default_lexicon

    lexicon = default_lexicon()
    assert reading.status_of("Ship the fetcher (done)", lexicon) == "done"
    assert reading.status_of("Ship the fetcher （完成）", lexicon) == "done"
    assert reading.status_of("Ship the fetcher (" + "x" * 41 + ") (blocked)", lexicon) == "blocked"


def test_the_explicit_record_splits_each_line_as_the_lazy_entity_did() -> None:
    lazy = re.compile(annotations.EXPLICIT.pattern.replace("{1,80})", "{1,80}?)", 1))
    assert lazy.pattern != annotations.EXPLICIT.pattern
    matched = 0
    for line in LINES:
        fast, slow = annotations.EXPLICIT.match(line), lazy.match(line)
        assert (fast is None) is (slow is None), line
        if fast is not None and slow is not None:
            matched += 1
            assert fast.groupdict() == slow.groupdict() and fast.span() == slow.span(), line
    assert matched > 300


@pytest.mark.parametrize("line", ["**bold** and __under__ `code`", "  plain  ", "*one* _one_", "a__b", "", "``"])
def test_emphasis_is_stripped_as_the_pattern_strips_it(line: str) -> None:
    assert strip_emphasis(line) == annotations._EMPHASIS.sub("", line).strip()


def test_emphasis_is_stripped_as_the_pattern_strips_it_on_every_line() -> None:
    assert [line for line in LINES if strip_emphasis(line) != annotations._EMPHASIS.sub("", line).strip()] == []


def test_a_lone_dot_is_the_dot_the_lookbehind_found() -> None:
    from memory_autopsy.normalize import _LONE_DOT, _PUNCT

    lone, punct = re.compile(r"(?<!\d)\.|\.(?!\d)"), re.compile(r"[^\w\s.]|(?<!\d)\.|\.(?!\d)|_")
    cases = [*LINES, "1.", ".1", "a.b", "..", "1..2", "v1.2.3.", "٣.٤", ". 1.x", "x.1"]
    assert [line for line in cases if _LONE_DOT.sub(" ", line) != lone.sub(" ", line)] == []
    assert [line for line in cases if _PUNCT.sub(" ", line) != punct.sub(" ", line)] == []


MONTH_CASES = [
    "Sept 5, 2025", "sep 5 2025", "September 2025", "May 2025", "Mar. 3rd, 2024", "MAY 1 2024", "june 2025",
    "Jun 2025", "3 Sept. 2025", "12th September, 2025", "Augusta 2025", "Decemberr 5, 2025", "jan 1, 2026 and Feb 2026",
    "merged on July 3, 2025 (observed Aug 4, 2025)", "2025年3月", "a Sep 2025", "1.Jan 2025", "0Jan 2025",
]


def test_the_month_names_grouped_by_letter_read_each_date_the_flat_alternation_read() -> None:
    from memory_autopsy import dates

    grouped = dates.by_first_letter(list(dates._MONTHS))
    fast = dates._PROSE_DATE
    assert grouped in fast.pattern and dates._MONTH not in fast.pattern
    slow = re.compile(fast.pattern.replace(grouped, dates._MONTH), fast.flags)
    found = 0
    for line in [*LINES, *MONTH_CASES]:
        matched = [(m.span(), m.groups()) for m in fast.finditer(line)]
        assert matched == [(m.span(), m.groups()) for m in slow.finditer(line)], line
        found += len(matched)
    assert found > 300
    assert dates.find_dates("merged on July 3, 2025 (observed Aug 4, 2025)") == ["2025-07-03", "2025-08-04"]
    assert dates.parse_date("Sept 5, 2025") == "2025-09-05" and dates.parse_date("May 2025") == "2025-05"


def test_find_dates_tests_for_a_year_as_its_search_reads_one() -> None:
    """Its year test comes first: it must take the wide digits its search reads."""
    from memory_autopsy.dates import find_dates

    assert find_dates("２０２５年３月 に移行") == ["2025-03"]
    assert find_dates("merged ２０２５-０３-０１") == ["2025-03-01"]
    assert find_dates("Merged on July 3, 2025") == ["2025-07-03"] and find_dates("port 808 on May 3") == []
