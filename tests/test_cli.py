"""The CLI: routing, the JSON contract of SPEC section 5, exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import EXAMPLES, ROOT, run_cli, run_process, write
from memory_autopsy import __version__

FINDING_KEYS = {
    "rule", "severity", "layer", "path", "line", "entity", "fidelity", "message", "confidence",
    "fact_ids", "related", "fingerprint",
}


def test_json_contract() -> None:
    result = run_cli("scan", "examples/memory.md", "examples/facts.json", "--json", cwd=ROOT)
    assert result.code == 1
    data = json.loads(result.out)
    assert set(data) == {"tool", "version", "engine", "facts", "files", "counts", "findings"}
    assert data["files"] == ["examples/facts.json", "examples/memory.md"]
    assert (data["tool"], data["version"], data["engine"], data["facts"]) == (
        "memory-autopsy", __version__, "heuristic", 15)
    assert data["counts"] == {"contradicted_explicit": 2, "contradicted_implicit": 3, "duplicate": 1, "unsourced": 1}
    judged = {"contradicted_explicit", "contradicted_implicit", "near_duplicate", "stale", "status_conflict"}
    for finding in data["findings"]:
        assert set(finding) == FINDING_KEYS | ({"judge"} if finding["rule"] in judged else set())
        assert all(set(r) == {"path", "line", "fact_id"} for r in finding["related"])
    keys = [(f["path"], f["line"], f["rule"]) for f in data["findings"]]
    assert keys == sorted(keys)
    assert "\\" not in result.out.replace("\\\"", "")


def test_format_json_equals_json_flag() -> None:
    a = run_cli("scan", "examples/store.jsonl", "--json", cwd=ROOT)
    b = run_cli("scan", "examples/store.jsonl", "--format", "json", cwd=ROOT)
    assert a == b


def test_exit_codes(tmp_path: Path) -> None:
    write(tmp_path / "clean.md", "- billing: uses MySQL (2026-01-01) (source: ops)\n")
    write(tmp_path / "info.md", "- billing: uses MySQL\n")
    assert run_cli("scan", "clean.md", cwd=tmp_path).code == 0
    assert run_cli("scan", "info.md", cwd=tmp_path).code == 0  # default fail-on: warning
    assert run_cli("scan", "info.md", "--fail-on", "info", cwd=tmp_path).code == 1
    assert run_cli("scan", "missing.md", cwd=tmp_path).code == 2
    assert run_cli("scan", cwd=tmp_path).code == 2
    assert run_cli("scan", "clean.md", "--as-of", "not-a-date", cwd=tmp_path).code == 2
    assert run_cli("scan", "clean.md", "--format", "yaml", cwd=tmp_path).code == 2
    assert run_cli(cwd=tmp_path).code == 2


def test_superseded_never_fails(tmp_path: Path) -> None:
    write(tmp_path / "m.md", 'g: employer = "N" ; valid_to=2026-05-01 -- 2026-01-01 (source: hr)\n')
    result = run_cli("scan", "m.md", cwd=tmp_path)
    assert "superseded" in result.out and result.code == 0


def test_missing_path_beside_a_good_one_is_a_usage_error(tmp_path: Path) -> None:
    write(tmp_path / "clean.md", "- billing: uses MySQL (2026-01-01) (source: ops)\n")
    result = run_cli("scan", "clean.md", "memroy/", "--fail-on", "warning", cwd=tmp_path)
    assert result.code == 2 and "no such file or directory: memroy/" in result.err  # a typo fails CI


def test_version_and_help() -> None:
    assert run_cli("--version").out.strip() == f"memory-autopsy {__version__}"
    help_text = run_cli("scan", "--help").out
    assert "examples:" in help_text and "--fail-on" in help_text and "exit codes" in help_text


def test_clean_text_summary(tmp_path: Path) -> None:
    write(tmp_path / "m.md", "- billing: uses MySQL (2026-01-01) (source: ops)\n")
    assert run_cli("scan", "m.md", cwd=tmp_path).out == "clean: 1 facts, 0 findings (engine=heuristic)\n"


def test_as_of_ignores_later_facts() -> None:
    later = run_cli("scan", "examples/memory.md", "--as-of", "2026-03-01", "--json", cwd=ROOT)
    rules = {f["rule"] for f in json.loads(later.out)["findings"]}
    assert "contradicted_explicit" not in rules and "contradicted_implicit" not in rules


def test_report_is_markdown_with_dry_run_plan() -> None:
    out = run_cli("report", "examples/memory.md", "examples/facts.json", cwd=ROOT).out
    assert out.startswith("# memory-autopsy report\n")
    assert "## Fix plan (dry-run — pass --apply --yes-i-know to execute)" in out
    assert "- delete examples/memory.md:11" in out


def test_real_process_entry_point() -> None:
    result = run_process("scan", str(EXAMPLES / "greyzone.md"))
    assert result.code == 0 and result.out.startswith("clean: 2 facts")
    assert result.err == ""


def test_each_command_is_built_from_the_module_the_table_names() -> None:
    import argparse
    import importlib

    from memory_autopsy.cli import _lint_options
    from memory_autopsy.commands import COMMANDS, MODULES

    registered: dict[str, str] = {}
    for name in MODULES:
        sub = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(f"memory_autopsy.commands.{name}").register(sub, _lint_options, "")
        registered.update(dict.fromkeys(sub.choices, name))
    assert registered == COMMANDS


def test_a_command_runs_with_only_its_own_parser_and_help_lists_them_all() -> None:
    from memory_autopsy.cli import build_parser
    from memory_autopsy.commands import COMMANDS

    every = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert set(every) == set(COMMANDS)
    only = build_parser("hook")._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert "hook" in only and "scan" not in only
    assert "why" in run_cli("--help").err + run_cli("--help").out
