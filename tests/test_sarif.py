"""SARIF 2.1.0: valid against the official schema, every rule described, GitHub's limits kept."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from conftest import ROOT, run_cli, write
from memory_autopsy.formatters import sarif
from memory_autopsy.model import Finding, Location, Report, Severity
from memory_autopsy.rules import RULES

SCHEMA = ROOT / "tests" / "schemas" / "sarif-schema-2.1.0.json"  # vendored: see its SOURCES.md
PAIR = ("- billing-store: uses PostgreSQL 14 (2026-01-05)\n"
        "- billing-store: uses MySQL 8 (2026-06-02)\n"
        "- cache-tier: uses redis 7\n- cache-tier: uses redis 7\n")


def validate(log: dict[str, Any]) -> None:
    import jsonschema

    jsonschema.Draft4Validator(json.loads(SCHEMA.read_text(encoding="utf-8"))).validate(log)


def sarif_of(*args: str, cwd: Path | str) -> dict[str, Any]:
    result = run_cli("scan", *args, "--format", "sarif", cwd=cwd)
    assert result.code in (0, 1), result.err
    log: dict[str, Any] = json.loads(result.out)
    validate(log)
    return log


def finding(rule: str, path: str, line: int, severity: Severity, **more: Any) -> Finding:
    return Finding(rule=rule, severity=severity, layer="0", path=path, line=line, entity="e",
                   fidelity="", message=f"{rule} at {path}:{line}", confidence=1.0, fact_ids=(),
                   related=more.get("related", ()), fingerprint=f"{rule}{path}{line}")


def test_examples_validate_and_describe_every_rule() -> None:
    log = sarif_of("examples", cwd=ROOT)
    run = log["runs"][0]
    rules = run["tool"]["driver"]["rules"]
    assert [r["id"] for r in rules] == [r.id for r in RULES]
    for descriptor, rule in zip(rules, RULES):
        assert descriptor["name"] and descriptor["shortDescription"]["text"] == rule.summary
        assert descriptor["fullDescription"]["text"] == rule.help
        assert rule.help in descriptor["help"]["markdown"] and descriptor["help"]["text"] == rule.help
        assert descriptor["helpUri"].endswith(f"#rule-{rule.id}")
        assert descriptor["defaultConfiguration"]["level"] == sarif.LEVEL[rule.severity]
        # `aged` runs only with max-age-days: off in this run, and the log says so
        assert descriptor["defaultConfiguration"].get("enabled", True) is (rule.id != "aged")
        assert descriptor["properties"]["problem.severity"] in ("error", "warning", "recommendation")
    assert run["automationDetails"]["id"]
    assert run["results"]
    for result in run["results"]:
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"]
        assert list(result["partialFingerprints"]) == ["memoryAutopsy/v2"]
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert location["artifactLocation"]["uri"].startswith("examples/")
        assert "baselineState" not in result


@pytest.mark.parametrize("severity, level", [
    (Severity.ERROR, "error"), (Severity.WARNING, "warning"),
    (Severity.REVIEW, "note"), (Severity.INFO, "note"),
])
def test_severity_mapping(severity: Severity, level: str) -> None:
    report = Report("heuristic", (), (finding("duplicate", "a.md", 3, severity),))
    log = json.loads(sarif.format_report(report))
    validate(log)
    assert log["runs"][0]["results"][0]["level"] == level


def test_pairs_have_related_locations_and_odd_paths_are_encoded(tmp_path: Path) -> None:
    write(tmp_path / "my notes" / "mem #1.md", PAIR)
    log = sarif_of("my notes", cwd=tmp_path)
    conflict = next(r for r in log["runs"][0]["results"] if r["ruleId"] == "contradicted_implicit")
    assert conflict["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "my%20notes/mem%20%231.md"
    related = conflict["relatedLocations"][0]["physicalLocation"]
    assert related["region"]["startLine"] == 2


def test_a_finding_without_path_has_no_location() -> None:
    degraded = finding("degraded", "", 0, Severity.WARNING)
    report = Report("embed", (), (degraded,))
    log = json.loads(sarif.format_report(report))
    validate(log)
    assert "locations" not in log["runs"][0]["results"][0]


def test_root_re_roots_working_directory_paths(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    report = Report("heuristic", (), (finding("duplicate", "mem/a.md", 1, Severity.INFO,
                                              related=(Location("../b.md", 2),)),))
    result = json.loads(sarif.format_report(report, root=str(tmp_path)))["runs"][0]["results"][0]
    assert result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "sub/mem/a.md"
    assert result["relatedLocations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "b.md"


def test_baseline_state_and_output_file(tmp_path: Path) -> None:
    write(tmp_path / "m.md", PAIR)
    assert run_cli("baseline", "m.md", cwd=tmp_path).code == 0
    write(tmp_path / "m.md", PAIR + "- dns: runs on Route53 (2026-01-01)\n- dns: runs on Route53 (2026-01-01)\n")
    result = run_cli("scan", "m.md", "--baseline", ".memory-autopsy-baseline.json", "--format",
                     "sarif", "--output", "out/m.sarif", "--include-baselined", "--fail-on", "info",
                     cwd=tmp_path)
    assert result.code == 1 and result.out == ""
    log = json.loads((tmp_path / "out" / "m.sarif").read_text(encoding="utf-8"))
    validate(log)
    states = {r["baselineState"] for r in log["runs"][0]["results"]}
    assert states == {"new", "unchanged"}
    only_new = sarif_of("m.md", "--baseline", ".memory-autopsy-baseline.json", cwd=tmp_path)
    assert {r["baselineState"] for r in only_new["runs"][0]["results"]} == {"new"}


def test_truncation_keeps_the_most_severe_and_says_so() -> None:
    findings = tuple(finding("duplicate", "a.md", n, Severity.INFO) for n in range(1, 6))
    findings += (finding("validity_order", "z.md", 9, Severity.ERROR),)
    text = sarif.format_report(Report("heuristic", (), findings), max_results=3)
    log = json.loads(text)
    validate(log)
    run = log["runs"][0]
    assert len(run["results"]) == 3 and run["results"][0]["ruleId"] == "validity_order"
    note = run["invocations"][0]["toolExecutionNotifications"][0]
    assert "3 of 6" in note["message"]["text"]
    assert "3 of 6" in (sarif.truncation_note(text) or "")
    assert sarif.truncation_note(sarif.format_report(Report("heuristic", (), findings))) is None


def _sent_size(text: str) -> int:
    """The log's size as the upload action sends it: serialized again without indentation, gzipped."""
    return len(gzip.compress(json.dumps(json.loads(text), ensure_ascii=False, separators=(",", ":")).encode("utf-8"), 6))


