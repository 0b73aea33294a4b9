"""A paragraph is read sentence by sentence and a bullet with its continuation lines is one
claim, however many lines they run over: each is joined once (it was joined line by line, a
copy of the growing text per line), and reads as the join of its stripped lines. Timing is
bench/doubling.py's (shapes `prose` and `continued`); these pin what is read."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from memory_autopsy.api import load_store

WORDS = "billing ledger export cluster nightly archive rotates service keeps running".split()


def _facts(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "notes.md"
    path.write_text(text, encoding="utf-8")
    return load_store([str(path)]).facts


def _line(rng: random.Random, stop: bool) -> str:
    words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 6)))
    return f"{words.capitalize()}{rng.choice(['.', '!', '?']) if stop else ''}"


@pytest.mark.parametrize("seed", range(12))
def test_a_continued_bullet_is_one_claim_of_its_lines(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    lines = [_line(rng, stop=False) for _ in range(rng.randint(2, 80))]
    body = [f"- {lines[0]}"] + [" " * rng.randint(0, 4) + line for line in lines[1:]]
    facts = _facts(tmp_path, "# Notes\n\n" + "\n".join(body) + "\n- after\n")
    assert [(f.claim, f.line, f.end_line) for f in facts[:1]] == [(" ".join(lines), 3, 2 + len(lines))]
    assert facts[1].claim == "after"


def test_ignore_comments_on_continuation_lines_apply_to_the_bullet(tmp_path: Path) -> None:
    text = (
        "# Notes\n\n"
        "- billing exports the ledger nightly\n"
        "  to the archive <!-- memory-autopsy: ignore unsourced -->\n"
        "  and keeps it <!-- memory-autopsy: ignore stale -->\n"
        "<!-- memory-autopsy: ignore duplicate -->\n"
        "\n"
        "- the cluster rotates\n"
    )
    facts = _facts(tmp_path, text)
    assert [(f.claim, f.suppress) for f in facts] == [
        ("billing exports the ledger nightly to the archive and keeps it", ("unsourced", "stale")),
        ("the cluster rotates", ("duplicate",)),  # a comment on a line of its own: the next line's
    ]
