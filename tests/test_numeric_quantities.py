"""One count stated with two numbers in one store is numeric drift, in the forms people write
it: a count with its state ("1948 tests pass", "2129 passing tests", "Tests: 2129 passing"), or a label naming a count
whose value is the number ("Test count: 1,800+", "総ファイル数: 60+"). With dates the older
side is flagged; with none, the later statement is, as unordered (review). Two subjects, two
items of one list, another store or a number that is no count (a ratio, a time, a version)
stay quiet."""

from __future__ import annotations

from itertools import product
from pathlib import Path
from typing import Any

import pytest

from conftest import findings_of, write

# (first statement, second statement): one count, two numbers
PAIRS = [
    ("All {a} tests pass", "{b} tests passing"),
    ("The suite has {a} passing tests", "{b} tests pass"),
    ("Test count: {a}+", "Test count: {b}"),
    ("Tests: {a} passing", "{b} tests passing"),  # the label is the counted noun
    ("Tests: {a} passing", "All {b} tests pass"),
    ("Total files: {a} (src only)", "Total files: {b}"),
    ("総ファイル数: {a}+", "総ファイル数: {b}+"),
    ("チャレンジ総数: {a}問", "総チャレンジ数: {b}問"),
]


def drift(root: Path) -> list[dict[str, Any]]:
    return findings_of(root, "numeric_drift")


def two_files(root: Path, first: str, second: str, *, dated: bool) -> None:
    heading = "## 2026-01-02\n" if dated else "## Summary\n"
    later = "## 2026-03-04\n" if dated else "## Status\n"
    write(root / "memory-bank" / "activeContext.md", f"# Active Context\n\n{heading}- {first}\n")
    write(root / "memory-bank" / "progress.md", f"# Progress\n\n{later}- {second}\n")


@pytest.mark.parametrize(("pair", "dated"), list(product(PAIRS, (True, False))))
def test_one_count_with_two_numbers_is_drift(tmp_path: Path, pair: tuple[str, str], dated: bool) -> None:
    first, second = pair
    two_files(tmp_path, first.format(a="1,800"), second.format(b="2129"), dated=dated)
    (found,) = drift(tmp_path)
    assert found["path"].endswith("activeContext.md") if dated else found["path"].endswith("progress.md")
    assert ("observed" in found["message"]) is dated
    assert "no date says which is current" in found["message"] or dated


@pytest.mark.parametrize("pair", PAIRS)
def test_the_same_number_is_no_drift(tmp_path: Path, pair: tuple[str, str]) -> None:
    first, second = pair
    two_files(tmp_path, first.format(a="2129"), second.format(b="2129"), dated=False)
    assert drift(tmp_path) == []


LOOK_ALIKES = [
    # two subjects, each its own label
    ("Frontend: 120 tests passing", "Backend: 300 tests passing"),
    # not counts: a ratio, a time, a version, a setting
    ("Tests: 37/37", "Tests: 12/12"),
    ("Started: 10:30", "Started: 11:45"),
    ("Version: 1.2", "Version: 1.3"),
    ("Port: 8080", "Port: 3000"),
    # a rule about a count, not a count
    ("Ensure all 200 tests pass before merging", "150 tests passing"),
    # two different counts
    ("5 unit tests failing", "12 integration tests failing"),
    ("Test count: 12", "Total files: 40"),
    ("Tests: 12 failing", "40 tests passing"),
]


@pytest.mark.parametrize(("first", "second"), LOOK_ALIKES)
def test_other_subjects_and_non_counts_stay_quiet(tmp_path: Path, first: str, second: str) -> None:
    two_files(tmp_path, first, second, dated=False)
    assert drift(tmp_path) == []


@pytest.mark.parametrize("items", [2, 3, 5])
def test_items_of_one_list_are_separate_quantities(tmp_path: Path, items: int) -> None:
    lines = "".join(f"- {100 * (i + 1)} tests passing\n" for i in range(items))
    write(tmp_path / "memory-bank" / "progress.md", f"# Progress\n\n## Status\n{lines}")
    assert drift(tmp_path) == []


def test_another_store_holds_another_count(tmp_path: Path) -> None:
    write(tmp_path / "a" / "memory-bank" / "progress.md", "# Progress\n\n## Status\n- Test count: 1800\n")
    write(tmp_path / "b" / "memory-bank" / "progress.md", "# Progress\n\n## Status\n- Test count: 2129\n")
    assert drift(tmp_path) == []


def test_a_dated_log_compares_within_its_own_store(tmp_path: Path) -> None:
    """The newest statement is found in the flagged statement's store, however new another
    store's is."""
    write(tmp_path / "a" / "memory-bank" / "progress.md",
          "# Progress\n\n## 2026-01-02\n- 1800 tests passing\n\n## 2026-02-03\n- 2129 tests passing\n")
    write(tmp_path / "b" / "memory-bank" / "progress.md", "# Progress\n\n## 2026-05-01\n- 90 tests passing\n")
    (found,) = drift(tmp_path)
    assert found["path"].endswith("a/memory-bank/progress.md") and found["line"] == 4
    assert found["related"][0]["line"] == 7


# An event that reports a count beside its change, in a clause of its own: the count is a state.
EVENTS = ["Added the exporter", "Fixed 5 failing tests", "Merged the auth refactor", "Shipped v2"]
TOLD = ["; {b} tests passing", ", all {b} tests pass", " — {b} tests pass", "; Tests: {b} passing"]


@pytest.mark.parametrize(("event", "told"), list(product(EVENTS, TOLD)))
def test_an_event_reports_a_count_in_a_clause_of_its_own(tmp_path: Path, event: str, told: str) -> None:
    write(tmp_path / "memory-bank" / "progress.md",
          f"# Progress\n\n## 2026-01-02\n- All 1800 tests pass\n\n## 2026-03-04\n- {event}{told.format(b='2129')}\n")
    (found,) = drift(tmp_path)
    assert found["line"] == 4 and "1800" in found["message"] and "2129" in found["message"]


@pytest.mark.parametrize("event", ["Fixed 5 failing tests", "Added 25 passing tests", "Removed 40 failing tests, as agreed"])
def test_an_event_that_counts_its_change_states_no_total(tmp_path: Path, event: str) -> None:
    write(tmp_path / "memory-bank" / "progress.md",
          f"# Progress\n\n## 2026-01-02\n- 3 failing tests, 1800 passing tests\n\n## 2026-03-04\n- {event}\n")
    assert drift(tmp_path) == []
