"""One baseline behaviour: the file `baseline` writes (the rule file's `baseline`, else
.memory-autopsy-baseline.json) is read by scan, report, the hook and ci alike; --no-baseline
reads none; baselined findings gone are named, with the command that drops them."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

from conftest import committed_repo, run_cli, write

MEMORY = "memory-bank/notes.md"
CONFLICT = ["- billing-store: uses PostgreSQL 14 (2026-01-05)",
            "- billing-store: uses PostgreSQL 16 (2026-06-02)"]
DUP = "- cache-tier: uses redis 7 (2026-01-01) (source: ops)"
DEFAULT = ".memory-autopsy-baseline.json"
CONFIGURED = "ci/accepted.json"


def lines(*items: str) -> str:
    return "\n".join(items) + "\n"


def accepted(tmp_path: Path, rule_file: bool = False) -> tuple[Path, Path]:
    """A committed repository whose memory has two findings (stale, duplicate), both recorded
    by `baseline` (the scope, no flags), and the baseline file it wrote."""
    files = {MEMORY: lines(*CONFLICT, DUP, DUP)}
    if rule_file:
        files["memory-autopsy.toml"] = f'baseline = "{CONFIGURED}"\n'
    tmp_path.mkdir(exist_ok=True)
    repo = committed_repo(tmp_path / "repo", files)
    assert run_cli("scan", "--fail-on", "info", cwd=repo).code == 1  # nothing accepted yet
    written = run_cli("baseline", cwd=repo)
    assert written.code == 0, written.err
    path = repo / (CONFIGURED if rule_file else DEFAULT)
    assert len(json.loads(path.read_text(encoding="utf-8"))["entries"]) == 2
    return repo, path


def lint_runs(repo: Path, *flags: str) -> dict[str, tuple[str, ...]]:
    """Every command that lints, over the same scope: the hook on the file changed since the commit."""
    return {"scan": ("scan", *flags), "report": ("report", *flags), "hook": ("hook", *flags, MEMORY),
            "ci": ("ci", "--format", "text", *flags)}


def test_every_lint_command_reads_the_baseline_that_baseline_wrote(tmp_path: Path) -> None:
    for rule_file in (False, True):  # the default file, then the rule file's `baseline` key
        repo, _ = accepted(tmp_path / str(rule_file), rule_file)
        write(repo / MEMORY, lines("# Notes", "", DUP, *reversed(CONFLICT), "", DUP))  # moved: the same findings
        for name, args in lint_runs(repo, "--fail-on", "info").items():
            result = run_cli(*args, cwd=repo)
            assert result.code == 0, (rule_file, name, result.out, result.err)
            if name == "report":
                assert "Findings: 0" in result.out, result.out
            else:
                assert "no new findings" in result.out and "2 baselined" in result.out, (name, result.out)
        data = json.loads(run_cli("scan", "--json", "--include-baselined", cwd=repo).out)
        assert sorted((f["rule"], f["baseline"]) for f in data["findings"]) == [
            ("duplicate", "unchanged"), ("stale", "unchanged")]


def test_no_baseline_reports_and_fails_on_every_finding(tmp_path: Path) -> None:
    repo, _ = accepted(tmp_path)
    write(repo / MEMORY, lines(*CONFLICT, "", DUP, DUP))  # changed, for the hook
    for name, args in lint_runs(repo, "--fail-on", "info", "--no-baseline").items():
        result = run_cli(*args, cwd=repo)
        assert result.code == 1, (name, result.out, result.err)
        assert "baselined" not in result.out, (name, result.out)
        assert "stale" in result.out and "duplicate" in result.out, (name, result.out)
    both = run_cli("scan", "--baseline", DEFAULT, "--no-baseline", cwd=repo)
    assert both.code == 2 and "not allowed with" in both.err


def test_gone_findings_are_named_with_the_prune_command(tmp_path: Path) -> None:
    repo, path = accepted(tmp_path)
    entry = next(e for e in json.loads(path.read_text(encoding="utf-8"))["entries"] if e["rule"] == "duplicate")
    write(repo / MEMORY, lines(*CONFLICT, DUP))  # the duplicate fixed; the stale pair stays
    named = f"duplicate {MEMORY} cache-tier [{entry['fingerprint']}]"
    for name, args in lint_runs(repo).items():
        result = run_cli(*args, cwd=repo)
        assert result.code == 0, (name, result.out, result.err)
        assert named in result.out, (name, result.out)
        assert "1 baselined finding gone" in result.out and "`memory-autopsy baseline --prune-only`" in result.out, \
            (name, result.out)
    github = run_cli("ci", cwd=repo).out  # the Action's format: in its listing
    assert named in github and "memory-autopsy baseline --prune-only" in github
    scanned = run_cli("scan", MEMORY, cwd=repo).out  # paths named: the command names them too
    command = re.search(r"`(memory-autopsy baseline --prune-only[^`]*)`", scanned)
    assert command is not None and command.group(1).endswith(MEMORY), scanned
    pruned = run_cli(*shlex.split(command.group(1))[1:], cwd=repo)
    assert pruned.code == 0 and "(0 added, 1 removed)" in pruned.out, pruned.out
    assert [e["rule"] for e in json.loads(path.read_text(encoding="utf-8"))["entries"]] == ["stale"]
    after = run_cli("scan", cwd=repo)
    assert after.code == 0 and "gone" not in after.out and "1 baselined" in after.out, after.out


def test_a_named_baseline_is_named_in_the_prune_command(tmp_path: Path) -> None:
    repo = committed_repo(tmp_path / "repo", {MEMORY: lines(*CONFLICT, DUP, DUP)})
    assert run_cli("baseline", "--baseline", "accepted.json", cwd=repo).code == 0
    assert run_cli("scan", cwd=repo).code == 1  # not the default file: read only when named
    write(repo / MEMORY, lines(*CONFLICT, DUP))
    result = run_cli("scan", "--baseline", "accepted.json", cwd=repo)
    assert result.code == 0
    assert "`memory-autopsy baseline --prune-only --baseline accepted.json`" in result.out, result.out
