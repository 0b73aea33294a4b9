"""GitHub annotations (escaping, limits, command fencing) and the `ci` runner's files."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import pull_request_repo, run_cli, write
from memory_autopsy.formatters import github
from memory_autopsy.model import Finding, Report, Severity

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
OLD = "- billing-store: uses PostgreSQL 14 (2026-01-05) (source: infra)\n"
NEW = "- billing-store: uses PostgreSQL 16 (2026-06-02) (source: infra)\n"
LEGACY = "- cache-tier: uses <b>redis</b> | 7 [x](http://e.test) @team (2026-01-01) (source: ops)\n" * 2
COMMAND = re.compile(r"^::(error|warning|notice) (file=[^:,]*,line=\d+,)?title=[^:,]*::[^\r\n]*$")


def finding(rule: str, path: str, line: int, severity: Severity, baseline: str | None = None) -> Finding:
    return Finding(rule=rule, severity=severity, layer="0", path=path, line=line, entity="e",
                   fidelity="", message="m", confidence=1.0, fact_ids=(), related=(),
                   fingerprint=f"{rule}{path}{line}", baseline=baseline)


def commands_outside_fence(out: str) -> list[str]:
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("::stop-commands::"))
    token = lines[start].split("::")[2]
    end = lines.index(f"::{token}::")
    assert all(token not in line for line in lines[start + 1:end])
    return lines[:start] + lines[end + 1:]


def test_escaping() -> None:
    assert github.escape_data("50% a\r\nb") == "50%25 a%0D%0Ab"
    assert github.escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"


def test_hostile_memory_cannot_inject_commands(tmp_path: Path) -> None:
    evil = {"entity": "x\n::error::owned", "claim": "rm %0A::set-env name=A::1\r\n::warning::pwned",
            "observed_at": "2026-01-01"}
    write(tmp_path / "a,b:c.jsonl", (json.dumps(evil) + "\n") * 2)
    result = run_cli("scan", "a,b:c.jsonl", "--format", "github", "--fail-on", "info", cwd=tmp_path)
    assert result.code == 1
    outside = commands_outside_fence(result.out)
    annotations = [line for line in outside if not line.startswith(("::group::", "::endgroup::"))]
    assert annotations and all(COMMAND.match(line) for line in annotations), annotations
    assert "file=a%2Cb%3Ac.jsonl" in annotations[0]
    assert "%250A" in annotations[0]  # a literal %0A in memory stays text, never a newline
    assert not any(line.startswith(("::set-env", "::warning::pwned", "::error::owned")) for line in outside)


def test_per_level_limits_and_one_notice_for_the_rest() -> None:
    findings = [finding("validity_order", "e.md", n, Severity.ERROR) for n in range(1, 16)]
    findings += [finding("stale", "w.md", n, Severity.WARNING) for n in range(1, 16)]
    findings += [finding("duplicate", "i.md", n, Severity.INFO) for n in range(1, 16)]
    out = github.format_report(Report("heuristic", (), tuple(findings)))
    outside = commands_outside_fence(out)
    assert sum(line.startswith("::error ") for line in outside) == 10
    assert sum(line.startswith("::warning ") for line in outside) == 10
    notices = [line for line in outside if line.startswith("::notice ")]
    assert len(notices) == 10 and "16 more" in notices[-1]
    assert len(re.findall(r"MA\d{3}: m$", out, re.M)) == 45  # every finding is still in the fenced listing


def test_new_findings_in_changed_files_come_first() -> None:
    findings = [finding("validity_order", "a.md", n, Severity.ERROR) for n in range(1, 12)]
    findings += [finding("validity_order", "z.md", 1, Severity.ERROR, baseline="unchanged"),
                 finding("validity_order", "z.md", 2, Severity.ERROR, baseline="new")]
    out = github.format_report(Report("heuristic", (), tuple(findings)), changed=frozenset({"z.md"}))
    errors = [line for line in out.splitlines() if line.startswith("::error ")]
    assert errors[0].startswith("::error file=z.md,line=2,")
    assert errors[1].startswith("::error file=z.md,line=1,")


def test_token_is_random() -> None:
    report = Report("heuristic", (), (finding("duplicate", "a.md", 1, Severity.INFO),))
    assert github.format_report(report) != github.format_report(report)


@pytest.fixture
def pull_request(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    repo = tmp_path / "repo"
    # memory/ is a known memory location: in the default scope with no rule file
    base = pull_request_repo(repo, {"memory/old.md": OLD, "memory/legacy.md": LEGACY},
                             {"memory/new.md": NEW})
    event = write(tmp_path / "event.json", json.dumps({"pull_request": {"base": {"sha": base}}}))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    monkeypatch.setenv("GITHUB_OUTPUT", str(write(tmp_path / "output.txt", "")))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(write(tmp_path / "summary.md", "")))
    return repo


def outputs(repo: Path) -> dict[str, str]:
    text = (repo.parent / "output.txt").read_text(encoding="utf-8")
    return dict(line.split("=", 1) for line in text.splitlines())


def sarif_rules(path: Path) -> list[tuple[str, str]]:
    results = json.loads(path.read_text(encoding="utf-8"))["runs"][0]["results"]
    return [(r["ruleId"], r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]) for r in results]


@needs_git
def test_ci_reports_the_pull_request_and_uploads_the_scope(pull_request: Path) -> None:
    result = run_cli("ci", "--sarif-file", "out.sarif", cwd=pull_request)
    assert result.code == 1, result.err
    annotations = [line for line in commands_outside_fence(result.out) if COMMAND.match(line)]
    assert [line.split(",")[0] for line in annotations] == ["::warning file=memory/old.md"]
    assert outputs(pull_request) == {"findings": "1", "new-findings": "1", "sarif-file": "out.sarif"}
    assert ("duplicate", "memory/legacy.md") in sarif_rules(pull_request / "out.sarif")
    summary = (pull_request.parent / "summary.md").read_text(encoding="utf-8")
    assert "| 1 | 0 | 0 |" in summary and "stale" in summary
    assert "memory-autopsy baseline" in summary


@needs_git
def test_ci_summary_escapes_memory_text(pull_request: Path) -> None:
    run_cli("ci", "--no-changed-only", cwd=pull_request)
    summary = (pull_request.parent / "summary.md").read_text(encoding="utf-8")
    row = next(line for line in summary.splitlines() if "legacy.md" in line)
    assert "<b>" not in row and "&lt;b&gt;" in row and "\\|" in row and "\\[x\\]" in row
    assert "@team" not in row and row.count(" | ") == 4


@needs_git
def test_ci_with_a_baseline(pull_request: Path) -> None:
    assert run_cli("baseline", cwd=pull_request).code == 0
    result = run_cli("ci", "--sarif-file", "out.sarif", cwd=pull_request)
    assert result.code == 0, result.out
    assert outputs(pull_request) == {"findings": "1", "new-findings": "0", "sarif-file": "out.sarif"}
    assert sarif_rules(pull_request / "out.sarif") == []
    run_cli("ci", "--sarif-file", "all.sarif", "--include-baselined", cwd=pull_request)
    assert ("duplicate", "memory/legacy.md") in sarif_rules(pull_request / "all.sarif")
    summary = (pull_request.parent / "summary.md").read_text(encoding="utf-8")
    assert "| 0 | 1 | 0 |" in summary


@needs_git
def test_ci_changed_since_and_full_scope(pull_request: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GITHUB_EVENT_PATH")
    full = run_cli("ci", "--format", "json", cwd=pull_request)
    assert {f["path"] for f in json.loads(full.out)["findings"]} == {"memory/old.md", "memory/legacy.md"}
    narrow = run_cli("ci", "--format", "json", "--changed-since", "HEAD~1", cwd=pull_request)
    assert {f["path"] for f in json.loads(narrow.out)["findings"]} == {"memory/old.md"}
    assert run_cli("ci", "--fail-on", "never", cwd=pull_request).code == 0


@needs_git
def test_ci_without_the_base_commit_reports_everything(pull_request: Path, tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    event = write(tmp_path / "other.json", json.dumps({"pull_request": {"base": {"sha": "0" * 40}}}))
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))
    result = run_cli("ci", "--format", "json", cwd=pull_request)
    assert "base" in result.err
    assert {f["path"] for f in json.loads(result.out)["findings"]} == {"memory/old.md", "memory/legacy.md"}
