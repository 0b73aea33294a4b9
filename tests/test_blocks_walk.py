"""Copied blocks over generated stores: the engine's walk finds exactly the blocks of the plain
walk the layer describes (each claim looked up among the claims already seen, the run extended
while both sides agree, a fact in at most one copy), whatever the files repeat."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from memory_autopsy.api import lint_loaded, load_store
from memory_autopsy.model import Fact
from memory_autopsy.settings import Settings

CLAIMS = [
    "the api listens on port 8080",
    "deploys go out on fridays",
    "billing uses the ledger service",
    "search runs on the shared cluster",
    "the nightly export writes to the archive",
    "on-call rotates every monday",
]
MIN_BLOCK = 3


def plain_walk(facts: list[Fact]) -> list[tuple[str, int, int, str, int]]:
    """(copy path, copy line, size, original path, original line) of each copied block."""
    keys = [f.norm for f in facts]
    first: dict[str, int] = {}
    found = []
    i = 0
    while i < len(facts):
        j = first.get(keys[i])
        run = 0
        while (j is not None and i + run < len(facts) and j + run < i and keys[i + run] == keys[j + run]
               and facts[i + run].path == facts[i].path and facts[j + run].path == facts[j].path):
            run += 1
        if run >= MIN_BLOCK:
            found.append((facts[i].path, facts[i].line, run, facts[j].path, facts[j].line))  # type: ignore[index]
            for k in range(i, i + run):
                first.setdefault(keys[k], k)
            i += run
            continue
        first.setdefault(keys[i], i)
        i += 1
    return found


@pytest.mark.parametrize("seed", range(40))
def test_the_walk_finds_the_plain_walks_blocks(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    claims = CLAIMS[: rng.randint(2, len(CLAIMS))]
    for name in "abc"[: rng.randint(1, 3)]:
        lines = [f"- {rng.choice(claims)}" for _ in range(rng.randint(0, 30))]
        (tmp_path / f"{name}.md").write_text("# Notes\n" + "\n".join(lines) + "\n", encoding="utf-8")
    store = load_store([str(tmp_path)])
    report = lint_loaded(store, Settings())
    blocks = [(f.path, f.line, f.get("block"), f.related[0].path, f.related[0].line)
              for f in report.findings if f.get("block")]
    assert sorted(blocks) == sorted(plain_walk(list(store.facts)))
