"""`reconcile PATH...`: the per-entity verdict matrix and the canonical claim (seed "Reconcile output")."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ROOT, run_cli, write
from test_asof import check_golden

SEED_RUN = ("reconcile", "examples/memory.md", "examples/facts.json", "--registry", "examples/registry.yaml",
            "--isolated")


def test_seed_run_golden(update_golden: bool) -> None:
    result = run_cli(*SEED_RUN, cwd=ROOT)
    assert result.code == 0 and result.err == ""
    assert result.out.startswith("# memory-autopsy reconcile\n\nSources: 2 | Entities: 7 | Claims considered: 15\n")
    check_golden("reconcile_memory_facts.md", result.out, update_golden)


def test_seed_canonical_for_globex() -> None:
    data = json.loads(run_cli(*SEED_RUN, "--json", cwd=ROOT).out)
    globex = next(e for e in data["entities"] if e["entity"] == "Globex")
    verdicts = {c["claim"]: c["verdict"] for c in globex["claims"]}
    assert verdicts["works at Northwind"] == "LOSER"
    canonical = next(c for c in globex["claims"] if c["id"] == globex["canonical"])
    assert (canonical["claim"], canonical["observed_at"], canonical["reliability"]) == (
        "Globex: left Northwind", "2026-05-01", 0.2)


def test_json_contract() -> None:
    data = json.loads(run_cli(*SEED_RUN, "--json", cwd=ROOT).out)
    assert {"tool", "version", "command", "sources", "claims_considered", "weights", "entities"} <= set(data)
    assert data["sources"] == ["examples/memory.md", "examples/facts.json"]
    assert data["claims_considered"] == 15
    for entity in data["entities"]:
        assert {"entity", "canonical", "claims"} == set(entity)
        for claim in entity["claims"]:
            assert claim["verdict"] in {"WINNER", "LOSER", "CAPPED", "HISTORY"}
            assert {"id", "path", "line", "reliability", "by", "conflicts", "source_class"} <= set(claim)


def test_capped_claims_are_shown_not_hidden() -> None:
    data = json.loads(run_cli(*SEED_RUN, "--json", cwd=ROOT).out)
    edge = next(e for e in data["entities"] if e["entity"] == "edge-proxy")
    assert [(c["value"], c["verdict"]) for c in edge["claims"]] == [("haproxy", "CAPPED"), ("kong", "WINNER")]


def test_history_records_are_not_ranked(tmp_path: Path) -> None:
    write(tmp_path / "m.md", 'billing: tool = "PG" ; valid_to=2026-06-02 -- 2026-01-05 (source: doc)\n'
                             "- billing: uses MySQL 8 (2026-06-02) (source: doc)\n")
    data = json.loads(run_cli("reconcile", "m.md", "--json", "--isolated", cwd=tmp_path).out)
    assert [c["verdict"] for c in data["entities"][0]["claims"]] == ["HISTORY", "WINNER"]


def test_usage_errors(tmp_path: Path) -> None:
    assert run_cli("reconcile", "missing.md", cwd=tmp_path).code == 2
    assert run_cli("reconcile", cwd=tmp_path).code == 2
