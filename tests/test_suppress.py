"""In-place suppression through the CLI: markdown comments and the JSON/JSONL record field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli, write

DATED = " (2026-01-01) (source: notes)"


def scan(tmp_path: Path, name: str) -> dict[str, object]:
    result = run_cli("scan", name, "--json", cwd=tmp_path)
    assert result.code in (0, 1), result.err
    return json.loads(result.out)  # type: ignore[no-any-return]


def flagged(data: dict[str, object]) -> list[tuple[str, int]]:
    return [(f["rule"], f["line"]) for f in data["findings"]]  # type: ignore[attr-defined, index]


@pytest.mark.parametrize("text", [
    f"- cache-tier: uses redis 7{DATED}\n- cache-tier: uses redis 7{DATED} <!-- memory-autopsy: ignore duplicate -->\n",
    f"- cache-tier: uses redis 7{DATED}\n<!-- memory-autopsy: ignore duplicate -->\n- cache-tier: uses redis 7{DATED}\n",
    f"- cache-tier: uses redis 7{DATED}\n<!-- memory-autopsy: ignore -->\n- cache-tier: uses redis 7{DATED}\n",
    f"- cache-tier: uses redis 7{DATED}\n- cache-tier: uses redis 7{DATED} <!-- memory-autopsy: ignore unsourced, duplicate -->\n",
])
def test_markdown_suppression_is_counted(tmp_path: Path, text: str) -> None:
    write(tmp_path / "m.md", text)
    data = scan(tmp_path, "m.md")
    assert "duplicate" not in [rule for rule, _ in flagged(data)]
    assert data["suppressed"] == 1


def test_suppressing_another_rule_keeps_the_finding(tmp_path: Path) -> None:
    write(tmp_path / "m.md", f"- cache-tier: uses redis 7{DATED}\n"
                             f"- cache-tier: uses redis 7{DATED} <!-- memory-autopsy: ignore stale -->\n")
    data = scan(tmp_path, "m.md")
    assert ("duplicate", 2) in flagged(data)
    assert "suppressed" not in data


def test_ignore_without_rule_silences_every_rule_on_the_line(tmp_path: Path) -> None:
    write(tmp_path / "m.md", "- the API limit is 600 per minute\n"
                             "<!-- memory-autopsy: ignore -->\n- the API limit is 600 per minute\n")
    data = scan(tmp_path, "m.md")
    assert [line for _, line in flagged(data)] == [1]
    assert data["suppressed"] == 2  # duplicate and unsourced on line 3


def test_text_summary_mentions_suppressed(tmp_path: Path) -> None:
    write(tmp_path / "m.md", f"- cache-tier: uses redis 7{DATED}\n"
                             f"- cache-tier: uses redis 7{DATED} <!-- memory-autopsy: ignore -->\n")
    result = run_cli("scan", "m.md", cwd=tmp_path)
    assert result.code == 0 and "1 suppressed" in result.out


@pytest.mark.parametrize("ignore", [["duplicate"], "duplicate", ["all"], "*"])
def test_jsonl_record_field(tmp_path: Path, ignore: object) -> None:
    record = {"entity": "cache-tier", "claim": "uses redis 7", "observed_at": "2026-01-01"}
    lines = [json.dumps(record), json.dumps({**record, "memory-autopsy-ignore": ignore})]
    write(tmp_path / "s.jsonl", "\n".join(lines) + "\n")
    data = scan(tmp_path, "s.jsonl")
    assert "duplicate" not in [rule for rule, _ in flagged(data)]
    assert data["suppressed"] == 1


def test_json_record_field(tmp_path: Path) -> None:
    record = {"entity": "cache-tier", "claim": "uses redis 7", "observed_at": "2026-01-01"}
    facts = [record, {**record, "memory-autopsy-ignore": ["duplicate"]}]
    write(tmp_path / "s.json", json.dumps({"facts": facts}, indent=2))
    data = scan(tmp_path, "s.json")
    assert "duplicate" not in [rule for rule, _ in flagged(data)]
    assert data["suppressed"] == 1
