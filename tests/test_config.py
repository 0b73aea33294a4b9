"""The rule file: discovery, validation (exit 2 naming file and key), every key's effect."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from conftest import ROOT, run_cli, write
from memory_autopsy.config import load_settings
from memory_autopsy.config_schema import documented_keys
from memory_autopsy.model import Severity
from memory_autopsy.rules import RULES

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

EXAMPLE = ROOT / "src" / "memory_autopsy" / "memory-autopsy.toml.example"
DUPLICATES = "- cache-tier: uses redis 7 (2026-01-01)\n- cache-tier: uses redis 7 (2026-01-01)\n"


def rules_of(result_out: str) -> list[str]:
    return [f["rule"] for f in json.loads(result_out)["findings"]]


def _flat_keys(table: dict[str, object], prefix: str = "") -> set[str]:
    keys: set[str] = set()
    for key, value in table.items():
        if isinstance(value, dict) and key in ("vocabulary", "staleness", "embed"):
            keys |= _flat_keys(value, f"{key}.")
        else:
            keys.add(prefix + key)
    return keys


def test_example_documents_every_key() -> None:
    data = tomllib.loads(EXAMPLE.read_text(encoding="utf-8"))
    assert set(documented_keys()) <= _flat_keys(data)


def test_example_loads_and_sets_everything() -> None:
    settings = load_settings(EXAMPLE)
    assert settings.fail_on is Severity.WARNING
    assert settings.severities["unsourced"] is None
    assert settings.severities["duplicate"] is Severity.WARNING
    assert settings.max_age_days == 365
    assert settings.embed.provider == "ollama" and settings.embed.batch_size == 64
    assert settings.embed.api_key_env == "OPENAI_API_KEY" and settings.embed.timeout == 30.0
    assert settings.weights["class.primary"] == 1.0 and settings.weights["fidelity.RESIDUAL"] == 0.5
    assert "offboarded from" in settings.vocabulary.forward_triggers
    assert settings.vocabulary.anchors["is built with"] == "anchor:uses"
    assert settings.vocabulary.synonyms["pg15"] == "postgresql 15"
    assert settings.include and settings.exclude
    assert settings.baseline is not None and settings.baseline.endswith(".memory-autopsy-baseline.json")


def test_example_loads_through_the_cli() -> None:
    result = run_cli("scan", "examples/memory.md", "--config", str(EXAMPLE), "--json", cwd=ROOT)
    assert result.code in (0, 1), result.err


@pytest.mark.parametrize("text, key", [
    ('fial-on = "error"\n', "fial-on"),
    ('fail-on = "fatal"\n', "fail-on"),
    ('include = "memory/*.md"\n', "include"),
    ('[rules]\nduplicat = "off"\n', "rules.duplicat"),
    ('[rules]\nduplicate = "loud"\n', "rules.duplicate"),
    ('[rules]\nduplicate = { level = "error" }\n', "rules.duplicate"),
    ('[staleness]\nmax-age-days = -3\n', "staleness.max-age-days"),
    ('[staleness]\nmax-age = 3\n', "staleness.max-age"),
    ('[embed]\nprovider = "cohere"\n', "embed.provider"),
    ('[embed]\nurl = "localhost:11434"\n', "embed.url"),
    ('[embed]\ntimeout = 0\n', "embed.timeout"),
    ('[embed]\nbatch-size = 2.5\n', "embed.batch-size"),
    ('[embed]\napi-key = "sk-123"\n', "embed.api-key"),
    ('[embed]\napi-key-env = "sk-123 456"\n', "embed.api-key-env"),
    ('[vocabulary]\ntransitions = [1]\n', "vocabulary.transitions"),
    ('[vocabulary]\nanchors = { "is built with" = 3 }\n', "vocabulary.anchors"),
    ('[weights]\n"cues.verified" = 1.5\n', "weights.cues.verified"),
    ('[weights]\n"class.tertiary" = 0.5\n', "weights.class.tertiary"),
    ('[weights]\n"fidelity.full" = 0.5\n', "weights.fidelity.full"),
    ('engine = "magic"\n', "engine"),
])
def test_bad_key_or_value_exits_2_naming_file_and_key(tmp_path: Path, text: str, key: str) -> None:
    write(tmp_path / "memory-autopsy.toml", text)
    write(tmp_path / "m.md", DUPLICATES)
    result = run_cli("scan", "m.md", cwd=tmp_path)
    assert result.code == 2
    assert "memory-autopsy.toml" in result.err and f"{key}:" in result.err
    assert "Traceback" not in result.err


def test_invalid_toml_exits_2(tmp_path: Path) -> None:
    write(tmp_path / "memory-autopsy.toml", "fail-on = \n")
    write(tmp_path / "m.md", DUPLICATES)
    result = run_cli("scan", "m.md", cwd=tmp_path)
    assert result.code == 2 and "memory-autopsy.toml" in result.err


def test_found_by_walking_up(tmp_path: Path) -> None:
    write(tmp_path / "memory-autopsy.toml", '[rules]\nduplicate = "off"\n')
    deep = tmp_path / "a" / "b"
    write(deep / "m.md", DUPLICATES)
    assert "duplicate" not in rules_of(run_cli("scan", "m.md", "--json", cwd=deep).out)
    isolated = run_cli("scan", "m.md", "--json", "--isolated", cwd=deep)
    assert "duplicate" in rules_of(isolated.out)


def test_walk_stops_at_the_repository_root(tmp_path: Path) -> None:
    write(tmp_path / "memory-autopsy.toml", '[rules]\nduplicate = "off"\n')
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    write(repo / "m.md", DUPLICATES)
    assert "duplicate" in rules_of(run_cli("scan", "m.md", "--json", cwd=repo).out)


def test_pyproject_table(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[project]\nname = "x"\n\n[tool.memory-autopsy.rules]\n'
                                       'duplicate = "off"\n')
    write(tmp_path / "m.md", DUPLICATES)
    assert "duplicate" not in rules_of(run_cli("scan", "m.md", "--json", cwd=tmp_path).out)


def test_pyproject_table_is_validated(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[tool.memory-autopsy]\nfail_on = "error"\n')
    write(tmp_path / "m.md", DUPLICATES)
    result = run_cli("scan", "m.md", cwd=tmp_path)
    assert result.code == 2 and "pyproject.toml" in result.err and "fail_on" in result.err


def test_pyproject_without_our_table_is_ignored(tmp_path: Path) -> None:
    write(tmp_path / "pyproject.toml", '[project]\nname = "memory-autopsy-user"\n')
    write(tmp_path / "m.md", DUPLICATES)
    assert "duplicate" in rules_of(run_cli("scan", "m.md", "--json", cwd=tmp_path).out)


def test_config_flag_overrides_discovery(tmp_path: Path) -> None:
    write(tmp_path / "memory-autopsy.toml", '[rules]\nduplicate = "off"\n')
    other = write(tmp_path / "other.toml", '[rules]\nduplicate = "error"\n')
    write(tmp_path / "m.md", DUPLICATES)
    data = json.loads(run_cli("scan", "m.md", "--json", "--config", str(other), cwd=tmp_path).out)
    assert [f["severity"] for f in data["findings"] if f["rule"] == "duplicate"] == ["error"]


def test_missing_config_flag_is_a_usage_error(tmp_path: Path) -> None:
    write(tmp_path / "m.md", DUPLICATES)
    result = run_cli("scan", "m.md", "--config", "nope.toml", cwd=tmp_path)
    assert result.code == 2 and "nope.toml" in result.err


@pytest.mark.parametrize("fail_on, flag, code", [
    ("never", None, 0), ("error", None, 0), ("info", None, 1), ("never", "info", 1),
])
def test_fail_on_from_file_and_flag(tmp_path: Path, fail_on: str, flag: str | None, code: int) -> None:
    write(tmp_path / "memory-autopsy.toml", f'fail-on = "{fail_on}"\n')
    write(tmp_path / "m.md", DUPLICATES)
    args = ["scan", "m.md"] + (["--fail-on", flag] if flag else [])
    assert run_cli(*args, cwd=tmp_path).code == code


def test_extra_transition_word(tmp_path: Path) -> None:
    write(tmp_path / "m.md", "## Globex\n- works at Northwind (2026-01-01)\n"
                             "- offboarded from Northwind (2026-05-01)\n")
    before = rules_of(run_cli("scan", "m.md", "--json", cwd=tmp_path).out)
    write(tmp_path / "memory-autopsy.toml", '[vocabulary]\ntransitions = ["offboarded from"]\n')
    after = rules_of(run_cli("scan", "m.md", "--json", cwd=tmp_path).out)
    assert "contradicted_explicit" not in before and "contradicted_explicit" in after


def test_max_age_days_turns_on_aged(tmp_path: Path) -> None:
    write(tmp_path / "m.md", "- deploy-window: runs at Friday 18:00 (2020-01-01) (source: ops)\n")
    assert "aged" not in rules_of(run_cli("scan", "m.md", "--json", cwd=tmp_path).out)
    write(tmp_path / "memory-autopsy.toml", "[staleness]\nmax-age-days = 30\n")
    assert "aged" in rules_of(run_cli("scan", "m.md", "--json", cwd=tmp_path).out)


def test_include_exclude_select_folder_files(tmp_path: Path) -> None:
    write(tmp_path / "memory" / "a.md", DUPLICATES)
    write(tmp_path / "memory" / "archive" / "b.md", DUPLICATES)
    write(tmp_path / "memory-autopsy.toml", 'include = ["memory/**"]\nexclude = ["memory/archive/**"]\n')
    data = json.loads(run_cli("scan", "memory", "--json", cwd=tmp_path).out)
    assert {f["path"] for f in data["findings"]} == {"memory/a.md"}


def test_init_writes_a_valid_starter_and_refuses_to_overwrite(tmp_path: Path) -> None:
    first = run_cli("init", cwd=tmp_path)
    assert first.code == 0 and (tmp_path / "memory-autopsy.toml").is_file()
    load_settings(tmp_path / "memory-autopsy.toml")
    (tmp_path / "memory-autopsy.toml").write_text("# mine\n", encoding="utf-8")
    again = run_cli("init", cwd=tmp_path)
    assert again.code == 2 and "--force" in again.err
    assert (tmp_path / "memory-autopsy.toml").read_text(encoding="utf-8") == "# mine\n"
    assert run_cli("init", "--force", cwd=tmp_path).code == 0
    assert "fail-on" in (tmp_path / "memory-autopsy.toml").read_text(encoding="utf-8")


def test_rules_lists_every_rule_with_default_severity_and_help() -> None:
    result = run_cli("rules")
    assert result.code == 0
    flat = " ".join(result.out.split())
    for rule in RULES:
        assert f"{rule.id} [default {rule.severity.value}" in flat
        assert rule.help in flat
    listed = json.loads(run_cli("rules", "--json").out)
    assert [r["id"] for r in listed] == [r.id for r in RULES]


def test_init_full_prints_the_shipped_example_which_is_a_valid_rule_file(tmp_path: Path) -> None:
    done = run_cli("init", "--full", cwd=tmp_path)
    assert done.code == 0 and not (tmp_path / "memory-autopsy.toml").exists()
    assert done.out == EXAMPLE.read_text(encoding="utf-8")
    (tmp_path / "memory-autopsy.toml").write_text(done.out, encoding="utf-8")
    load_settings(tmp_path / "memory-autopsy.toml")
    (tmp_path / "other").mkdir()
    assert "init --full" in run_cli("init", cwd=tmp_path / "other").out
