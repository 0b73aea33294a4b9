"""A memory file with a byte that is not UTF-8 (a stray Latin-1 or Windows-1252 character in a
long log) is read with the byte replaced: its other claims are read, one `bad_input` names the
line of the first such byte, and a fix applied to the file keeps every byte it did not plan to
change, the stray one included. Empty, binary and UTF-16 files are turned down as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli

# Bytes that are not UTF-8 as people's editors leave them: Latin-1 é, Windows-1252 curly quote
# and en dash, a lone continuation byte, a cut multi-byte sequence.
STRAY = {"latin1": b"caf\xe9", "cp1252-quote": b"\x93quoted\x94", "cp1252-dash": b"a \x96 b",
         "continuation": b"x\x80y", "cut": b"\xe2\x82"}
OLD = b"- billing: uses PostgreSQL 14 (2026-01-05)"
NEW = b"- billing: uses PostgreSQL 16 (2026-03-05)"
# Where the stray byte sits: its own line before the pair, inside the superseded claim, after it.
PLACES = ("before", "in_old", "after")
NAMES = ("notes.md", "CLAUDE.md", "memory-bank/progress.md", ".cursor/rules/memory.mdc")


def store(stray: bytes, place: str) -> tuple[bytes, int]:
    """The file and the line of its stray byte."""
    odd = b"- the menu says " + stray + b" for the guests"
    if place == "before":
        return b"\n".join([odd, OLD, NEW]) + b"\n", 1
    if place == "in_old":
        return b"\n".join([OLD[:-13] + b" " + stray + OLD[-13:], NEW]) + b"\n", 1
    return b"\n".join([OLD, NEW, odd]) + b"\n", 3


def scan(root: Path, name: str) -> dict:
    result = run_cli("scan", name, "--json", "--fail-on", "info", "--no-cache", cwd=root)
    assert result.code == 1 and not result.err.strip(), result.err
    return json.loads(result.out)


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("kind", sorted(STRAY))
def test_the_file_is_read_and_the_byte_is_reported_on_its_line(tmp_path: Path, kind: str, place: str, name: str) -> None:
    data, line = store(STRAY[kind], place)
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_bytes(data)
    report = scan(tmp_path, name)
    bad = [(f["line"], f["message"]) for f in report["findings"] if f["rule"] == "bad_input"]
    assert len(bad) == 1 and bad[0][0] == line and "not UTF-8" in bad[0][1], bad
    assert report["facts"] == data.count(b"\n")
    assert [f["line"] for f in report["findings"] if f["rule"] == "stale"] == [1 if place != "before" else 2]


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("kind", sorted(STRAY))
def test_a_fix_keeps_every_byte_it_did_not_plan(tmp_path: Path, kind: str, place: str) -> None:
    data, _ = store(STRAY[kind], place)
    path = tmp_path / "notes.md"
    path.write_bytes(data)
    applied = run_cli("report", "notes.md", "--apply", "--yes-i-know", cwd=tmp_path)
    assert applied.code in (0, 1) and "Traceback" not in applied.err, applied.err
    after = path.read_bytes()
    assert after != data and STRAY[kind] in after  # the stale line was struck, the stray byte kept
    old_at = 1 if place != "before" else 2
    before_lines, after_lines = data.split(b"\n"), after.split(b"\n")
    assert [b for i, b in enumerate(before_lines) if i != old_at - 1] == \
        [a for i, a in enumerate(after_lines) if i != old_at - 1]  # every other line, byte for byte
    assert after_lines[old_at - 1].startswith(b"- ~~") and b"superseded" in after_lines[old_at - 1]
    assert run_cli("undo", "notes.md", cwd=tmp_path).code == 0
    assert path.read_bytes() == data


@pytest.mark.parametrize("data", [b"\x89PNG\r\n\x1a\n\x00\x00\x00\xe9", b"", b"\xff\xfe- a\x00"])
def test_binary_empty_and_broken_utf16_are_still_turned_down(tmp_path: Path, data: bytes) -> None:
    (tmp_path / "odd.md").write_bytes(data)
    report = scan(tmp_path, "odd.md")
    assert report["facts"] == 0 and [f["rule"] for f in report["findings"]] == ["bad_input"]
