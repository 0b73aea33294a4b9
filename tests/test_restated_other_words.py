"""A claim restated elsewhere in its store with a word said another way is still one claim
stored twice (`near_duplicate`, found by its words): the verb that reports the work
("Refactored" / "Updated test_utils.py to test …"), a modal ("must be" / "should be"), a word of
manner ("Successfully extracted …"), or one word in another form, which a light stemmer leaves
apart ("caching" / "cache"). Quiet: the same frame of two things, where the word each side has of
its own names what it is about (a page, a side, a direction, a component), in every shape."""

from __future__ import annotations

from itertools import product
from pathlib import Path
from typing import Any

import pytest

from conftest import findings_of, write
from test_restated_across_entities import SHAPES as ACROSS

RESTATED = [
    ("Refactored test_utils.py to test methods on the PageGenerator instance",
     "Updated test_utils.py to test methods on the PageGenerator instance"),
    ("Player settings active input handling must be set to Both for the input system",
     "Player settings active input handling should be set to Both for the input system"),
    ("Successfully extracted the reader styles into external stylesheet files",
     "Reader styles were properly extracted into external stylesheet files"),
    ("utils/apiCache.ts keeps a multi-tier API caching layer for the dashboard",
     "utils/apiCache.ts keeps a multi-tier API cache layer for the dashboard"),
    ("Configured the nightly export job to write parquet files to the archive bucket",
     "Enhanced the nightly export job to write parquet files to the archive bucket"),
]

TWO_THINGS = [
    ("Implemented the comprehensive login page for the web application with validation",
     "Implemented the comprehensive registration page for the web application with validation"),
    ("Drag handle between the center and right panels resizes both panels correctly",
     "Drag handle between the center and left panels resizes both panels correctly"),
    ("Implemented the easy AI for detectives to minimize distance to the runner",
     "Implemented the easy AI for detectives to maximize distance to the runner"),
    ("ExportDialog.tsx removed the card wrapper and kept the core functionality",
     "TrimControls.tsx removed the card wrapper and kept the core functionality"),
]

# The shapes of a claim stored under two entities of one store, and one more: two topic files
# of a Claude Code memory folder.
SHAPES = {
    **ACROSS,
    "two files of a Claude Code memory folder": lambda a, b: {".claude/memory/MEMORY.md": "# Memory\n\n- [Tooling](tooling.md)\n",
                                                              ".claude/memory/tooling.md": f"# Tooling\n\n- {a}\n",
                                                              ".claude/memory/settings.md": f"# Settings\n\n- {b}\n"},
}


def restated_in(root: Path, shape: str, pair: tuple[str, str]) -> list[dict[str, Any]]:
    for name, text in SHAPES[shape](*pair).items():
        write(root / name, text)
    return [f for f in findings_of(root, "near_duplicate") if "in other words" in f["message"]]


@pytest.mark.parametrize(("shape", "pair"), list(product(SHAPES, RESTATED)))
def test_a_word_said_another_way_leaves_one_claim_stored_twice(tmp_path: Path, shape: str, pair: tuple[str, str]) -> None:
    found = restated_in(tmp_path, shape, pair)
    assert len(found) == 1, found
    assert found[0]["related"], found[0]


@pytest.mark.parametrize(("shape", "pair"), list(product(SHAPES, TWO_THINGS)))
def test_a_word_that_names_what_each_side_is_about_keeps_two_claims(tmp_path: Path, shape: str, pair: tuple[str, str]) -> None:
    assert restated_in(tmp_path, shape, pair) == []
