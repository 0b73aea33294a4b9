"""An in-record ignore suppresses its own record's findings, wherever the record sits on a line:
in a one-line (minified) JSON document, an ignore on one record leaves the others' findings."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conftest import run_cli, write

IGNORE = "memory-autopsy-ignore"
OLD_DB = {"entity": "billing", "slot": "database", "value": "postgres", "observed_at": "2026-01-01",
          "source": "notes"}
NEW_DB = {**OLD_DB, "value": "mysql", "observed_at": "2026-02-01"}
OLD_ENGINE = {"entity": "search", "slot": "engine", "value": "elasticsearch", "observed_at": "2026-01-01",
              "source": "notes"}
NEW_ENGINE = {**OLD_ENGINE, "value": "opensearch", "observed_at": "2026-02-01"}
UNRELATED = {"entity": "queue", "claim": "uses rabbitmq", "observed_at": "2026-01-01", "source": "notes"}


def scan(tmp_path: Path, name: str) -> dict[str, Any]:
    result = run_cli("scan", name, "--json", cwd=tmp_path)
    assert result.code in (0, 1), result.err
    return json.loads(result.out)  # type: ignore[no-any-return]


def flagged(data: dict[str, Any]) -> list[tuple[str, str, int, int]]:
    return sorted((f["rule"], f["entity"], f["line"], f.get("obs", -1)) for f in data["findings"])


def minified(path: Path, records: list[Any]) -> None:
    write(path, json.dumps(records, separators=(",", ":")))


def test_an_ignore_on_another_record_of_the_line_suppresses_nothing(tmp_path: Path) -> None:
    minified(tmp_path / "s.json", [OLD_DB, NEW_DB, {**UNRELATED, IGNORE: "all"}])
    data = scan(tmp_path, "s.json")
    assert ("contradicted_implicit", "billing", 1, -1) in flagged(data)
    assert "suppressed" not in data


def test_an_ignore_on_the_flagged_record_suppresses_its_finding_only(tmp_path: Path) -> None:
    minified(tmp_path / "s.json", [{**OLD_DB, IGNORE: "contradicted_implicit"}, NEW_DB, OLD_ENGINE, NEW_ENGINE])
    data = scan(tmp_path, "s.json")
    assert flagged(data) == [("contradicted_implicit", "search", 1, -1)]
    assert data["suppressed"] == 1


def test_records_on_their_own_lines_are_suppressed_as_before(tmp_path: Path) -> None:
    records = [{**OLD_DB, IGNORE: ["contradicted_implicit"]}, NEW_DB, OLD_ENGINE, NEW_ENGINE, {**UNRELATED, IGNORE: "*"}]
    write(tmp_path / "s.jsonl", "".join(json.dumps(record) + "\n" for record in records))
    data = scan(tmp_path, "s.jsonl")
    assert flagged(data) == [("contradicted_implicit", "search", 3, -1)]
    assert data["suppressed"] == 1


def test_a_copy_of_the_flagged_record_with_an_ignore_does_not_silence_it(tmp_path: Path) -> None:
    # The copy has the flagged record's content, so its fact id: it cannot say which one is flagged.
    minified(tmp_path / "s.json", [OLD_DB, NEW_DB, {**OLD_DB, IGNORE: "all"}])
    assert ("contradicted_implicit", "billing", 1, -1) in flagged(scan(tmp_path, "s.json"))


def test_a_record_that_forges_the_flagged_id_does_not_silence_it(tmp_path: Path) -> None:
    minified(tmp_path / "s.json", [{**OLD_DB, "id": "db-1"}, NEW_DB, {**UNRELATED, "id": "db-1", IGNORE: "all"}])
    assert ("contradicted_implicit", "billing", 1, -1) in flagged(scan(tmp_path, "s.json"))


def graph_node(name: str, **more: Any) -> dict[str, Any]:
    claim = f"{name} uses redis 7 for caching (2026-01-01)"
    return {"type": "entity", "name": name, "entityType": "service", "observations": [claim, claim], **more}


def test_a_graph_node_ignore_covers_its_observations_on_its_line(tmp_path: Path) -> None:
    nodes = [graph_node("billing"), graph_node("search", **{IGNORE: "duplicate"})]
    write(tmp_path / "g.jsonl", "".join(json.dumps(node) + "\n" for node in nodes))
    data = scan(tmp_path, "g.jsonl")
    assert [f for f in flagged(data) if f[0] == "duplicate"] == [("duplicate", "billing", 1, 1)]
    assert data["suppressed"] == 1


def test_a_graph_node_ignore_leaves_the_other_nodes_of_a_minified_document(tmp_path: Path) -> None:
    document = {"entities": [graph_node("search", **{IGNORE: "duplicate"}), graph_node("billing")], "relations": []}
    write(tmp_path / "g.json", json.dumps(document))
    data = scan(tmp_path, "g.json")
    assert [f for f in flagged(data) if f[0] == "duplicate"] == [("duplicate", "billing", 1, 1)]
    assert data["suppressed"] == 1


def test_an_ignore_in_a_memory_block_covers_the_fact_below_it(tmp_path: Path) -> None:
    value = ("- likes tea (2026-01-01)\n- likes tea (2026-01-01)\n- likes coffee (2026-01-01)\n"
             "<!-- memory-autopsy: ignore duplicate -->\n- likes coffee (2026-01-01)\n")
    write(tmp_path / "agent.json", json.dumps({"blocks": [{"label": "human", "value": value}]}))
    data = scan(tmp_path, "agent.json")
    assert [f for f in flagged(data) if f[0] == "duplicate"] == [("duplicate", "human", 1, 1)]
    assert data["suppressed"] == 1


def test_a_markdown_ignore_still_covers_the_line_below(tmp_path: Path) -> None:
    dated = " (2026-01-01) (source: notes)"
    write(tmp_path / "m.md", f"- cache-tier: uses redis 7{dated}\n- cache-tier: uses redis 7{dated}\n"
                             f"- search: uses redis 7{dated}\n<!-- memory-autopsy: ignore duplicate -->\n"
                             f"- search: uses redis 7{dated}\n")
    data = scan(tmp_path, "m.md")
    assert [f for f in flagged(data) if f[0] == "duplicate"] == [("duplicate", "cache-tier", 2, -1)]
    assert data["suppressed"] == 1
