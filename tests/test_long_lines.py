"""Issue 43, item 8: a bound on memory per line. A line past MAX_LINE_BYTES (in a JSON document, a
run with no quote or line break) is bad input, left out of the reading; the rest of the file is
read, every other line keeps its number, and memory stays a small multiple of the file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import SRC, run_cli
from memory_autopsy.ingest.long_lines import MAX_LINE_BYTES, bounded

LONG = MAX_LINE_BYTES + 10


def scan(tmp_path: Path, name: str) -> dict:
    result = run_cli("scan", name, "--format", "json", "--no-cache", cwd=tmp_path)
    assert result.code in (0, 1), result.err
    return json.loads(result.out)


def rules(report: dict) -> list[tuple[str, int]]:
    return sorted((f["rule"], f["line"]) for f in report["findings"])


def test_a_long_markdown_line_is_left_out_and_the_rest_read(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text(
        "- 2024-01-01 billing uses PostgreSQL 14\n- " + "x" * LONG + "\n- 2025-01-01 billing moved to MySQL 8\n",
        encoding="utf-8")
    report = scan(tmp_path, "notes.md")
    assert ("bad_input", 2) in rules(report)
    conflict = [f for f in report["findings"] if f["rule"] != "bad_input"]
    assert conflict and {f["line"] for f in conflict} <= {1, 3}  # line numbers kept


def test_a_long_jsonl_record_is_left_out_and_the_others_read(tmp_path: Path) -> None:
    records = [{"entity": "billing", "claim": "billing uses PostgreSQL 14", "observed_at": "2024-01-01"},
               {"entity": "noise", "claim": "y " * (LONG // 2)},
               {"entity": "billing", "claim": "billing moved to MySQL 8", "observed_at": "2025-01-01"}]
    (tmp_path / "store.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    report = scan(tmp_path, "store.jsonl")
    assert ("bad_input", 2) in rules(report)
    assert any(f["rule"] != "bad_input" and f["line"] in (1, 3) for f in report["findings"])


def test_a_long_string_in_a_one_line_json_document(tmp_path: Path) -> None:
    records = [{"entity": "billing", "claim": "billing uses PostgreSQL 14", "observed_at": "2024-01-01"},
               {"entity": "noise", "claim": "z" * LONG},
               {"entity": "billing", "claim": "billing moved to MySQL 8", "observed_at": "2025-01-01"}]
    (tmp_path / "store.json").write_text(json.dumps(records), encoding="utf-8")
    report = scan(tmp_path, "store.json")
    assert [r for r, _ in rules(report)].count("bad_input") == 1
    assert any(f["rule"] != "bad_input" for f in report["findings"])


def test_a_large_file_of_ordinary_lines_is_untouched() -> None:
    data = b"- 2024-01-01 billing uses PostgreSQL 14\n" * 100_000
    assert bounded("x.md", data, False) == (data, [])
    document = json.dumps([{"claim": "billing uses PostgreSQL 14"}] * 50_000).encode()
    assert bounded("x.json", document, True) == (document, [])


def test_every_long_line_is_found_with_its_number() -> None:
    data = b"a\n" + b"x" * 20 + b"\nb\n" + b"y" * 30 + b"\nc\n"
    kept, problems = bounded("x.md", data, False, limit=10)
    assert kept == b"a\n\nb\n\nc\n"
    assert [p.line for p in problems] == [2, 4]


@pytest.mark.parametrize("name", ["notes.md", "store.jsonl"])
def test_memory_for_a_huge_line_stays_bounded(tmp_path: Path, name: str) -> None:
    """A 64 MB line took over a gigabyte; now it costs about the file's bytes a few times over."""
    size = 64 * 1024 * 1024
    with open(tmp_path / name, "wb") as handle:
        handle.write(b"- 2024-01-01 billing uses PostgreSQL 14\n" if name.endswith(".md") else
                     b'{"entity": "billing", "claim": "billing uses PostgreSQL 14"}\n')
        handle.write(b"- " + b"w " * (size // 2) + b"\n")
    # VmHWM, the peak of this process's own memory: ru_maxrss keeps the peak of the process it
    # was forked from (the test runner) across the exec
    code = ("import re, sys; from memory_autopsy.cli import main; code = main(sys.argv[1:]); "
            "status = open('/proc/self/status').read(); "
            "sys.stderr.write('peak=' + re.search(r'VmHWM:\\s+(\\d+)', status).group(1)); sys.exit(code)")
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run([sys.executable, "-c", code, "scan", name, "--no-cache", "--format", "json"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode in (0, 1), done.stderr
    peak_kib = int(done.stderr.rsplit("peak=", 1)[1])
    assert peak_kib < 5 * size // 1024, f"peak {peak_kib} KiB for a {size // 2**20} MiB line"
