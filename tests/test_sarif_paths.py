"""SARIF and annotations as GitHub reads them: repository-relative paths (an absolute path
argument too), linked other sides, history kept out of alerts, rule-file levels, the per-level
cap on `scan --format github`. Issue 12, item 7. Every log is checked against the vendored
SARIF 2.1.0 schema (tests/schemas/), so nothing here skips on a fresh clone."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT, git, run_cli, write
from memory_autopsy.formatters import locations, sarif
from memory_autopsy.model import Finding, Location, Report, Severity

SCHEMAS = ROOT / "tests" / "schemas"
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
PAIR = ("- billing-store: uses PostgreSQL 14 (2026-01-05) (source: infra)\n"
        "- billing-store: uses MySQL 8 (2026-06-02) (source: infra)\n")
HISTORY = 'Globex: employer = "Northwind" ; valid_to=2026-05-01 -- 2026-01-01 (source: hr)\n'
LINK = re.compile(r"(?<!\\)\[((?:[^\[\]\\]|\\.)*)\]\((\d+)\)")


def validate(log: dict[str, Any]) -> dict[str, Any]:
    import jsonschema

    schema = json.loads((SCHEMAS / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    jsonschema.Draft4Validator(schema).validate(log)
    return log


def scan_sarif(*args: str, cwd: Path) -> dict[str, Any]:
    result = run_cli("scan", *args, "--format", "sarif", "--fail-on", "never", cwd=cwd)
    assert result.code == 0, result.err
    return validate(json.loads(result.out))


def uris(log: dict[str, Any]) -> set[str]:
    found = set()
    for result in log["runs"][0]["results"]:
        for where in result.get("locations", []) + result.get("relatedLocations", []):
            artifact = where["physicalLocation"]["artifactLocation"]
            assert artifact.get("uriBaseId") == "%SRCROOT%", artifact
            found.add(artifact["uri"])
    return found


def rules_by_id(log: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {rule["id"]: rule for rule in log["runs"][0]["tool"]["driver"]["rules"]}


def a_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "repo"
    write(repo / "memory" / "notes.md", PAIR)
    git(repo, "init", "-q")
    return repo


@pytest.mark.parametrize("name", ["sarif-schema-2.1.0.json", "github-action.json"])
def test_vendored_schemas_are_the_published_ones(name: str) -> None:
    digest = hashlib.sha256((SCHEMAS / name).read_bytes()).hexdigest()
    assert digest in (SCHEMAS / "SOURCES.md").read_text(encoding="utf-8")


@needs_git
@pytest.mark.parametrize("where", ["", "memory"])
def test_an_absolute_path_gives_repository_relative_uris(tmp_path: Path, where: str) -> None:
    repo = a_repo(tmp_path)
    log = scan_sarif(str(repo / "memory" / "notes.md"), cwd=repo / where)
    assert uris(log) == {"memory/notes.md"}
    assert "file://" not in json.dumps(log)


@needs_git
def test_relative_paths_from_a_subfolder_are_re_rooted_too(tmp_path: Path) -> None:
    repo = a_repo(tmp_path)
    assert uris(scan_sarif("notes.md", cwd=repo / "memory")) == {"memory/notes.md"}


def test_outside_git_the_rule_file_folder_is_the_root(tmp_path: Path) -> None:
    project = tmp_path / "project"
    write(project / "memory-autopsy.toml", "fail-on = \"never\"\n")
    write(project / "memory" / "notes.md", PAIR)
    log = scan_sarif(str(project / "memory" / "notes.md"), cwd=project / "memory")
    assert uris(log) == {"memory/notes.md"}


def test_a_file_outside_the_root_keeps_an_absolute_uri(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    outside = str(tmp_path.parent / "elsewhere" / "a b.md")
    report = Report("heuristic", (), (finding("duplicate", outside, 3, Severity.INFO),))
    log = validate(json.loads(sarif.format_report(report, root=str(tmp_path))))
    artifact = log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert artifact["uri"].startswith("file:///") and artifact["uri"].endswith("/elsewhere/a%20b.md")
    assert "uriBaseId" not in artifact


def finding(rule: str, path: str, line: int, severity: Severity, message: str = "m",
            related: tuple[Location, ...] = ()) -> Finding:
    return Finding(rule=rule, severity=severity, layer="0", path=path, line=line, entity="e",
                   fidelity="", message=message, confidence=1.0, fact_ids=(), related=related,
                   fingerprint=f"{rule}{path}{line}")


def links(result: dict[str, Any]) -> list[tuple[str, int]]:
    return [(text, int(index)) for text, index in LINK.findall(result["message"]["text"])]


def test_every_other_side_is_linked_from_the_message(tmp_path: Path) -> None:
    write(tmp_path / "notes.md", PAIR + "- cache-tier: uses redis 7\n- cache-tier: uses redis 7\n")
    results = scan_sarif("notes.md", cwd=tmp_path)["runs"][0]["results"]
    paired = [r for r in results if r.get("relatedLocations")]
    assert {r["ruleId"] for r in paired} >= {"contradicted_implicit", "duplicate"}
    for result in paired:
        ids = {where["id"] for where in result["relatedLocations"]}
        linked = links(result)
        assert {index for _, index in linked} == ids, result["message"]["text"]
        for text, index in linked:
            where = next(w for w in result["relatedLocations"] if w["id"] == index)
            line = where["physicalLocation"]["region"]["startLine"]
            assert text == f"{where['physicalLocation']['artifactLocation']['uri']}:{line}"


def test_a_side_the_message_names_is_linked_in_place_and_brackets_are_escaped() -> None:
    side = Location("b.md", 4)
    named = finding("duplicate", "a.md", 1, Severity.INFO, "copy of b.md:4 [x] (not b.md:41)", (side,))
    unnamed = finding("duplicate", "a.md", 2, Severity.INFO, "copy", (side, Location("c.md", 9)))
    log = validate(json.loads(sarif.format_report(Report("heuristic", (), (named, unnamed)))))
    first, second = log["runs"][0]["results"]
    assert first["message"]["text"] == "copy of [b.md:4](0) \\[x\\] (not b.md:41)"
    assert second["message"]["text"] == "copy (other side: [b.md:4](0), [c.md:9](1))"
    assert [w["id"] for w in second["relatedLocations"]] == [0, 1]


def test_link_text_is_re_rooted_like_the_uri(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    other = str(tmp_path / "mem" / "b.md")
    flagged = finding("duplicate", "mem/a.md", 1, Severity.INFO, f"identical to {other}:2",
                      (Location(other, 2),))
    log = validate(json.loads(sarif.format_report(Report("heuristic", (), (flagged,)),
                                                  root=str(tmp_path))))
    assert log["runs"][0]["results"][0]["message"]["text"] == "identical to [mem/b.md:2](0)"


def test_resolved_history_is_not_uploaded_as_an_alert(tmp_path: Path) -> None:
    write(tmp_path / "notes.md", HISTORY + PAIR)
    text = run_cli("scan", "notes.md", "--fail-on", "never", "--format", "json", cwd=tmp_path).out
    assert "superseded" in {f["rule"] for f in json.loads(text)["findings"]}  # the engine found it
    run = scan_sarif("notes.md", cwd=tmp_path)["runs"][0]
    assert "superseded" not in {r["ruleId"] for r in run["results"]}
    assert run["results"] and run["properties"]["omitted"] == {"superseded": 1}
    assert "superseded" in rules_by_id({"runs": [run]})  # the catalogue stays complete


def test_history_raised_by_the_rule_file_is_uploaded(tmp_path: Path) -> None:
    write(tmp_path / "memory-autopsy.toml", '[rules]\nsuperseded = "warning"\n')
    write(tmp_path / "notes.md", HISTORY)
    run = scan_sarif("notes.md", cwd=tmp_path)["runs"][0]
    assert [(r["ruleId"], r["level"]) for r in run["results"]] == [("superseded", "warning")]
    assert "omitted" not in run["properties"]


RULE_FILE = '[rules]\ncontradicted_implicit = "warning"\nunsourced = "off"\nduplicate = "error"\n'


def check_rule_file_levels(log: dict[str, Any]) -> None:
    rules = rules_by_id(log)
    assert rules["contradicted_implicit"]["defaultConfiguration"] == {"level": "warning"}
    assert rules["contradicted_implicit"]["properties"]["problem.severity"] == "warning"
    assert rules["duplicate"]["defaultConfiguration"] == {"level": "error"}
    assert rules["unsourced"]["defaultConfiguration"]["enabled"] is False
    assert rules["validity_order"]["defaultConfiguration"] == {"level": "error"}  # untouched
    levels = {r["ruleId"]: r["level"] for r in log["runs"][0]["results"]}
    assert levels.get("contradicted_implicit") == "warning"


@needs_git
def test_rule_file_severities_with_an_absolute_path_validate(tmp_path: Path) -> None:
    repo = a_repo(tmp_path)
    write(repo / "memory-autopsy.toml", RULE_FILE)
    log = scan_sarif(str(repo / "memory" / "notes.md"), cwd=repo)
    check_rule_file_levels(log)
    assert uris(log) == {"memory/notes.md"}


@needs_git
def test_ci_sarif_has_the_same_paths_and_levels(tmp_path: Path) -> None:
    repo = a_repo(tmp_path)
    write(repo / "memory-autopsy.toml", RULE_FILE)
    result = run_cli("ci", str(repo / "memory" / "notes.md"), "--no-changed-only", "--fail-on",
                     "never", "--sarif-file", "out.sarif", "--format", "text", cwd=repo / "memory")
    assert result.code == 0, result.err
    log = validate(json.loads((repo / "memory" / "out.sarif").read_text(encoding="utf-8")))
    check_rule_file_levels(log)
    assert uris(log) == {"memory/notes.md"}


def many_warnings(count: int) -> str:
    return "".join(f"- service-{n}: uses redis {n} (2026-01-01) (source: ops)\n"
                   f"- service-{n}: uses redis {n + 1} (2026-02-01) (source: ops)\n"
                   for n in range(count))


@needs_git
def test_scan_format_github_keeps_the_per_level_cap_and_repository_paths(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write(repo / "memory" / "notes.md", many_warnings(14))
    git(repo, "init", "-q")
    result = run_cli("scan", str(repo / "memory" / "notes.md"), "--format", "github",
                     "--fail-on", "never", cwd=repo / "memory")
    assert result.code == 0, result.err
    head = result.out.split("::group::")[0].splitlines()
    errors = [line for line in head if line.startswith("::warning ")]
    assert len(errors) == 10 and all("file=memory/notes.md," in line for line in errors)
    assert any(line.startswith("::notice ") and "4 more" in line for line in head)
    assert str(repo) not in "\n".join(errors)  # the other side is spelled from the root too


@pytest.mark.parametrize("path, root, expected", [
    ("a.md", None, "a.md"),
    ("./x/../a.md", None, "a.md"),
    ("/abs/a.md", None, None),
    ("/r/sub/a.md", "/r", "sub/a.md"),
    ("/r2/a.md", "/r", None),
    ("/r", "/r", "."),
])
def test_rooted(path: str, root: str | None, expected: str | None) -> None:
    assert locations.rooted(path, root) == expected


@pytest.mark.parametrize("text, label, at", [
    ("see a.md:1 now", "a.md:1", 4),
    ("see a.md:12 then a.md:1", "a.md:1", 17),
    ("see xa.md:1", "a.md:1", -1),
    ("see sub/a.md:1", "a.md:1", -1),
    ("a.md:1", "a.md:1", 0),
])
def test_named_at(text: str, label: str, at: int) -> None:
    assert locations.named_at(text, label) == at
