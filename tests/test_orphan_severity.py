"""orphan_entity by what declared the entity: an empty heading or JSON key is read from the
file's shape (review, fails no default run); a graph node says it is an entity (warning)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.conftest import findings_of, run_cli, write

# An empty heading, as memory files hold them: sections written before their content.
NAMES = ("Discussion", "LegacyCron", "Auth Service", "payments-service", "Umbrella")
LEVELS = ("##", "###", "####")
FILES = ("memory.md", "memory-bank/activeContext.md", ".claude/memory/MEMORY.md", ".cursor/rules/memory.mdc",
         ".serena/memories/overview.md")


def _heading_store(name: str, level: str) -> str:
    return (f"# Project\n\n## Globex\n- works at Initech (2026-01-01) (source: hr)\n\n{level} {name}\n\n"
            "## Hooli\n- hosted on Hetzner (2026-01-01) (source: ops)\n")


@pytest.mark.parametrize("path", FILES)
@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("name", NAMES)
def test_an_empty_heading_is_a_review_item(tmp_path: Path, path: str, level: str, name: str) -> None:
    text = _heading_store(name, level)
    if path.endswith(".mdc"):
        text = "---\ndescription: project memory\nalwaysApply: true\n---\n" + text
    write(tmp_path / path, text)
    found = findings_of(tmp_path, "orphan_entity")
    assert [(f["severity"], f["entity"]) for f in found] == [("review", name)]
    assert run_cli("scan", ".", "--select", "orphan_entity", cwd=tmp_path).code == 0
    assert run_cli("scan", ".", "--select", "orphan_entity", "--fail-on", "review", cwd=tmp_path).code == 1


GRAPH = ('{"type": "entity", "name": "Billing", "entityType": "service", "observations": ["uses MySQL"]}\n'
         '{"type": "entity", "name": "%s", "entityType": "service", "observations": []}\n')


@pytest.mark.parametrize("name", NAMES)
def test_a_graph_node_with_nothing_keeps_warning(tmp_path: Path, name: str) -> None:
    write(tmp_path / "memory.jsonl", GRAPH % name)
    found = findings_of(tmp_path, "orphan_entity")
    assert [(f["severity"], f["line"]) for f in found] == [("warning", 2)]
    assert run_cli("scan", ".", "--select", "orphan_entity", cwd=tmp_path).code == 1


MAPS = (
    {"Billing": ["uses MySQL"], "%s": []},
    {"Billing": ["uses MySQL"], "%s": {}},
    {"project_summary": "a dev loop", "key_components": [{"name": "UI"}], "%s": []},
)


@pytest.mark.parametrize("shape", range(len(MAPS)))
@pytest.mark.parametrize("name", NAMES)
def test_an_empty_json_key_is_a_review_item(tmp_path: Path, name: str, shape: int) -> None:
    document = {key % name if "%" in key else key: value for key, value in MAPS[shape].items()}
    text = json.dumps(document, indent=2) + "\n"
    write(tmp_path / "memory.json", text)
    found = findings_of(tmp_path, "orphan_entity")
    line = next(number for number, row in enumerate(text.splitlines(), 1) if row.strip().startswith(f'"{name}"'))
    assert [(f["severity"], f["line"]) for f in found] == [("review", line)]
    assert run_cli("scan", ".", "--select", "orphan_entity", cwd=tmp_path).code == 0


def test_a_rule_file_severity_still_wins(tmp_path: Path) -> None:
    write(tmp_path / "memory.md", _heading_store("LegacyCron", "##"))
    write(tmp_path / "memory-autopsy.toml", '[rules]\norphan_entity = "error"\n')
    out = run_cli("scan", ".", "--json", "--fail-on", "error", cwd=tmp_path).out
    assert [f["severity"] for f in json.loads(out)["findings"] if f["rule"] == "orphan_entity"] == ["error"]
