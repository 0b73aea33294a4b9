"""The flags users bring from other linters work on every command that reports: `ci` takes
--select, --ignore and --exit-zero as `scan` does, --output-format is --format, `rules NAME`
prints one rule, and a mistyped or borrowed flag or rule name says what was meant."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import committed_repo, run_cli

MEMORY = ("- billing: uses PostgreSQL 14 (2026-01-01)\n"
          "- billing: migrated off PostgreSQL 14 to MySQL 8 (2026-03-01)\n")


def repository(tmp_path: Path) -> Path:
    return committed_repo(tmp_path / "repo", {"memory-bank/progress.md": MEMORY})


def test_ci_takes_select_ignore_and_exit_zero(tmp_path: Path) -> None:
    repo = repository(tmp_path)
    base = ("ci", "--format", "text", "--fail-on", "info")
    plain = run_cli(*base, cwd=repo)
    assert plain.code == 1 and "contradicted_explicit" in plain.out
    zero = run_cli(*base, "--exit-zero", cwd=repo)
    assert zero.code == 0 and "contradicted_explicit" in zero.out  # reported, not failed
    assert run_cli(*base, "--ignore", "contradicted_explicit", cwd=repo).code == 0
    assert run_cli(*base, "--select", "MA3", cwd=repo).code == 0  # the stale rules: none here
    assert run_cli(*base, "--select", "MA201", cwd=repo).code == 1
    wrong = run_cli(*base, "--select", "contradicted_explicitt", cwd=repo)
    assert wrong.code == 2 and "did you mean 'contradicted_explicit'?" in wrong.err


@pytest.mark.parametrize("command", ["scan", "ci"])
def test_output_format_is_format(tmp_path: Path, command: str) -> None:
    result = run_cli(command, "--output-format", "json", "--fail-on", "never", cwd=repository(tmp_path))
    assert result.code == 0, result.err
    assert json.loads(result.out)["findings"][0]["rule"] == "contradicted_explicit"


def test_rules_prints_the_rules_named() -> None:
    one = run_cli("rules", "status_conflict")
    assert one.code == 0 and one.out.count("[default ") == 1 and one.out.startswith("MA204  status_conflict")
    grounding = json.loads(run_cli("rules", "MA6", "--json").out)
    assert [r["id"] for r in grounding] == ["missing_path", "missing_command"]
    assert run_cli("rules").out.count("[default ") > 20
    wrong = run_cli("rules", "statuz_conflict")
    assert wrong.code == 2 and "did you mean 'status_conflict'?" in wrong.err


@pytest.mark.parametrize("flag, hint", [
    ("--fix", "report --apply --yes-i-know"),
    ("--exit-zeroo", "did you mean --exit-zero?"),
    ("--max-agedays=3", "did you mean --max-age-days?"),
])
def test_an_unknown_flag_says_what_was_meant(tmp_path: Path, flag: str, hint: str) -> None:
    result = run_cli("scan", flag, cwd=repository(tmp_path))
    assert result.code == 2 and f"unrecognized arguments: {flag}" in result.err and hint in result.err


def test_a_rule_file_typo_says_what_was_meant(tmp_path: Path) -> None:
    repo = repository(tmp_path)
    (repo / "memory-autopsy.toml").write_text('[rules]\nstatus_conflit = "error"\n', encoding="utf-8")
    result = run_cli("scan", cwd=repo)
    assert result.code == 2 and "rules.status_conflit: unknown rule (did you mean 'status_conflict'?)" in result.err


def test_ci_takes_statistics_and_a_flag_of_another_command_is_named_so(tmp_path: Path) -> None:
    repo = committed_repo(tmp_path / "repo", {"memory-bank/progress.md": MEMORY})
    table = run_cli("ci", "--format", "text", "--statistics", "--no-changed-only", "--exit-zero", cwd=repo)
    assert table.code == 0 and re.search(r"^\s*\d+\s+MA\d{3}\s+\w+\s+\w+$", table.out, re.M), table
    assert "--statistics prints a text table" in run_cli("ci", "--statistics", cwd=repo).err
    refused = run_cli("init", "--statistics", cwd=repo)
    assert refused.code == 2 and "--statistics is not an option of this command" in refused.err
    assert "did you mean --statistics" not in refused.err
