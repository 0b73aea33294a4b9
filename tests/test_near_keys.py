"""Near copies are found whatever a claim's length: the blocking keys hash a claim of up to
24 words as a tuple and a longer one as a polynomial, and a claim one word longer than another
must still meet it across that bound. And whatever a key holds: its first claim (filed alone),
up to its eighth, each a candidate for every later claim of that key."""

from __future__ import annotations

from itertools import product
from pathlib import Path

import pytest

from memory_autopsy.api import lint
from memory_autopsy.settings import Settings

# Words of letters only (a word with a digit is a number, and two claims of different numbers
# are a change of value, never a copy), none of them a stopword.
WORDS = ["".join(letters) for letters in product("bcdfg", "rl", "akq", "xz")]


@pytest.mark.parametrize("words", [12, 24, 25, 40])
def test_a_claim_with_one_more_word_is_a_near_copy(tmp_path: Path, words: int) -> None:
    claim = WORDS[:words]
    longer = claim[: words // 2] + ["vvvv"] + claim[words // 2 :]
    memory = tmp_path / "notes.md"
    memory.write_text(f"# billing\n\n- {' '.join(claim)}\n- {' '.join(longer)}\n", encoding="utf-8")
    found = [f for f in lint([str(memory)], Settings()).findings if f.rule == "near_duplicate"]
    assert [(f.line, "trigram similarity" in f.message) for f in found] == [(4, True)]


# Eight claims alike but for a middle word share one key (the claim less that word) and are
# too far apart to be copies of each other; a claim with that word in the plural is a copy of
# the one it pluralizes, and of no other.
FIRST, LAST = "quartermaster", "harborline"
MIDDLES = ["bramblewood", "cinderfall", "duskmarrow", "emberglass", "frostvein", "gloamridge",
           "hollowtide", "ironbloom"]


def _near(tmp_path: Path, lines: list[str]) -> list[tuple[int, int]]:
    memory = tmp_path / "notes.md"
    memory.write_text("# billing\n\n" + "".join(f"- {line}\n" for line in lines), encoding="utf-8")
    found = [f for f in lint([str(memory)], Settings()).findings if f.rule == "near_duplicate"]
    return [(f.line, f.related[0].line) for f in found]


def test_every_claim_a_key_holds_stays_a_candidate(tmp_path: Path) -> None:
    """A key's first claim (filed alone), and its eighth (the last the key keeps), are each found
    by a later claim that meets them through that key only."""
    claims = [f"{FIRST} {middle} {LAST}" for middle in MIDDLES]
    copies = [f"{FIRST} {MIDDLES[0]}s {LAST}", f"{FIRST} {MIDDLES[-1]}s {LAST}"]
    # Line 3 holds the first claim: the copies (lines 11 and 12) name the first and the eighth.
    assert _near(tmp_path, claims + copies) == [(11, 3), (12, 10)]


def test_a_candidate_scored_again_is_scored_alike(tmp_path: Path) -> None:
    """A claim that is a candidate many times (its trigrams kept from its second time) matches
    each later copy of it, every one alike."""
    claims = [f"{FIRST} {middle} {LAST}" for middle in MIDDLES[:3]]
    copies = [f"{FIRST} {MIDDLES[1]}{ending} {LAST}" for ending in ("s", "es", "ed")]
    assert _near(tmp_path, claims + copies) == [(6, 4), (7, 4), (8, 4)]


@pytest.mark.parametrize("kept", [0, 1, 2])
def test_past_the_kept_candidates_a_candidate_is_scored_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kept: int
) -> None:
    """Past KEPT candidates an entity's trigrams are made again each time a candidate is scored:
    the same copies are found, each naming the same claim, whatever the limit."""
    from memory_autopsy.engine import duplicates

    claims = [f"{FIRST} {middle} {LAST}" for middle in MIDDLES]
    copies = [f"{FIRST} {middle}{ending} {LAST}" for middle in MIDDLES[:4] for ending in ("s", "es", "ed")]
    expected = _near(tmp_path, claims + copies)
    assert len(expected) == 12 and {line for _, line in expected} == {3, 4, 5, 6}
    monkeypatch.setattr(duplicates, "KEPT", kept)
    assert _near(tmp_path, claims + copies) == expected
