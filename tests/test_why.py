"""`why STORE... ID`: provenance, corroboration, contradiction and supersession of one fact."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import ROOT, committed_repo, run_cli, write
from test_asof import check_golden

STORES = ("examples/memory.md", "examples/store.jsonl")


def fact_id(claim: str, path: str) -> str:
    data = json.loads(run_cli("as-of", "2026-12-31", path, "--json", "--isolated", cwd=ROOT).out)
    return str(next(b["id"] for b in data["beliefs"] if b["claim"] == claim))


def why(*args: str, cwd: Path = ROOT) -> dict[str, Any]:
    result = run_cli("why", *args, "--json", "--isolated", cwd=cwd)
    assert result.code == 0, result.err
    data: dict[str, Any] = json.loads(result.out)
    return data


def test_conflicting_facts_golden(update_golden: bool) -> None:
    result = run_cli("why", *STORES, "1abaf1fb54e220f5", "--isolated", cwd=ROOT)
    assert result.code == 0 and result.err == ""
    check_golden("why_works_at_northwind.md", result.out, update_golden)


def test_both_sides_of_a_contradiction() -> None:
    older = fact_id("billing-store: uses PostgreSQL 14 for the billing store", "examples/memory.md")
    newer = fact_id("billing-store: uses MySQL 8 for the billing store", "examples/memory.md")
    old = why("examples/memory.md", older)
    assert old["fact"]["id"] == older
    assert [(c["id"], c["why"].split("]")[0]) for c in old["contradicted_by"]] == [(newer, "[contradicted_implicit")]
    assert [c["id"] for c in old["superseded_by"]] == [newer] and old["supersedes"] == []
    new = why("examples/memory.md", newer)
    assert [c["id"] for c in new["contradicted_by"]] == [older]
    assert [c["id"] for c in new["supersedes"]] == [older] and new["superseded_by"] == []


def test_provenance_and_corroboration() -> None:
    data = why(*STORES, "1abaf1fb54e220f5")
    assert data["provenance"] == {
        "path": "examples/store.jsonl", "line": 2, "observed_at": "2026-01-01", "source": "profile",
        "source_class": "secondary", "fidelity": "PARTIAL", "reliability": 0.5}
    assert [(c["path"], c["line"], c["why"]) for c in data["corroborated_by"]] == [
        ("examples/memory.md", 16, "same claim")]
    assert {c["claim"] for c in data["contradicted_by"]} == {"Globex: left Northwind"}


def test_same_slot_and_value_corroborates(tmp_path: Path) -> None:
    write(tmp_path / "a.jsonl", json.dumps({"id": "aaaa1111", "entity": "db", "slot": "tool", "value": "MySQL 8",
                                            "claim": "we run MySQL 8", "observed_at": "2026-01-01"}) + "\n")
    write(tmp_path / "b.md", "- db: uses MySQL 8 (2026-02-01) (source: ops)\n")
    data = why("a.jsonl", "b.md", "aaaa", cwd=tmp_path)
    assert [(c["path"], c["why"]) for c in data["corroborated_by"]] == [("b.md", "same slot and value")]


def test_history_is_superseded_by_its_own_window(tmp_path: Path) -> None:
    write(tmp_path / "m.md", 'db: tool = "PG" ; valid_to=2026-06-02 -- 2026-01-05 (source: doc)\n')
    data = why("m.md", json.loads(run_cli("scan", "m.md", "--json", cwd=tmp_path).out)["findings"][0]["fact_ids"][0],
               cwd=tmp_path)
    assert [c["why"].startswith("valid_to 2026-06-02") for c in data["superseded_by"]] == [True]


def test_unknown_or_missing_id_exits_2() -> None:
    unknown = run_cli("why", *STORES, "ffffffffffffffff", cwd=ROOT)
    assert unknown.code == 2 and "no fact with id 'ffffffffffffffff'" in unknown.err
    assert run_cli("why", "examples/memory.md", cwd=ROOT).code == 2
    assert run_cli("why", "examples/missing.md", "1abaf1fb54e220f5", cwd=ROOT).code == 2


def test_every_finding_on_the_line_is_explained_on_both_sides(tmp_path: Path) -> None:
    """`why FILE:LINE` on the line of a status_conflict or numeric_drift (rules that do not
    contradict a value) names each finding, its other side, and how to fix or accept it; the
    other side's line names it too."""
    write(tmp_path / "memory-bank" / "progress.md",
          "## Done\n- [x] Build the login page\n\n## Next Steps\n- [ ] Build the login page\n")
    flagged = why("memory-bank/progress.md:5", cwd=tmp_path)["facts"][0]
    conflict = [f for f in flagged["findings"] if f["rule"] == "status_conflict"]
    assert conflict and conflict[0]["side"] == "flagged"
    assert [r["line"] for r in conflict[0]["related"]] == [2]
    assert "memory-autopsy: ignore status_conflict" in conflict[0]["accept"]
    other = why("memory-bank/progress.md:2", cwd=tmp_path)["facts"][0]
    assert [f["side"] for f in other["findings"] if f["rule"] == "status_conflict"] == ["related"]
    text = run_cli("why", "memory-bank/progress.md:5", "--isolated", cwd=tmp_path).out
    assert "## Findings" in text and "**status_conflict** MA204" in text and "other side: memory-bank/progress.md:2" in text


def test_why_a_line_with_no_store_named_reads_the_scope(tmp_path: Path) -> None:
    repo = committed_repo(tmp_path / "repo", {
        "memory-bank/activeContext.md": "# Active context\n\n## Current focus\n- Add retry to the invoice sync job\n",
        "memory-bank/progress.md": "# Progress\n\n## Done\n- [x] Add retry to the invoice sync job\n",
    })
    result = run_cli("why", "memory-bank/progress.md:4", cwd=repo)
    assert result.code == 0, result.err
    assert "status_conflict" in result.out and "memory-bank/activeContext.md:4" in result.out
    alone = run_cli("why", "memory-bank/progress.md", "memory-bank/progress.md:4", cwd=repo)
    assert "status_conflict" not in alone.out  # a store named is the store read
