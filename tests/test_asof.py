"""`as-of DATE STORE...`: the seed's two dates on examples/timeline.jsonl, windows, anchors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import GOLDEN, ROOT, run_cli, run_process, write

SEED_DATES = ("2026-03-01", "2026-07-01")


def check_golden(name: str, text: str, update: bool) -> None:
    path = GOLDEN / name
    if update:
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def as_of_json(*args: str, cwd: Path = ROOT) -> dict[str, Any]:
    result = run_cli("as-of", *args, "--json", "--isolated", cwd=cwd)
    assert result.code == 0, result.err
    data: dict[str, Any] = json.loads(result.out)
    return data


def table(data: dict[str, Any]) -> dict[tuple[str, str], str]:
    return {(b["entity"], b["value"]): b["verdict"] for b in data["beliefs"]}


@pytest.mark.parametrize("day", SEED_DATES)
def test_seed_dates_text(day: str, update_golden: bool) -> None:
    result = run_cli("as-of", day, "examples/timeline.jsonl", "--isolated", cwd=ROOT)
    assert result.code == 0 and result.err == ""
    check_golden(f"asof_timeline_{day}.md", result.out, update_golden)


def test_seed_answer_on_2026_03_01() -> None:
    data = as_of_json("2026-03-01", "examples/timeline.jsonl")
    assert (data["facts_read"], data["in_effect"], data["conflicts_resolved"]) == (7, 4, 1)
    assert table(data) == {
        ("billing-store", "PostgreSQL 14"): "CURRENT",
        ("edge-proxy", "haproxy"): "CAPPED",
        ("edge-proxy", "kong"): "CURRENT",
        ("nightly-sync", "02:00 UTC"): "CURRENT",
    }
    assert [(o["entity"], o["value"], o["reason"]) for o in data["out_of_window"]] == [
        ("nightly-sync", "23:30 UTC", "not_yet_valid"), ("billing-store", "MySQL 8", "not_yet_valid")]
    assert [(u["entity"], u["value"]) for u in data["unanchored"]] == [("Initech", "grafana")]
    reliability = {b["value"]: b["reliability"] for b in data["beliefs"]}
    assert (reliability["kong"], reliability["haproxy"]) == (0.7, 0.2)


def test_seed_answer_on_2026_07_01() -> None:
    data = as_of_json("2026-07-01", "examples/timeline.jsonl")
    assert (data["facts_read"], data["in_effect"], data["conflicts_resolved"]) == (7, 4, 1)
    assert table(data)[("billing-store", "MySQL 8")] == "CURRENT"
    assert table(data)[("nightly-sync", "23:30 UTC")] == "CURRENT"
    assert [(o["value"], o["reason"]) for o in data["out_of_window"]] == [
        ("02:00 UTC", "expired"), ("PostgreSQL 14", "expired")]


def test_json_keys_and_entity_filter() -> None:
    data = as_of_json("2026-07-01", "examples/timeline.jsonl", "--entity", "Billing Store")
    assert {"beliefs", "out_of_window", "unanchored", "unresolved_aliases", "facts_read",
            "conflicts_resolved"} <= set(data)
    assert {b["entity"] for b in data["beliefs"]} == {"billing-store"}
    assert [o["value"] for o in data["out_of_window"]] == ["PostgreSQL 14"]
    assert data["unanchored"] == [] and data["facts_read"] == 7


def test_window_is_trusted_even_when_observed_later(tmp_path: Path) -> None:
    write(tmp_path / "s.jsonl", json.dumps({
        "entity": "billing", "slot": "tool", "value": "MySQL 8", "observed_at": "2026-06-02",
        "valid_from": "2026-04-01"}) + "\n")
    assert table(as_of_json("2026-05-01", "s.jsonl", cwd=tmp_path)) == {("billing", "MySQL 8"): "CURRENT"}
    early = as_of_json("2026-03-31", "s.jsonl", cwd=tmp_path)
    assert [o["reason"] for o in early["out_of_window"]] == ["not_yet_valid"]


def test_valid_to_is_exclusive_and_observation_is_the_fallback(tmp_path: Path) -> None:
    write(tmp_path / "s.md",
          'billing: tool = "PG" ; valid_to=2026-04-01 -- 2026-01-05 (source: doc)\n'
          "- billing: owned by payments (2026-02-01)\n"
          "- billing: runs on k8s\n")
    data = as_of_json("2026-04-01", "s.md", cwd=tmp_path)
    assert [(o["value"], o["reason"]) for o in data["out_of_window"]] == [("PG", "expired")]
    assert [b["claim"] for b in data["beliefs"]] == ["billing: owned by payments"]
    assert len(data["unanchored"]) == 1
    before = as_of_json("2026-01-31", "s.md", cwd=tmp_path)
    assert [b["value"] for b in before["beliefs"]] == ["PG"]


def test_unresolved_aliases_are_reported_not_merged() -> None:
    data = as_of_json("2026-12-31", "examples/aliases.md")
    assert {"names": ["Acme Corp", "Acma"]} in data["unresolved_aliases"]
    assert {"Acme Corp", "Acma"} <= {b["entity"] for b in data["beliefs"] + data["unanchored"]}


def test_conflict_among_in_effect_records_is_resolved_by_observation(tmp_path: Path) -> None:
    write(tmp_path / "m.md",
          "- billing: uses PostgreSQL 14 (2026-01-05) (source: doc, class: secondary)\n"
          "- billing: uses MySQL 8 (2026-06-02) (source: doc, class: secondary)\n")
    data = as_of_json("2026-07-01", "m.md", cwd=tmp_path)
    verdicts = {b["value"]: (b["verdict"], b["by"]) for b in data["beliefs"]}
    mysql = next(b["id"] for b in data["beliefs"] if b["value"] == "MySQL 8")
    assert verdicts == {"PostgreSQL 14": ("LOSER", mysql), "MySQL 8": ("CURRENT", None)}
    assert data["conflicts_resolved"] == 1
    assert table(as_of_json("2026-03-01", "m.md", cwd=tmp_path)) == {("billing", "PostgreSQL 14"): "CURRENT"}


@pytest.mark.parametrize("args", [
    ("not-a-date", "examples/timeline.jsonl"),
    ("2026-03-01", "examples/missing.jsonl"),
    ("2026-03-01", "examples/timeline.jsonl", "--entity", "nobody-here"),
    ("2026-03-01", "examples/timeline.jsonl", "--registry", "examples/missing.yaml"),
])
def test_usage_errors_exit_2(args: tuple[str, ...]) -> None:
    result = run_cli("as-of", *args, cwd=ROOT)
    assert result.code == 2 and result.out == "" and "error" in result.err


def test_look_alike_names_are_listed_in_the_order_they_were_written(tmp_path: Path) -> None:
    """The same store gives the same bytes in any process: the look-alike pairs came in the
    order of a set of strings, which follows the process's hash seed."""
    names = ["Ana Rossi", "Jana Rossi", "Ana Rosso", "Ana Rossa", "Anna Rossi", "Pia Fox", "Liam Fox",
             "chat-registry-west", "chat-registry-east"]
    lines = [json.dumps({"entity": name, "slot": "team", "value": f"t{i}", "observed_at": "2026-01-05"})
             for i, name in enumerate(names)]
    write(tmp_path / "store.jsonl", "\n".join(lines) + "\n")
    outputs = {seed: run_process("as-of", "2026-06-01", "store.jsonl", "--isolated", cwd=tmp_path,
                                 env={"PYTHONHASHSEED": seed}).out for seed in ("1", "2", "3", "4", "5")}
    assert len(set(outputs.values())) == 1
    pairs = [(names.index(a), names.index(b)) for a, b in
             (line.split("'")[1::2] for line in outputs["1"].splitlines() if "look alike" in line)]
    assert len(pairs) >= 5 and pairs == sorted(pairs)
    # two words two letters apart name two things: "west" / "east", "Pia" / "Liam"
    assert not {names.index("Pia Fox"), names.index("chat-registry-west")} & {i for pair in pairs for i in pair}
