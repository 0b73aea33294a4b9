"""A paragraph is read sentence by sentence and a bullet with its continuation lines is one
claim, however many lines they run over: each is joined once (it was joined line by line, a
copy of the growing text per line), and reads as the join of its stripped lines. Timing is
bench/doubling.py's (shapes `prose` and `continued`); these pin what is read."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from conftest import run_cli
from memory_autopsy.api import load_store

WORDS = "billing ledger export cluster nightly archive rotates service keeps running".split()


def _facts(tmp_path: Path, text: str):  # type: ignore[no-untyped-def]
    path = tmp_path / "notes.md"
    path.write_text(text, encoding="utf-8")
    return load_store([str(path)]).facts


def _line(rng: random.Random, stop: bool, least: int = 1) -> str:
    words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(least, 8)))
    return f"{words.capitalize()}{rng.choice(['.', '!', '?']) if stop else ''}"


@pytest.mark.parametrize("seed", range(12))
def test_a_paragraph_reads_as_its_lines_joined(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    lines = [_line(rng, stop=rng.random() < 0.4, least=4) for _ in range(rng.randint(2, 60))]
    lines[-1] = lines[-1].rstrip(".!?") + "."
    indented = [" " * rng.randint(0, 3) + line + " " * rng.randint(0, 2) for line in lines]
    facts = _facts(tmp_path, "# Notes\n\n" + "\n".join(indented) + "\n")
    # The plain reading: the stripped lines joined by spaces, cut after each sentence's stop;
    # a sentence's lines run from the one it starts on to the one it ends on.
    joined = " ".join(lines)
    expected, start, number = [], 0, 3
    ends = [i for i, line in enumerate(lines) if line[-1] in ".!?"]
    for last in ends:
        expected.append((" ".join(lines[start : last + 1]), number + start, number + last))
        start = last + 1
    assert [(f.claim, f.line, f.end_line or f.line) for f in facts] == expected
    assert " ".join(f.claim for f in facts) == joined


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


def test_a_sentence_ending_a_line_owns_that_line_only(tmp_path: Path) -> None:
    """The copy in a paragraph ends on its own line: the fix deletes that line and leaves the
    next sentence's (a sentence cut at a line's end was read as reaching the next line, which
    holds another fact, so the fix was refused)."""
    copy = "The billing service runs nightly exports to the archive."
    (tmp_path / "notes.md").write_text(
        f"# Notes\n\n- {copy}\n\n{copy}\nThe ledger keeps invoices for seven years.\n", encoding="utf-8")
    facts = load_store([str(tmp_path / "notes.md")]).facts
    assert [(f.line, f.last_line) for f in facts] == [(3, 3), (5, 5), (6, 6)]
    result = run_cli("report", "notes.md", "--apply", "--yes-i-know", "--isolated", cwd=tmp_path)
    assert result.code in (0, 1), result.err
    assert (tmp_path / "notes.md").read_text(encoding="utf-8") == (
        f"# Notes\n\n- {copy}\n\nThe ledger keeps invoices for seven years.\n")
