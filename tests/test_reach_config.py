"""The rule file's [reachability] tables: load budgets and link rules overridden per system."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import EXAMPLES, run_cli, write
from memory_autopsy.api import lint, load_store
from memory_autopsy.config import load_settings
from memory_autopsy.engine.reachability import LOADED, UNREACHABLE, analyse
from memory_autopsy.lexicon.budgets import default_budgets
from memory_autopsy.settings import Settings

INDEX = "memory/MEMORY.md"


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    """The Claude Code example folder (MEMORY.md: 239 lines, 19933 bytes), with a rule file."""
    shutil.copytree(EXAMPLES / "claude-memory", tmp_path / "claude-memory")
    return tmp_path / "claude-memory"


def rule_file(folder: Path, text: str) -> Path:
    return write(folder / "memory-autopsy.toml", text)


def found(folder: Path, *args: str) -> list[tuple[str, str, int]]:
    result = run_cli("scan", ".", "--json", *args, cwd=folder)
    assert result.code in (0, 1), result.err
    return [(f["rule"], f["path"], f["line"]) for f in json.loads(result.out)["findings"]]


def budget_row(folder: Path, name: str = "MEMORY.md") -> dict:  # type: ignore[type-arg]
    result = run_cli("budget", ".", "--json", cwd=folder)
    assert result.code == 0, result.err
    (row,) = [r for r in json.loads(result.out)["files"] if Path(r["path"]).name == name]
    return row  # type: ignore[no-any-return]


def first_line_past(path: Path, max_bytes: int) -> int:
    end = 0
    for number, line in enumerate(path.read_bytes().split(b"\n"), 1):
        end += len(line) + 1
        if end > max_bytes:
            return number
    raise AssertionError("the file fits")


def test_without_the_table_the_budgets_are_the_built_in_ones(folder: Path) -> None:
    rule_file(folder, '[rules]\nunsourced = "off"\n')
    assert load_settings(folder / "memory-autopsy.toml").budgets is None
    assert ("beyond_budget", INDEX, 201) in found(folder)
    assert found(folder) == found(folder, "--isolated")
    row = budget_row(folder)
    assert (row["budget_lines"], row["budget_bytes"], row["outside"][0]["line"]) == (200, 25600, 201)


def test_a_line_budget_moves_where_beyond_budget_fires(folder: Path) -> None:
    rule_file(folder, "[reachability.claude-code]\nmax-lines = 150\n")
    assert [f for f in found(folder) if f[0] == "beyond_budget"] == [("beyond_budget", INDEX, 151)]
    row = budget_row(folder)
    assert (row["budget_lines"], row["budget_bytes"], row["outside"][0]["line"]) == (150, 25600, 151)
    table = run_cli("budget", ".", cwd=folder).out
    assert "239/150" in table and "MEMORY.md:151" in table


def test_a_byte_budget_moves_it_too_through_the_api(folder: Path) -> None:
    rule_file(folder, '[reachability.claude-code]\nmax-bytes = 10000\nmax-lines = "off"\n')
    settings = load_settings(folder / "memory-autopsy.toml")
    index = folder / INDEX
    report = lint([str(folder)], settings)
    (finding,) = [f for f in report.findings if f.rule == "beyond_budget"]
    assert finding.line == first_line_past(index, 10000)
    assert "(10000 bytes;" in finding.message  # the overridden budget, in words
    reach = analyse(load_store([str(folder)]), settings.budgets)
    assert reach.budget_line[str(index)] == first_line_past(index, 10000)
    assert budget_row(folder)["budget_lines"] is None


def test_a_larger_budget_brings_the_correction_in(folder: Path) -> None:
    rule_file(folder, "[reachability.claude-code]\nmax-lines = 400\n")
    rules = found(folder)
    assert "beyond_budget" not in [rule for rule, _, _ in rules]
    report = lint([str(folder)], load_settings(folder / "memory-autopsy.toml"))
    (conflict,) = [f for f in report.findings if f.rule == "stale"]
    assert "never the correction" not in conflict.message  # the agent now reads both sides
    assert budget_row(folder)["outside"] == []


def test_budget_off_loads_the_whole_index(folder: Path) -> None:
    rule_file(folder, '[reachability.claude-code]\nmax-lines = "off"\nmax-bytes = "off"\n')
    assert "beyond_budget" not in [rule for rule, _, _ in found(folder)]
    row = budget_row(folder)
    assert (row["state"], row["budget_lines"], row["budget_bytes"], row["outside"]) == ("loaded (index)", None, None, [])


def test_a_system_turned_off_has_no_load_rules(folder: Path) -> None:
    rule_file(folder, '[reachability]\nclaude-code = "off"\n')
    rules = {rule for rule, _, _ in found(folder)}
    assert not rules & {"beyond_budget", "broken_link", "unlinked_memory"}
    settings = load_settings(folder / "memory-autopsy.toml")
    assert settings.budgets is not None and settings.budgets["claude-code"] == {}
    assert settings.budgets["gemini"] == default_budgets()["gemini"]  # the others keep theirs


def test_the_index_and_always_loaded_files_are_data_too(folder: Path) -> None:
    rule_file(folder, '[reachability.claude-code]\nalways-loaded = ["claude.md", "project_ledger.md"]\n')
    reach = analyse(load_store([str(folder)]), load_settings(folder / "memory-autopsy.toml").budgets)
    assert reach.state[str(folder / "memory" / "project_ledger.md")] == UNREACHABLE  # still not linked
    assert reach.state[str(folder / "CLAUDE.md")] == LOADED
    rule_file(folder, '[reachability.claude-code]\nindex = "other.md"\n')
    assert "beyond_budget" not in [rule for rule, _, _ in found(folder)]


def test_import_depth(tmp_path: Path) -> None:
    write(tmp_path / "CLAUDE.md", "# Rules\n- deep: @d1.md\n")
    for n in range(1, 4):
        write(tmp_path / f"d{n}.md", f"- next @d{n + 1}.md\n" if n < 3 else "- the end\n")
    assert "broken_link" not in [rule for rule, _, _ in found(tmp_path)]  # 3 hops: within 5
    write(tmp_path / "memory-autopsy.toml", "[reachability.claude-code]\nimport-depth = 2\n")
    result = run_cli("scan", ".", "--json", cwd=tmp_path)
    (broken,) = [f for f in json.loads(result.out)["findings"] if f["rule"] == "broken_link"]
    assert broken["line"] == 2 and "past the limit of 2" in broken["message"]
    write(tmp_path / "memory-autopsy.toml", '[reachability.claude-code]\nimport-depth = "off"\n')
    write(tmp_path / "d3.md", "- next @e1.md\n")
    for n in range(1, 9):
        write(tmp_path / f"e{n}.md", f"- next @e{n + 1}.md\n" if n < 8 else "- the end\n")
    assert "broken_link" not in [rule for rule, _, _ in found(tmp_path)]  # 11 hops, no limit


def test_pyproject_table(folder: Path) -> None:
    write(folder / "pyproject.toml", '[project]\nname = "x"\n\n[tool.memory-autopsy.reachability.claude-code]\n'
                                     "max-lines = 150\n")
    assert ("beyond_budget", INDEX, 151) in found(folder)
    assert budget_row(folder)["budget_lines"] == 150


@pytest.mark.parametrize("text, key", [
    ("[reachability.claude-memory]\nmax-lines = 150\n", "reachability.claude-memory"),
    ("[reachability.serena]\nmax-lines = 150\n", "reachability.serena"),
    ("[reachability.claude-code]\nmax-line = 150\n", "reachability.claude-code.max-line"),
    ('[reachability.claude-code]\nmax-lines = "150"\n', "reachability.claude-code.max-lines"),
    ("[reachability.claude-code]\nmax-lines = 0\n", "reachability.claude-code.max-lines"),
    ("[reachability.claude-code]\nmax-bytes = 2.5\n", "reachability.claude-code.max-bytes"),
    ("[reachability.claude-code]\nimport-depth = true\n", "reachability.claude-code.import-depth"),
    ('[reachability.claude-code]\nalways-loaded = "claude.md"\n', "reachability.claude-code.always-loaded"),
    ("[reachability.claude-code]\nindex = 3\n", "reachability.claude-code.index"),
    ('[reachability.claude-code]\nindex = "off"\n', "reachability.claude-code.max-lines"),
    ("[reachability.gemini]\nmax-lines = 100\n", "reachability.gemini.max-lines"),
    ('[reachability]\nclaude-code = "on"\n', "reachability.claude-code"),
    ("reachability = 3\n", "reachability"),
])
def test_a_bad_table_is_a_config_error(tmp_path: Path, text: str, key: str) -> None:
    write(tmp_path / "memory-autopsy.toml", text)
    write(tmp_path / "CLAUDE.md", "- use uv\n")
    for command in ("scan", "budget"):
        result = run_cli(command, ".", cwd=tmp_path)
        assert result.code == 2, (command, result.out)
        assert "memory-autopsy.toml" in result.err and f"{key}:" in result.err
        assert "Traceback" not in result.err


def test_unknown_system_names_the_known_ones(tmp_path: Path) -> None:
    write(tmp_path / "memory-autopsy.toml", "[reachability.claude-memory]\nmax-lines = 150\n")
    err = run_cli("budget", ".", cwd=tmp_path).err
    assert all(name in err for name in default_budgets())


def test_default_settings_use_the_built_in_budgets() -> None:
    assert Settings().budgets is None
    assert default_budgets()["claude-code"]["max-lines"] == 200
