"""What an agent actually loads of a memory file: its size against the system's load budget,
the files it links (index lines) or imports (`@path`), and whether it is always loaded.

Read from the raw text, apart from the fact reader: budgets are about lines and bytes as the
agent's loader counts them, not about facts."""

from __future__ import annotations

import re
from itertools import accumulate
from pathlib import PurePosixPath
from typing import NamedTuple

from memory_autopsy import lazyre
from memory_autopsy.ingest.dialects import detect

_LINK = lazyre.compile(r"\[[^\]\n]{0,300}\]\((?P<target>[^)\s]{1,300})\)")
_IMPORT = lazyre.compile(r"(?:^|(?<=\s))@(?P<target>[~./\w-][\w./~-]{0,299})")
_FENCE = lazyre.compile(r"\s{0,3}(```|~~~)")
_CODE_SPAN = lazyre.compile(r"`[^`\n]*`")
_ALWAYS = lazyre.compile(r"alwaysApply[ \t]*:[ \t]*(?P<value>\w+)", re.I)


class MemoryFile(NamedTuple):
    path: str
    dialect: str
    lines: int
    size: int
    line_ends: tuple[int, ...]  # byte offset after each line, for a byte budget
    links: tuple[tuple[int, str], ...] = ()  # (line, relative target) of local markdown links
    imports: tuple[tuple[int, str], ...] = ()  # (line, target) of `@path` imports
    always_apply: bool | None = None  # a Cursor rule's front matter, when it says


def read_memory_file(path: str, data: bytes) -> MemoryFile:
    dialect = detect(path, data[:4096]).name
    try:
        text = data.decode("utf-8")
        valid = True
    except UnicodeDecodeError:
        text, valid = data.decode("utf-8", "replace"), False
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if valid:  # each line's bytes as written: one C-level pass over the bytes
        ends = list(accumulate(len(line) + 1 for line in data.split(b"\n")[: len(lines)]))
    else:  # as the text reads once each invalid byte is replaced
        ends = list(accumulate(len(line.encode("utf-8")) + 1 for line in lines))
    links, imports = _edges(lines) if _is_markdown(path) else ((), ())
    return MemoryFile(path, dialect, len(lines), len(data), tuple(ends), links, imports, _always(lines))


def _is_markdown(path: str) -> bool:
    return PurePosixPath(path.lower()).suffix in (".md", ".markdown", ".mdc")


def _edges(lines: list[str]) -> tuple[tuple[tuple[int, str], ...], tuple[tuple[int, str], ...]]:
    """Local links and `@imports`, outside code fences and code spans (as the loaders read them)."""
    links: list[tuple[int, str]] = []
    imports: list[tuple[int, str]] = []
    fence = False
    for number, line in enumerate(lines, 1):
        if ("```" in line or "~~~" in line) and _FENCE.match(line):
            fence = not fence
            continue
        if fence or ("@" not in line and ("]" not in line or "(" not in line)):
            continue  # a link needs both brackets' halves, an import its @: most lines hold neither
        line_edges(number, line, links, imports)
    return tuple(links), tuple(imports)


def line_edges(number: int, line: str, links: list[tuple[int, str]], imports: list[tuple[int, str]]) -> None:
    """The local links and `@imports` of a line outside a code fence, code spans left out."""
    plain = _CODE_SPAN.sub("", line)
    for match in _LINK.finditer(plain):
        target = match["target"].split("#", 1)[0]
        if target and not re.match(r"[a-z][a-z0-9+.-]*:", target, re.I) and target.lower().endswith(
            (".md", ".mdc", ".markdown")
        ):
            links.append((number, target))
    for match in _IMPORT.finditer(plain):
        target = match["target"].rstrip(".,;:)")
        if "/" in target or "." in target:
            imports.append((number, target))


def _always(lines: list[str]) -> bool | None:
    if not lines or lines[0].strip() != "---":
        return None
    for line in lines[1:60]:
        if line.strip() == "---":
            return None
        match = _ALWAYS.match(line.lstrip())
        if match:
            return match["value"].lower() == "true"
    return None
