"""The judges: a comparison finding fails a default run only where its description was right
on the dev part of the real-memory eval; claims are compared within their store; a pair
reported twice at the same places in the same words is reported once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from conftest import ROOT, run_cli, write

PROSE = ("- billing-store: uses PostgreSQL 14 (2026-01-05) (source: infra)\n"
         "- billing-store: uses MySQL 8 (2026-06-02) (source: infra)\n")
BUMP = ("- billing-store: uses PostgreSQL 14 (2026-01-05) (source: infra)\n"
        "- billing-store: uses PostgreSQL 16 (2026-06-02) (source: infra)\n")
RECORDS = [{"entity": "billing", "slot": "database", "value": "postgres", "observed_at": "2026-01-01", "source": "ops"},
           {"entity": "billing", "slot": "database", "value": "mysql", "observed_at": "2026-02-01", "source": "ops"}]


def findings(cwd: Path, *args: str) -> tuple[int, list[dict[str, Any]]]:
    result = run_cli("scan", *args, "--json", cwd=cwd)
    assert result.code in (0, 1), result.err
    return result.code, json.loads(result.out)["findings"]


def graded(found: list[dict[str, Any]]) -> list[tuple[str, str, str | None]]:
    return [(f["rule"], f["severity"], f.get("judge")) for f in found if f["rule"] != "unsourced"]


def jsonl(records: list[dict[str, Any]]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


def test_a_prose_value_conflict_is_for_review_and_a_version_bump_fails(tmp_path: Path) -> None:
    write(tmp_path / "prose.md", PROSE)
    write(tmp_path / "bump" / "m.md", BUMP)
    code, found = findings(tmp_path, "prose.md")
    assert code == 0 and graded(found) == [("contradicted_implicit", "review", "slot/ordered/same_file/prose")]
    assert run_cli("scan", "prose.md", "--fail-on", "review", cwd=tmp_path).code == 1
    code, found = findings(tmp_path, "bump/m.md")
    assert code == 1 and graded(found) == [("stale", "warning", "stale/ordered/same_file/prose")]


def test_two_explicit_records_keep_the_rules_severity(tmp_path: Path) -> None:
    write(tmp_path / "facts.jsonl", jsonl(RECORDS))
    code, found = findings(tmp_path, "facts.jsonl")
    assert code == 1 and graded(found) == [("contradicted_implicit", "error", "slot/ordered/same_file/records")]


def test_the_rule_file_severity_wins_over_the_judge(tmp_path: Path) -> None:
    write(tmp_path / "prose.md", PROSE)
    write(tmp_path / "memory-autopsy.toml", '[rules]\ncontradicted_implicit = "error"\n')
    code, found = findings(tmp_path, "prose.md")
    assert code == 1 and graded(found)[0][:2] == ("contradicted_implicit", "error")


def test_two_graph_files_are_two_stores(tmp_path: Path) -> None:
    entity = {"type": "entity", "name": "billing", "entityType": "service"}
    write(tmp_path / "a" / "memory.jsonl", json.dumps({**entity, "observations": ["uses redis 7 for the cache"]}) + "\n")
    write(tmp_path / "a" / "old.jsonl", json.dumps({**entity, "observations": ["uses redis 7 for the cache"]}) + "\n")
    _, found = findings(tmp_path, "a", "--fail-on", "info")
    assert [f for f in found if f["rule"] == "duplicate"] == []
    write(tmp_path / "b" / "one.md", "- cache: uses redis 7 for the sessions\n")
    write(tmp_path / "b" / "two.md", "- cache: uses redis 7 for the sessions\n")
    _, found = findings(tmp_path, "b", "--fail-on", "info")
    assert [f["rule"] for f in found if f["rule"] == "duplicate"] == ["duplicate"]  # one folder, one store


def test_sibling_folders_are_compared_only_when_the_rule_file_groups_them(tmp_path: Path) -> None:
    write(tmp_path / "memory-bank" / "a.md", BUMP.splitlines(keepends=True)[0])
    write(tmp_path / "notes" / "b.md", BUMP.splitlines(keepends=True)[1])
    write(tmp_path / "memory-bank" / "topics" / "c.md", "- cache: uses redis 6 (2026-01-01) (source: ops)\n")
    write(tmp_path / "memory-bank" / "d.md", "- cache: uses redis 7 (2026-03-01) (source: ops)\n")
    code, found = findings(tmp_path, "memory-bank", "notes", "--isolated")
    assert code == 1 and [(f["rule"], f["path"]) for f in found if f["rule"] == "stale"] == [
        ("stale", "memory-bank/topics/c.md")]  # a subfolder is its folder's store; notes/ is another
    write(tmp_path / "memory-autopsy.toml", 'stores = [["memory-bank/**", "notes/**"]]\n')
    _, found = findings(tmp_path, "memory-bank", "notes")
    assert sorted(f["path"] for f in found if f["rule"] == "stale") == ["memory-bank/a.md", "memory-bank/topics/c.md"]


def test_an_instruction_file_speaks_for_the_memory_under_it(tmp_path: Path) -> None:
    write(tmp_path / "memory-bank" / "progress.md", BUMP.splitlines(keepends=True)[1])
    write(tmp_path / "CLAUDE.md", BUMP.splitlines(keepends=True)[0])
    code, found = findings(tmp_path, "CLAUDE.md", "memory-bank")
    assert code == 1 and [(f["rule"], f["path"]) for f in found if f["rule"] == "stale"] == [("stale", "CLAUDE.md")]


def test_one_pair_reported_from_two_cells_of_a_row_is_one_finding(tmp_path: Path) -> None:
    write(tmp_path / "plan.md", "| Phase | Status | Owner status |\n|---|---|---|\n"
          "| Ship the invoice exporter | In Progress | In Progress |\n")
    write(tmp_path / "status.md", "- [x] Ship the invoice exporter\n")
    _, found = findings(tmp_path, "plan.md", "status.md")
    rows = [(f["path"], f["line"]) for f in found if f["rule"] == "status_conflict"]
    assert len(rows) == len(set(rows)) >= 1


def test_judges_json_is_what_the_dev_part_counts_now() -> None:
    """The judges are data fitted on the dev part: an engine change that moves the counts must
    refit them (`python eval/calibrate.py --write`), so the severities shown are measured ones."""
    done = subprocess.run([sys.executable, str(ROOT / "eval" / "calibrate.py"), "--check"],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_description_seen_in_too_few_repositories_passes_the_verdict_to_a_coarser_one() -> None:
    """Support is counted in repositories as well as findings: 8 right of 8 in 2 repositories has
    measured those 2, so a coarser level decides, or none (review for prose)."""
    from memory_autopsy.engine.judges import Judges

    judges = Judges({"r/how/prose": (8, 0, 2), "r/prose": (30, 10, 9), "q/how/prose": (8, 0, 3)},
                    min_precision=0.95, min_support=5, min_repositories=3)
    assert judges.verdict(("r/how/prose", "r/prose"), records=False) == ("r/prose", False)
    assert judges.verdict(("r/how/prose",), records=False) == ("", False)
    assert judges.verdict(("q/how/prose", "q/prose"), records=False) == ("q/how/prose", True)


NOW = {"s/how/prose": (15, 0, 7), "s/prose": (15, 0, 7), "s/how/records": (15, 0, 7), "g/how/repository": (20, 0, 5)}
SEEN: list[tuple[dict[str, tuple[int, int, int]], bool]] = [
    ({}, True),                                 # never seen first: the dev counts decide
    ({"s/how/prose": (0, 3, 2)}, True),         # too few to decide anything
    ({"s/how/prose": (0, 6, 2)}, True),         # from too few repositories
    ({"s/how/prose": (1, 5, 4)}, False),        # seen, and wrong
    ({"s/how/prose": (19, 1, 6)}, True),        # seen, and right
    ({"s/how/prose": (4, 1, 3)}, False),
    ({"s/prose": (1, 5, 4)}, True),             # a coarser description's first sight judges no finer one
]


def test_a_prose_description_keeps_its_severity_only_if_first_sight_agrees() -> None:
    """First sight (each addition scanned by the engine of its commit, before any change it
    prompted) can only take a severity away from prose, and only on the support a verdict
    needs; explicit records and the repository's evidence are judged as before."""
    from memory_autopsy.engine.judges import Judges

    for seen, keeps in SEEN:
        judges = Judges(NOW, min_precision=0.95, min_support=5, min_repositories=3, first_sight=seen)
        assert judges.verdict(("s/how/prose", "s/prose"), records=False) == ("s/how/prose", keeps), seen
        assert judges.verdict(("s/how/records",), records=True) == ("s/how/records", True)
        assert judges.verdict(("g/how/repository",), records=False) == ("g/how/repository", True)
    wrong_now = Judges({"s/prose": (10, 5, 7)}, 0.95, 5, 3, {"s/prose": (40, 0, 9)})
    assert wrong_now.verdict(("s/prose",), records=False) == ("s/prose", False)


def test_first_sight_json_is_what_judges_json_sums() -> None:
    """The first-sight record is committed data: judges.json holds its sum, per description."""
    records = json.loads((ROOT / "eval" / "real" / "first_sight.json").read_text(encoding="utf-8"))["additions"]
    judges = json.loads((ROOT / "src" / "memory_autopsy" / "lexicon" / "judges.json").read_text(encoding="utf-8"))
    total: dict[str, list[int]] = {}
    for addition in records:
        assert len(addition["commit"]) == 40 and addition["folders"]
        for key, counted in addition["counts"].items():
            total[key] = [a + b for a, b in zip(total.get(key, [0, 0, 0]), counted)]
    assert judges["first_sight"] == total and any(r + w for r, w, _ in total.values())
