"""Text normalization: the fast paths say what the patterns they stand for say."""

from __future__ import annotations

import re

import pytest

from memory_autopsy.normalize import _PUNCT, fold, holds_any, normalize_claim

PRINTABLE = [chr(c) for c in range(32, 127)] + ["\t", "\u00e9", "\u2014", "\u00a0"]


def _by_pattern(text: str) -> str:
    """normalize_claim as its pattern reads any text (the path a non-ASCII claim takes)."""
    return " ".join(_PUNCT.sub(" ", fold(text)).split())


@pytest.mark.parametrize("char", PRINTABLE)
def test_the_ascii_table_reads_each_character_as_the_pattern_does(char: str) -> None:
    for text in (f"a{char}b", f"1{char}2", f"{char}", f"v1{char}", f"{char}.5 x", f"A {char} _B_"):
        assert normalize_claim(text) == _by_pattern(text), text


WORDS = ("not", "don", "never", "no longer", "n't ")
CASES = [
    "", "we do not use it", "Don't", "don't", "the donor list", "nevertheless", "it is no longer",
    "isn't here", "isn't", "NOT upper", "no\nlonger", "n'tx", "a n't b",
]


@pytest.mark.parametrize("text", CASES)
def test_holds_any_says_what_a_search_of_the_alternation_says(text: str) -> None:
    pattern = re.compile("|".join(re.escape(word) for word in WORDS))
    assert holds_any(text, WORDS) is (pattern.search(text) is not None)


def test_holds_any_of_no_words_holds_nothing() -> None:
    assert holds_any("anything", ()) is False


def test_few_words_are_tested_and_many_are_left_to_the_search() -> None:
    from memory_autopsy.normalize import FEW_WORDS, few_words

    assert few_words({"a.md", "b"}) is not None and sorted(few_words({"a.md", "b"}) or ()) == ["a.md", "b"]
    assert few_words(str(n) for n in range(FEW_WORDS)) is not None
    assert few_words(str(n) for n in range(FEW_WORDS + 1)) is None
