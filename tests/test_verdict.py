"""Reliability, the provenance cap, the ranking order and the weight overrides."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT, run_cli, write
from memory_autopsy.settings import Settings
from memory_autopsy.verdicts.registry import load_weights, parse_registry


def record(value: str, date: str, klass: str, claim: str | None = None, **extra: Any) -> str:
    item = {"entity": "billing-store", "slot": "tool", "value": value, "observed_at": date,
            "source": f"src-{value}-{date}", "source_class": klass, **extra}
    if claim:
        item["claim"] = claim
    return json.dumps(item) + "\n"


def reconcile(folder: Path, *paths: str, registry: str | None = None) -> dict[str, dict[str, Any]]:
    args = ["reconcile", *paths, "--json", "--isolated"] + (["--registry", registry] if registry else [])
    result = run_cli(*args, cwd=folder)
    assert result.code == 0, result.err
    claims = [c for e in json.loads(result.out)["entities"] for c in e["claims"]]
    return {f'{c["path"]}:{c["line"]}': c for c in claims}


@pytest.mark.parametrize(("claim", "klass", "expected"), [
    ("we verified the billing store moved", "primary", 1.0),
    ("we verified the billing store moved", "unclassified", 0.2),
    ("rumor has it the billing store moved", "primary", 0.2),
    ("the billing store moved", "primary", 0.7),
    ("the billing store moved", "secondary", 0.5),
])
def test_seed_reliability_table(tmp_path: Path, claim: str, klass: str, expected: float) -> None:
    write(tmp_path / "s.jsonl", record("MySQL 8", "2026-06-02", klass, claim))
    assert reconcile(tmp_path, "s.jsonl")["s.jsonl:1"]["reliability"] == expected


def test_fidelity_ceiling_caps_a_prose_parse(tmp_path: Path) -> None:
    write(tmp_path / "m.md", "- billing-store: we verified it uses MySQL (2026-01-01) (source: doc, class: primary)\n"
                             "- we verified Redis 7 is the cache (2026-01-01) (source: doc, class: primary)\n")
    claims = reconcile(tmp_path, "m.md")
    assert (claims["m.md:1"]["fidelity"], claims["m.md:1"]["reliability"]) == ("PARTIAL", 0.8)
    assert (claims["m.md:2"]["fidelity"], claims["m.md:2"]["reliability"]) == ("RESIDUAL", 0.5)


def test_provenance_cap_against_forty_padded_sources(tmp_path: Path) -> None:
    write(tmp_path / "primary.jsonl", record("PostgreSQL 14", "2026-01-05", "primary"))
    for n in range(40):
        value = ("MongoDB", "MongoDB 4", "CouchDB", "MySQL 8")[n % 4]
        write(tmp_path / f"pad-{n:02d}.jsonl", record(value, f"2026-{2 + n % 10:02d}-{1 + n % 27:02d}",
                                                      "unclassified", f"we verified it is {value}"))
    claims = reconcile(tmp_path, ".")
    primary = claims["primary.jsonl:1"]
    assert primary["verdict"] == "WINNER"
    padded = [c for key, c in claims.items() if key.startswith("pad-")]
    assert len(padded) == 40 and {c["verdict"] for c in padded} == {"CAPPED"}
    assert {c["by"] for c in padded} == {primary["id"]}
    result = run_cli("reconcile", ".", "--json", "--isolated", cwd=tmp_path)
    entity = json.loads(result.out)["entities"][0]
    assert entity["canonical"] == primary["id"]
    as_of = json.loads(run_cli("as-of", "2026-12-31", ".", "--json", "--isolated", cwd=tmp_path).out)
    current = [b for b in as_of["beliefs"] if b["verdict"] == "CURRENT"]
    assert [b["value"] for b in current] == ["PostgreSQL 14"]


def test_without_a_primary_claim_the_newest_wins(tmp_path: Path) -> None:
    write(tmp_path / "s.jsonl", record("PostgreSQL 14", "2026-01-05", "secondary")
          + record("MongoDB", "2026-03-01", "unclassified"))
    claims = reconcile(tmp_path, "s.jsonl")
    assert (claims["s.jsonl:1"]["verdict"], claims["s.jsonl:2"]["verdict"]) == ("LOSER", "WINNER")


@pytest.mark.parametrize(("first", "second", "winner"), [
    # later observation beats everything but the cap
    (("PG", "2026-02-01", "secondary", None), ("MySQL", "2026-01-01", "secondary", None), 1),
    # same day: higher source class
    (("PG", "2026-01-01", "primary", None), ("MySQL", "2026-01-01", "secondary", None), 1),
    # same day and class: higher capped reliability
    (("PG", "2026-01-01", "primary", None), ("MySQL", "2026-01-01", "primary", "reportedly MySQL"), 1),
    # same reliability (capped at 0.5 by class): an explicit status verb
    (("PG", "2026-01-01", "secondary", "confirmed PG"), ("MySQL", "2026-01-01", "secondary", None), 1),
    # nothing else differs: the later in the sources
    (("PG", "2026-01-01", "secondary", None), ("MySQL", "2026-01-01", "secondary", None), 2),
])
def test_ranking_order(tmp_path: Path, first: tuple[Any, ...], second: tuple[Any, ...], winner: int) -> None:
    write(tmp_path / "s.jsonl", record(*first) + record(*second))
    claims = reconcile(tmp_path, "s.jsonl")
    verdicts = [claims["s.jsonl:1"]["verdict"], claims["s.jsonl:2"]["verdict"]]
    assert verdicts == (["WINNER", "LOSER"] if winner == 1 else ["LOSER", "WINNER"])


def test_registry_file_overrides_rule_file_and_defaults(tmp_path: Path) -> None:
    write(tmp_path / "r.yaml", "# weights\n---\ncues.default: 0.9\nclass:\n  unclassified: 0.6\n"
                               "  'primary': 1\nfidelity.partial: 0.7\n")
    assert parse_registry((tmp_path / "r.yaml").read_text()) == {
        "cues.default": 0.9, "class.unclassified": 0.6, "class.primary": 1.0, "fidelity.PARTIAL": 0.7}
    rule_file = Settings(weights={"class.unclassified": 0.3, "class.secondary": 0.4})
    weights = load_weights(rule_file, str(tmp_path / "r.yaml"))
    assert (weights.classes["unclassified"], weights.classes["secondary"], weights.default_cue) == (0.6, 0.4, 0.9)
    assert load_weights(rule_file).classes["unclassified"] == 0.3
    write(tmp_path / "s.jsonl", record("MySQL 8", "2026-06-02", "unclassified"))
    assert reconcile(tmp_path, "s.jsonl", registry="r.yaml")["s.jsonl:1"]["reliability"] == 0.6


@pytest.mark.parametrize(("text", "line"), [
    ("cues.verified: 1.0\nclass.bogus: 0.1\n", 2),
    ("cues.verified 1.0\n", 1),
    ("\n\nfidelity.FULL: lots\n", 3),
    ("class.primary: 1.5\n", 1),
    ("weights:\n  x: 1\n", 1),
    ("  primary: 1\n", 1),
])
def test_bad_registry_line_exits_2_naming_the_line(tmp_path: Path, text: str, line: int) -> None:
    write(tmp_path / "r.yaml", text)
    write(tmp_path / "s.jsonl", record("MySQL 8", "2026-06-02", "primary"))
    result = run_cli("reconcile", "s.jsonl", "--registry", "r.yaml", "--isolated", cwd=tmp_path)
    assert result.code == 2 and result.out == ""
    assert f"r.yaml:{line}:" in result.err


def test_example_registry_holds_the_defaults() -> None:
    default = run_cli("reconcile", "examples/memory.md", "examples/facts.json", "--isolated", cwd=ROOT)
    tuned = run_cli("reconcile", "examples/memory.md", "examples/facts.json", "--isolated",
                    "--registry", "examples/registry.yaml", cwd=ROOT)
    assert default.code == tuned.code == 0 and default.out == tuned.out


def test_rule_file_weights_reach_the_cli(tmp_path: Path) -> None:
    write(tmp_path / "memory-autopsy.toml", '[weights]\n"class.unclassified" = 0.4\n"cues.default" = 0.9\n')
    write(tmp_path / "s.jsonl", record("MySQL 8", "2026-06-02", "unclassified") + record("PG", "2026-01-01", "primary"))
    result = run_cli("reconcile", "s.jsonl", "--json", "--config", "memory-autopsy.toml", cwd=tmp_path)
    assert result.code == 0, result.err
    claims = {c["line"]: c["reliability"] for e in json.loads(result.out)["entities"] for c in e["claims"]}
    assert claims == {1: 0.4, 2: 0.9}
    write(tmp_path / "r.yaml", "class.unclassified: 0.3\n")
    tuned = run_cli("reconcile", "s.jsonl", "--json", "--config", "memory-autopsy.toml", "--registry", "r.yaml",
                    cwd=tmp_path)
    assert json.loads(tuned.out)["entities"][0]["claims"][0]["reliability"] == 0.3


def test_registry_is_read_as_yaml(tmp_path: Path) -> None:
    text = "cues.verified: '1.0'   # quoted\nfidelity: {PARTIAL: 0.8, residual: 0.1}\n"
    assert parse_registry(text) == {"cues.verified": 1.0, "fidelity.PARTIAL": 0.8, "fidelity.RESIDUAL": 0.1}
    write(tmp_path / "r.yaml", "cues.verified: 1.0\nclass: [primary]\n")
    write(tmp_path / "s.jsonl", record("MySQL 8", "2026-06-02", "primary"))
    result = run_cli("reconcile", "s.jsonl", "--registry", "r.yaml", "--isolated", cwd=tmp_path)
    assert result.code == 2 and "r.yaml:2:" in result.err and "Traceback" not in result.err


def test_wording_follows_each_weights_table_asked_with() -> None:
    """Cue forms and answers are kept per weights table: another table (a rule file's) is
    never answered from the first one's."""
    from memory_autopsy.model import Fact, Fidelity
    from memory_autopsy.verdicts.verdict import Weights, wording

    claim = Fact(id="f1", entity="billing", slot="tool", value="MySQL", claim="billing is Verified: MySQL",
                 observed_at=None, valid_from=None, valid_to=None, source=None, source_class="unclassified",
                 fidelity=Fidelity.FULL, status_verb=None, path="m.md", line=1)
    plain = claim._replace(claim="billing uses MySQL")
    default, custom = Weights.build(), Weights.build({"cues.verified": 0.35, "cues.uses": 0.4})
    assert wording(claim, default) == (default.cues["verified"], "verified")
    assert wording(claim, custom) == (0.35, "verified")
    assert wording(plain, custom) == (0.4, "uses") and wording(plain, default) == (default.default_cue, None)
    assert wording(claim, default) == (default.cues["verified"], "verified")  # asked again: the same