def test_gzip_limit_truncates() -> None:
    findings = tuple(finding("duplicate", f"f{n}.md", n, Severity.INFO) for n in range(1, 200))
    # halfway between the log with no result (its rules' help) and the log with all of them
    empty, whole = (_sent_size(sarif.format_report(Report("heuristic", (), f))) for f in ((), findings))
    text = sarif.format_report(Report("heuristic", (), findings), max_gzip_bytes=(empty + whole) // 2)
    log = json.loads(text)
    assert 0 < len(log["runs"][0]["results"]) < 199
    assert sarif.truncation_note(text)


def test_gzip_limit_is_on_the_log_as_the_upload_sends_it() -> None:
    """The upload action sends the log serialized again without indentation, gzipped at zlib's
    default level: that size is held to the limit, to the byte."""
    findings = tuple(finding("duplicate", f"f{n}.md", n, Severity.INFO) for n in range(1, 200))
    whole = json.loads(sarif.format_report(Report("heuristic", (), findings)))
    sent = len(gzip.compress(json.dumps(whole, ensure_ascii=False, separators=(",", ":")).encode("utf-8"), 6))
    kept = json.loads(sarif.format_report(Report("heuristic", (), findings), max_gzip_bytes=sent))
    assert len(kept["runs"][0]["results"]) == 199
    less = sarif.format_report(Report("heuristic", (), findings), max_gzip_bytes=sent - 1)
    log = json.loads(less)
    assert len(log["runs"][0]["results"]) < 199 and sarif.truncation_note(less)
    assert len(gzip.compress(json.dumps(log, ensure_ascii=False, separators=(",", ":")).encode("utf-8"), 6)) < sent


def test_scan_warns_on_stderr_when_truncated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sarif.format_report.__kwdefaults__, "max_results", 1)
    write(tmp_path / "m.md", PAIR)
    result = run_cli("scan", "m.md", "--format", "sarif", cwd=tmp_path)
    assert "truncated" in result.err and len(json.loads(result.out)["runs"][0]["results"]) == 1


def test_the_log_is_the_indented_log_with_a_result_a_line() -> None:
    """Each result on one line (the C encoder), the rest indented: the same JSON values as
    `json.dumps(indent=2)` gives, and text no other way."""
    messages = ["plain", "a \x7f and \x85 and a lone \ud800", "\0results\0", 'quotes " and \\ and \n']
    findings = tuple(finding("duplicate", "m.md", n, Severity.ERROR) for n in range(1, 4)) + tuple(
        Finding(rule="near_duplicate", severity=Severity.WARNING, layer="1", path="m.md", line=9, entity="e",
                fidelity="", message=text, confidence=1.0, fact_ids=(), related=(), fingerprint=text)
        for text in messages)
    report = Report("heuristic", (), findings)
    text = sarif.format_report(report)
    log = json.loads(text)
    upload = sarif.Upload(report, None, None)
    assert log == json.loads(sarif.json_safe(json.dumps(upload.log(upload.findings), indent=2, ensure_ascii=False)))
    results = log["runs"][0]["results"]
    assert len(results) == 7 and [r["message"]["text"] for r in results[3:]][2] == "\0results\0"
    lines = [line for line in text.splitlines() if line.lstrip().startswith('{"ruleId": ')]
    assert len(lines) == len(results) and text.endswith("}\n") and text.startswith("{\n  ")
    assert "\x7f" not in text and "\x85" not in text
    validate(log)
