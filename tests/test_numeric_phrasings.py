"""Numeric drift in the wordings people write around a number: a word between the counted noun
and its state ("48 tests now passing"), a word between a share and "complete" ("95% platform
complete"), and a share written in Japanese or Chinese ("85%完了", "85%完成"). Each wording in
every store shape below is one quantity stated twice; written before two different
subjects in Japanese or Chinese it is two quantities and stays quiet."""

from __future__ import annotations

from itertools import product
from pathlib import Path

import pytest

from conftest import findings_of, write


def two_files(folder: Path, a: str, b: str) -> None:
    write(folder / "memory-bank" / "activeContext.md", f"# Active Context\n\n## Current Status\n- {a}\n")
    write(folder / "memory-bank" / "progress.md", f"# Progress\n\n## Status\n- {b}\n")


def two_headings(folder: Path, a: str, b: str) -> None:
    write(folder / "CLAUDE.md", f"# Notes\n\n## Status\n- {a}\n- Keep the changelog current\n\n## Progress\n- {b}\n")


def memory_folder(folder: Path, a: str, b: str) -> None:
    memory = folder / ".claude" / "memory"
    write(memory / "MEMORY.md", f"# Memory\n\n- [Status](status.md)\n\n## Current state\n- {a}\n")
    write(memory / "status.md", f"# Status\n\n{b}\n")


SHAPES = {"two files of a memory bank": two_files, "two headings of one file": two_headings,
          "a Claude Code memory folder": memory_folder}

COUNTS = [
    "All {n} tests now passing",
    "{n} tests currently passing",
    "{n} tests are passing",
    "{n} tests still passing",
]
SHARES = [
    "Overall: {n}% platform complete",
    "Overall: {n}% feature complete",
    "({n}%完了)",
    "{n}%完成",
    "Overall: {n}% complete",
]


def drift(folder: Path) -> list[dict[str, object]]:
    return findings_of(folder, "numeric_drift")


@pytest.mark.parametrize(("wording", "shape"), list(product(COUNTS, SHAPES)))
def test_a_word_between_noun_and_state_keeps_the_count(tmp_path: Path, wording: str, shape: str) -> None:
    SHAPES[shape](tmp_path, "All 27 tests passing", wording.format(n=48))
    (found,) = drift(tmp_path)
    assert "27" in str(found["message"]) and "48" in str(found["message"])


@pytest.mark.parametrize(("first", "second"), list(product(SHARES, SHARES)))
def test_every_share_wording_reads_one_share(tmp_path: Path, first: str, second: str) -> None:
    SHAPES["two files of a memory bank"](tmp_path, first.format(n=90), second.format(n=95))
    (found,) = drift(tmp_path)
    assert "90%" in str(found["message"]) and "95%" in str(found["message"])


@pytest.mark.parametrize(("wording", "shape"), list(product(SHARES, SHAPES)))
def test_a_share_wording_in_every_shape(tmp_path: Path, wording: str, shape: str) -> None:
    SHAPES[shape](tmp_path, wording.format(n=90), "Overall: 95% complete")
    assert len(drift(tmp_path)) == 1


@pytest.mark.parametrize("wording", COUNTS + SHARES)
def test_the_same_number_is_quiet(tmp_path: Path, wording: str) -> None:
    number = 90
    other = "Overall: 90% complete" if "%" in wording else "All 90 tests passing"
    SHAPES["two files of a memory bank"](tmp_path, wording.format(n=number), other)
    assert drift(tmp_path) == []


TWO_SUBJECTS = [
    ("✅ コア機能 (90%完了)", "✅ ユーザーインターフェース (85%完了)"),
    ("核心功能：90%完成", "用户界面：85%完成"),
    ("コア機能 90%完了", "外部連携 60%完了"),
]


@pytest.mark.parametrize(("pair", "shape"), list(product(TWO_SUBJECTS, SHAPES)))
def test_shares_of_two_subjects_in_ideographs_are_two_quantities(tmp_path: Path, pair: tuple[str, str],
                                                                  shape: str) -> None:
    SHAPES[shape](tmp_path, *pair)
    assert drift(tmp_path) == []


@pytest.mark.parametrize("shape", SHAPES)
def test_one_subject_in_ideographs_is_one_quantity(tmp_path: Path, shape: str) -> None:
    SHAPES[shape](tmp_path, "✅ ユーザーインターフェース (85%完了)", "ユーザーインターフェース - 70%完了")
    assert len(drift(tmp_path)) == 1


@pytest.mark.parametrize("text", ["10% more tests than last week", "Coverage rose 5% after the refactor"])
def test_a_share_that_is_no_progress_is_no_quantity(tmp_path: Path, text: str) -> None:
    SHAPES["two files of a memory bank"](tmp_path, text, "Overall: 95% complete")
    assert drift(tmp_path) == []
