"""Near copies are found whatever a claim's length: the blocking keys hash a claim of up to
24 words as a tuple and a longer one as a polynomial, and a claim one word longer than another
must still meet it across that bound."""

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
