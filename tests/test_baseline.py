"""The baseline: content fingerprints with counts, stable file, new/unchanged/fixed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import run_cli, write

BASE = ".memory-autopsy-baseline.json"
CONFLICT = ["- billing-store: uses PostgreSQL 14 (2026-01-05)",
            "- billing-store: uses PostgreSQL 16 (2026-06-02)"]
DUP = "- cache-tier: uses redis 7 (2026-01-01) (source: ops)"
OTHER_DUP = "- search: uses Elasticsearch 8 (2026-01-01) (source: ops)"


def memory(tmp_path: Path, *lines: str, name: str = "m.md") -> Path:
    return write(tmp_path / name, "\n".join(lines) + "\n")


def scan(tmp_path: Path, *args: str) -> tuple[int, dict[str, object]]:
    result = run_cli("scan", *args, "--json", cwd=tmp_path)
    assert result.code in (0, 1), result.err
    return result.code, json.loads(result.out)


def marks(data: dict[str, object]) -> list[tuple[str, str]]:
    return [(f["rule"], f["baseline"]) for f in data["findings"]]  # type: ignore[attr-defined, index]


def baseline(tmp_path: Path, *args: str) -> dict[str, object]:
    result = run_cli("baseline", *args, cwd=tmp_path)
    assert result.code == 0, result.err
    return json.loads((tmp_path / BASE).read_text(encoding="utf-8"))  # type: ignore[no-any-return]


@pytest.fixture
def accepted(tmp_path: Path) -> Path:
    memory(tmp_path, *CONFLICT, DUP, DUP)
    baseline(tmp_path, "m.md")
    return tmp_path


def test_baselined_findings_do_not_fail(accepted: Path) -> None:
    assert run_cli("scan", "m.md", "--no-baseline", cwd=accepted).code == 1
    assert run_cli("scan", "m.md", cwd=accepted).code == 0  # the default file, as `baseline` wrote it
    code, data = scan(accepted, "m.md", "--baseline", BASE)
    assert code == 0 and data["findings"] == []
    code, data = scan(accepted, "m.md", "--baseline", BASE, "--include-baselined")
    assert code == 0 and {mark for _, mark in marks(data)} == {"unchanged"}


def test_moves_reformatting_and_unrelated_facts_stay_unchanged(accepted: Path) -> None:
    memory(accepted, "# Memory", "", DUP.replace("redis 7", "Redis 7").replace("uses", "uses  "),
           "- dns: runs on Route53 (2026-02-01) (source: ops)", "", CONFLICT[1], "",
           "- search: uses Elasticsearch 8 (2026-03-01) (source: ops)", "",
           DUP, CONFLICT[0].replace("- ", "* "))
    code, data = scan(accepted, "m.md", "--baseline", BASE, "--include-baselined")
    assert code == 0, data
    assert marks(data) and {mark for _, mark in marks(data)} == {"unchanged"}


def test_a_new_problem_is_new_and_fails(accepted: Path) -> None:
    memory(accepted, *CONFLICT, DUP, DUP, "- dns: uses CoreDNS 1.10 (2026-01-01)",
           "- dns: uses CoreDNS 1.11 (2026-05-01)")
    code, data = scan(accepted, "m.md", "--baseline", BASE)
    assert code == 1
    assert marks(data) == [("stale", "new")]
    assert data["findings"][0]["line"] == 5  # type: ignore[index]


def test_a_second_copy_of_a_baselined_problem_is_new(accepted: Path) -> None:
    memory(accepted, *CONFLICT, DUP, DUP, DUP)
    code, data = scan(accepted, "m.md", "--baseline", BASE, "--fail-on", "info")
    assert code == 1 and marks(data) == [("duplicate", "new")]


def test_a_fix_cannot_hide_a_regression(tmp_path: Path) -> None:
    memory(tmp_path, DUP, DUP, OTHER_DUP, OTHER_DUP)
    baseline(tmp_path, "m.md")
    memory(tmp_path, DUP, DUP, DUP, OTHER_DUP)  # one problem fixed, a copy of the other added
    code, data = scan(tmp_path, "m.md", "--baseline", BASE, "--fail-on", "info")
    assert code == 1 and marks(data) == [("duplicate", "new")]
    assert data["baseline_fixed"] == 1


def test_fixed_entries_are_reported_and_pruned(accepted: Path) -> None:
    memory(accepted, *CONFLICT, DUP)
    code, data = scan(accepted, "m.md", "--baseline", BASE)
    assert code == 0 and data["baseline_fixed"] == 1
    text = run_cli("scan", "m.md", "--baseline", BASE, cwd=accepted).out
    assert "1 baselined finding(s) gone" in text
    memory(accepted, *CONFLICT, "- dns: runs on Route53 (2026-01-01)", "- dns: runs on Route53 (2026-01-01)")
    pruned = baseline(accepted, "m.md", "--prune-only")
    assert [e["rule"] for e in pruned["entries"]] == ["stale"]  # type: ignore[index]
    updated = baseline(accepted, "m.md")
    assert sorted(e["rule"] for e in updated["entries"]) == ["duplicate", "stale"]  # type: ignore[attr-defined]


def test_file_is_sorted_versioned_and_stable(accepted: Path) -> None:
    first = (accepted / BASE).read_text(encoding="utf-8")
    data = json.loads(first)
    assert data["format"] == 1 and data["fingerprints"].startswith("memoryAutopsy/")
    assert not re.search(r"\d{4}-\d\d-\d\dT\d\d|generated|timestamp", first)
    entries = data["entries"]
    assert entries == sorted(entries, key=lambda e: (e["path"], e["rule"], e["entity"], e["fingerprint"]))
    for entry in entries:
        assert {"rule", "path", "entity", "message", "count", "fingerprint"} <= set(entry)
        assert not re.search(r"\.md:\d", entry["message"])  # no line numbers to churn
    memory(accepted, "", *reversed(CONFLICT), DUP, "", DUP)
    baseline(accepted, "m.md")
    assert (accepted / BASE).read_text(encoding="utf-8") == first


def test_stale_entries_are_judged_only_for_analysed_files(tmp_path: Path) -> None:
    memory(tmp_path, DUP, DUP, name="a.md")
    memory(tmp_path, OTHER_DUP, OTHER_DUP, name="b.md")
    baseline(tmp_path, "a.md", "b.md")
    code, data = scan(tmp_path, "a.md", "--baseline", BASE)
    assert code == 0 and "baseline_fixed" not in data
    kept = baseline(tmp_path, "a.md")
    assert sorted(e["path"] for e in kept["entries"]) == ["a.md", "b.md"]  # type: ignore[attr-defined]
    (tmp_path / "b.md").unlink()
    gone = baseline(tmp_path, "a.md")
    assert [e["path"] for e in gone["entries"]] == ["a.md"]  # type: ignore[index]


def test_rule_file_baseline_is_used_by_scan(tmp_path: Path) -> None:
    write(tmp_path / "memory-autopsy.toml", 'baseline = "ci/accepted.json"\n')
    memory(tmp_path, DUP, DUP)
    assert run_cli("scan", "m.md", "--fail-on", "info", cwd=tmp_path).code == 1  # not written yet
    assert run_cli("baseline", "m.md", cwd=tmp_path).code == 0
    assert (tmp_path / "ci" / "accepted.json").is_file()
    assert run_cli("scan", "m.md", cwd=tmp_path).code == 0


def test_hook_never_rewrites_the_baseline(accepted: Path) -> None:
    before = (accepted / BASE).read_bytes()
    memory(accepted, *CONFLICT)
    assert run_cli("hook", "m.md", cwd=accepted).code == 0
    assert (accepted / BASE).read_bytes() == before


@pytest.mark.parametrize("content", [
    "{not json",
    '{"tool": "memory-autopsy", "format": 1, "fingerprints": "memoryAutopsy/v0", "entries": []}',
    '{"tool": "memory-autopsy", "format": 99, "fingerprints": "memoryAutopsy/v1", "entries": []}',
    '{"format": 1, "fingerprints": "memoryAutopsy/v1", "entries": [{"rule": "duplicate"}]}',
    "[]",
])
def test_bad_baseline_file_is_a_usage_error(tmp_path: Path, content: str) -> None:
    memory(tmp_path, DUP, DUP)
    write(tmp_path / "b.json", content)
    result = run_cli("scan", "m.md", "--baseline", "b.json", cwd=tmp_path)
    assert result.code == 2 and "b.json" in result.err


def test_missing_named_baseline_is_a_usage_error(tmp_path: Path) -> None:
    memory(tmp_path, DUP, DUP)
    result = run_cli("scan", "m.md", "--baseline", "nope.json", cwd=tmp_path)
    assert result.code == 2 and "nope.json" in result.err
    assert run_cli("baseline", "m.md", "--prune-only", cwd=tmp_path).code == 2


def test_report_honours_the_baseline(tmp_path: Path) -> None:
    write(tmp_path / "m.md", "- cache: uses redis 7 (2026-01-01) (source: ops)\n" * 2)
    assert run_cli("baseline", "m.md", "--baseline", "b.json", "--isolated", cwd=tmp_path).code == 0
    result = run_cli("report", "m.md", "--baseline", "b.json", "--isolated", cwd=tmp_path)
    assert result.code == 0 and "Findings: 0" in result.out
