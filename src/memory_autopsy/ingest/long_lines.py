"""A bound on what one line may hold, so that memory per line is bounded too.

Reading a line costs a fixed multiple of its length (decoding, normalizing, the claim's words):
a single 200 MB line took over 3 GB. No memory entry is a megabyte long, so a line past
MAX_LINE_BYTES (in a JSON document, a run of that many bytes with no quote and no line break: a
string value or a run between strings) is left out of the reading, its bytes dropped and its
line break kept so every other line keeps its number, and reported as bad input. The rest of
the file is read as usual: one appended giant line cannot silence a file.

The search is a stride over the bytes: from where the last run ended, the last delimiter in the
next MAX_LINE_BYTES + 1 bytes is found from their end (in C), so a file of ordinary lines costs
one short search per megabyte.
"""

from __future__ import annotations

from memory_autopsy.model import Problem

MAX_LINE_BYTES = 1024 * 1024


def bounded(path: str, data: bytes, json_document: bool,
            limit: int = MAX_LINE_BYTES) -> tuple[bytes, list[Problem]]:
    """`data` with each run over `limit` bytes taken out, and a problem for each."""
    if len(data) <= limit:
        return data, []
    delimiters = (b"\n", b'"') if json_document else (b"\n",)
    kept: list[bytes] = []
    problems: list[Problem] = []
    start = at = counted = 0
    line = 1
    while len(data) - at > limit:
        stop = at + limit + 1
        last = max(data.rfind(d, at, stop) for d in delimiters)
        if last != -1:
            at = last + 1
            continue
        end = min((i for i in (data.find(d, stop) for d in delimiters) if i != -1), default=len(data))
        line += data.count(b"\n", counted, at)
        counted = end
        what = "a run of bytes with no quote or line break" if json_document else "the line"
        problems.append(Problem(path, line, f"line {line}: {what} is {end - at} bytes, over the "
                                f"{limit} one line may hold; left out of the reading"))
        kept.append(data[start:at])
        start = at = end
    if not problems:
        return data, []
    kept.append(data[start:])
    return b"".join(kept), problems
