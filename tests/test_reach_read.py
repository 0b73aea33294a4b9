"""What an agent loads of a memory file, read fast, is what the plain reading finds: every line's
byte end, every local link and `@import` outside code fences and code spans (a code span between
`]` and `(` still hides nothing), on generated files, valid UTF-8 or not."""

from __future__ import annotations

import random

import pytest

from memory_autopsy.ingest.reach import _FENCE, line_edges, read_memory_file

PIECES = ["[a](b.md)", "[a]`x`(b.md)", "@x/y.md", "@home", "```", "~~~", "  ```py", "`[a](c.md)`", "é", "\r",
          "", " ", "[x](http://a.md)", "[x](d.mdc#part)", "text", "]", "(", "@", "see @./notes.md."]


def plain(text: str) -> tuple[list[int], list[tuple[int, str]], list[tuple[int, str]]]:
    """Line ends, links and imports, each line read (the fast reading skips most lines)."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    ends, offset = [], 0
    for line in lines:
        offset += len(line.encode("utf-8")) + 1
        ends.append(offset)
    links: list[tuple[int, str]] = []
    imports: list[tuple[int, str]] = []
    fence = False
    for number, line in enumerate(lines, 1):
        if _FENCE.match(line):
            fence = not fence
            continue
        if fence:
            continue
        line_edges(number, line, links, imports)  # every line, none skipped
    return ends, links, imports


@pytest.mark.parametrize("seed", range(40))
def test_a_memory_file_reads_as_the_plain_reading(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(50):
        text = "\n".join("".join(rng.choice(PIECES) for _ in range(rng.randrange(0, 5)))
                         for _ in range(rng.randrange(0, 9))) + rng.choice(["", "\n"])
        data = text.encode("utf-8") if rng.random() < 0.8 else text.encode("latin-1", "replace")
        ends, links, imports = plain(data.decode("utf-8", "replace"))
        memory = read_memory_file("m.md", data)
        assert (list(memory.line_ends), list(memory.links), list(memory.imports)) == (ends, links, imports)
        assert memory.lines == len(ends) and memory.size == len(data)
