"""Hostile input never produces a traceback: a bad_input finding or a usage error."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from conftest import SHARED, run_cli, run_process


@pytest.mark.parametrize(
    "name, data, line",
    [
        ("empty.md", b"", 1),
        ("blank.md", b"\n\n  \n", 1),
        ("bad.json", b'{"facts": [ {"claim": ', 1),
        ("binary.md", b"\x89PNG\r\n\x1a\n\x00\x00\x00", 1),
        ("array.jsonl", b"[1, 2]\n", 1),
        ("deep.json", b"[" * 100000 + b"]" * 100000, 1),
    ],
)
def test_bad_file_is_a_finding(name: str, data: bytes, line: int, tmp_path: Path) -> None:
    (tmp_path / name).write_bytes(data)
    assert run_cli("scan", name, cwd=tmp_path).code == 0  # an info never fails a default run
    result = run_cli("scan", name, "--json", "--fail-on", "info", cwd=tmp_path)
    assert result.code == 1, result.err
    findings = json.loads(result.out)["findings"]
    assert [(f["rule"], f["path"], f["line"]) for f in findings] == [("bad_input", name, line)]


def test_jsonl_good_lines_still_read(tmp_path: Path) -> None:
    (tmp_path / "s.jsonl").write_text(
        '{"entity": "a", "claim": "uses x", "date": "2026-01-01"}\nnot json\n'
        '{"entity": "a", "claim": "uses y", "date": "2026-02-01"}\n', encoding="utf-8")
    data = json.loads(run_cli("scan", "s.jsonl", "--json", cwd=tmp_path).out)
    assert data["facts"] == 2
    assert ("bad_input", 2) in [(f["rule"], f["line"]) for f in data["findings"]]


def test_two_broken_jsonl_lines_that_complete_each_other_are_both_broken(tmp_path: Path) -> None:
    """Read as one array, `{…}, ["q"` and `"r"]` make two values: neither line is one."""
    (tmp_path / "s.jsonl").write_text(
        '{"claim": "billing uses MySQL 8", "entity": "billing"}, ["q"\n"r"]\n', encoding="utf-8")
    data = json.loads(run_cli("scan", "s.jsonl", "--json", cwd=tmp_path).out)
    assert data["facts"] == 0
    assert [(f["rule"], f["line"], f["message"].split(": ", 1)[1]) for f in data["findings"]] == [
        ("bad_input", 1, "malformed JSON line: Extra data"), ("bad_input", 2, "malformed JSON line: Extra data")]


_PIECES = [
    '{"entity": "db", "claim": "uses postgres", "date": "2026-01-01"}', '"billing runs on Debian"', '', '  ',
    '{"claim": "x"', '1, 2', '[3', '4]', '{"claim": "a", "x": [1', '2]]}', '"abc', 'def"', '1],[2', '{"a": 1}, {"b": 2}',
    '{"claim": "the ratio is NaN", "entity": "db"}', '{"claim": "k", "n": NaN}', 'Infinity', '{"a": [1, {"b": 2}',
    '{"c": 3}', '{"d": 4}]}', '{"e": 1},{"f": 2}', ']', '{', ',', 'null',
]


@pytest.mark.parametrize("seed", range(8))
def test_a_jsonl_store_reads_each_line_as_that_line_alone(seed: int, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """Lines are decoded many at a time for speed: the facts and problems must be those of
    decoding every line on its own, whatever broken lines sit together."""
    from memory_autopsy.api import load_store
    from memory_autopsy.ingest import json_store

    chooser = random.Random(seed)
    for n in range(25):
        lines = [chooser.choice(_PIECES) for _ in range(chooser.randint(1, 30))]
        (tmp_path / f"s{n}.jsonl").write_bytes(("\r\n" if n % 2 else "\n").join(lines).encode())
    paths = [f"s{n}.jsonl" for n in range(25)]
    monkeypatch.chdir(tmp_path)
    together = load_store(paths)
    monkeypatch.setattr(json_store, "CHUNK", 1)
    alone = load_store(paths)
    assert together.facts == alone.facts and together.problems == alone.problems


def test_directory_as_file_and_missing_path(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir()
    assert run_cli("scan", "d", cwd=tmp_path).code == 2
    result = run_cli("scan", "nope.md", cwd=tmp_path)
    assert result.code == 2 and "no such file or directory: nope.md" in result.err


def test_utf8_bom_and_utf16_are_read(tmp_path: Path) -> None:
    (tmp_path / "bom.md").write_bytes(b"\xef\xbb\xbf- billing: uses MySQL (2026-01-01) (source: x)\n")
    (tmp_path / "u16.md").write_bytes("- cache: uses redis (2026-01-01) (source: x)\n".encode("utf-16"))
    data = json.loads(run_cli("scan", "bom.md", "u16.md", "--json", cwd=tmp_path).out)
    assert data["facts"] == 2 and data["findings"] == []


CORPUS = SHARED / "corpus" / "real"
CORPUS_FILES = sorted(p for p in CORPUS.rglob("*") if p.is_file() and p.name != "SOURCES.md") if CORPUS.is_dir() else []


@pytest.mark.skipif(not CORPUS_FILES, reason="shared/corpus/real is not beside the checkout")
@pytest.mark.parametrize("path", CORPUS_FILES, ids=[p.name for p in CORPUS_FILES])
def test_real_corpus_lints_without_traceback(path: Path) -> None:
    result = run_cli("scan", str(path), "--json")
    assert result.code in (0, 1), result.err
    data = json.loads(result.out)
    assert data["facts"] >= 0 and isinstance(data["findings"], list)


@pytest.mark.skipif(not CORPUS_FILES, reason="shared/corpus/real is not beside the checkout")
def test_real_corpus_folder_in_one_process() -> None:
    result = run_process("scan", str(CORPUS), "--format", "json")
    assert result.code in (0, 1) and "Traceback" not in result.err
    assert json.loads(result.out)["facts"] > 1000
