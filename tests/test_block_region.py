"""A copied block is one finding for the whole block, so its location is a region: JSON gives
`end_line` (and, for observations copied within one graph line, `obs` to `end_obs`), SARIF and
GitHub annotations an `endLine`. The real eval reads that region: a label on the block's third line is reported."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from conftest import ROOT, run_cli, write

BLOCK = "- cache tier uses redis 7\n- queue runs on rabbitmq\n- search runs on opensearch\n"


def findings(root: Path, *args: str) -> list[dict[str, Any]]:
    result = run_cli("scan", str(root), "--format", "json", *args)
    return [f for f in json.loads(result.out)["findings"] if f["rule"] == "duplicate"]


def test_a_copied_block_of_lines_ends_at_its_last_line(tmp_path: Path) -> None:
    write(tmp_path / "memory" / "a.md", f"# Stack\n\n{BLOCK}")
    write(tmp_path / "memory" / "b.md", f"# Notes\n\nSome intro.\n\n{BLOCK}")
    found = findings(tmp_path)
    assert len(found) == 1, found
    assert (found[0]["line"], found[0]["end_line"]) == (5, 7)
    assert "end_obs" not in found[0]
    sarif = json.loads(run_cli("scan", str(tmp_path), "--format", "sarif").out)
    regions = [r["locations"][0]["physicalLocation"]["region"] for r in sarif["runs"][0]["results"]
               if r["ruleId"] == "duplicate"]
    assert regions == [{"startLine": 5, "endLine": 7}]
    github = run_cli("scan", str(tmp_path), "--format", "github").out
    assert [line for line in github.splitlines() if "duplicate" in line and "line=5,endLine=7," in line], github


def test_a_one_line_finding_has_no_end(tmp_path: Path) -> None:
    write(tmp_path / "memory" / "a.md", "# Stack\n\n- cache tier uses redis 7\n- cache tier uses redis 7\n")
    found = findings(tmp_path)
    assert len(found) == 1, found
    assert "end_line" not in found[0] and "end_obs" not in found[0]


def test_observations_copied_within_one_graph_line_end_at_the_last_observation(tmp_path: Path) -> None:
    said = ["A test project for tools", "Contains multiple components", "Has high priority status"]
    entity = {"type": "entity", "name": "TestProject", "entityType": "project",
              "observations": [*said, "Created with the graph tools", *said, "Tested the updates"]}
    write(tmp_path / "memory.jsonl", json.dumps(entity) + "\n")
    found = findings(tmp_path)
    assert len(found) == 1, found
    assert (found[0]["line"], found[0]["obs"], found[0]["end_obs"]) == (1, 4, 6)
    assert "end_line" not in found[0]
    assert "block of 3 observations (obs 4-6)" in found[0]["message"]
    assert "(obs 0-2)" in found[0]["message"]


def run_real() -> ModuleType:
    sys.path.insert(0, str(ROOT / "eval"))  # its helper module lives beside it
    spec = importlib.util.spec_from_file_location("run_real", ROOT / "eval" / "run_real.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["run_real"] = module
    spec.loader.exec_module(module)
    return module


def test_the_real_eval_reads_a_findings_region() -> None:
    real = run_real()
    block = real.to_finding({"rule": "duplicate", "severity": "info", "path": "s/m.md", "line": 10,
                             "end_line": 14, "related": []})
    graph = real.to_finding({"rule": "duplicate", "severity": "info", "path": "s/g.jsonl", "line": 3,
                             "obs": 5, "end_obs": 9, "related": []})
    assert real.Side("s/m.md", 12, 12, None).holds(block.loc)
    assert real.Side("s/m.md", 8, 10, None).holds(block.loc)
    assert not real.Side("s/m.md", 15, 15, None).holds(block.loc)
    assert real.Side("s/g.jsonl", 3, 3, 7).holds(graph.loc)
    assert not real.Side("s/g.jsonl", 3, 3, 4).holds(graph.loc)
    assert not real.Side("s/g.jsonl", 3, 3, 10).holds(graph.loc)
