"""The baseline against a pull request that controls it: a reversed verdict is new, a changed
baseline is said so with the entries it adds, and the baseline file stays in the repository.

The memory lives in `memory/`, a known memory location: the default scope (no rule file)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from conftest import git, pull_request_repo, run_cli, write

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

BASE = ".memory-autopsy-baseline.json"
PG = "- billing-store: uses PostgreSQL 14 ({day}) (source: infra)"
MY = "- billing-store: uses PostgreSQL 16 ({day}) (source: infra)"
EARLY, LATE = "2024-01-01", "2025-01-01"
# Two copies with different dates: which is flagged is the later line, not a verdict
COPY = "- cache-tier: uses redis 7 ({day}) (source: ops)"
SEARCH = "- search: uses Elasticsearch 8 (2026-01-01) (source: ops)\n" * 2


def billing(pg_day: str, my_day: str, *, pg_first: bool = True) -> str:
    lines = [PG.format(day=pg_day), MY.format(day=my_day)]
    return "\n".join(lines if pg_first else lines[::-1]) + "\n"


def copies(first: str, second: str) -> str:
    return COPY.format(day=first) + "\n" + COPY.format(day=second) + "\n"


@pytest.fixture
def github(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The files a GitHub runner gives a step; the repository goes in tmp_path/repo."""
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    monkeypatch.setenv("GITHUB_OUTPUT", str(write(tmp_path / "output.txt", "")))
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(write(tmp_path / "summary.md", "")))
    return tmp_path / "repo"


def pull_request(repo: Path, monkeypatch: pytest.MonkeyPatch, base: dict[str, str],
                 change: dict[str, str]) -> None:
    sha = pull_request_repo(repo, base, change)
    event = write(repo.parent / "event.json", json.dumps({"pull_request": {"base": {"sha": sha}}}))
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(event))


def accepted(folder: Path, *memory: tuple[str, str]) -> str:
    """The baseline `memory-autopsy baseline` writes for these files (in a scratch folder)."""
    scratch = folder / "scratch"
    for name, text in memory:
        write(scratch / name, text)
    assert run_cli("baseline", "--isolated", *(name for name, _ in memory), cwd=scratch).code == 0
    text = (scratch / BASE).read_text(encoding="utf-8")
    shutil.rmtree(scratch)
    return text


def outputs(repo: Path) -> dict[str, str]:
    text = (repo.parent / "output.txt").read_text(encoding="utf-8")
    return dict(line.split("=", 1) for line in text.splitlines())


def summary(repo: Path) -> str:
    return (repo.parent / "summary.md").read_text(encoding="utf-8")


def fingerprints(baseline_text: str) -> set[str]:
    return {e["fingerprint"] for e in json.loads(baseline_text)["entries"]}


def test_a_reversed_verdict_is_a_new_finding(github: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = billing(EARLY, LATE)  # MySQL is current, PostgreSQL stale
    pull_request(github, monkeypatch, {"memory/billing.md": before,
                                       BASE: accepted(github.parent, ("memory/billing.md", before))},
                 {"memory/billing.md": billing(LATE, EARLY)})  # PostgreSQL current now
    result = run_cli("ci", "--format", "json", cwd=github)
    assert result.code == 1, result.err
    findings = json.loads(result.out)["findings"]
    assert [(f["rule"], f["baseline"]) for f in findings] == [("stale", "new")]
    assert outputs(github)["new-findings"] == "1"


def test_moved_lines_keep_their_fingerprints(github: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = billing(EARLY, LATE) + copies(EARLY, LATE)
    moved = "# Billing\n\n" + copies(LATE, EARLY) + "\n" + billing(EARLY, LATE, pg_first=False)
    pull_request(github, monkeypatch, {"memory/billing.md": before,
                                       BASE: accepted(github.parent, ("memory/billing.md", before))},
                 {"memory/billing.md": moved})
    result = run_cli("ci", "--format", "json", "--include-baselined", cwd=github)
    assert result.code == 0, result.out
    marks = sorted((f["rule"], f["baseline"]) for f in json.loads(result.out)["findings"])
    assert marks == [("duplicate", "unchanged"), ("stale", "unchanged")]
    assert outputs(github)["new-findings"] == "0"


def test_a_baseline_the_pull_request_adds_is_reported(github: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    memory = billing(EARLY, LATE)
    added = accepted(github.parent, ("memory/billing.md", memory))
    pull_request(github, monkeypatch, {"memory/notes.md": "- dns: runs on Route53 (2026-02-01)\n"},
                 {"memory/billing.md": memory, BASE: added})
    text = run_cli("ci", "--format", "text", cwd=github)
    assert text.code == 0, text.out  # the entry accepts the finding: the gate passes, and says why
    [fingerprint] = fingerprints(added)
    assert BASE in text.out and fingerprint in text.out and "stale" in text.out
    page = summary(github)
    assert "| 0 | 1 | 0 |" in page and fingerprint in page and BASE in page


def test_entries_a_pull_request_adds_to_the_baseline_are_listed(github: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    old = accepted(github.parent, ("memory/search.md", SEARCH))
    memory = billing(EARLY, LATE)
    grown = accepted(github.parent, ("memory/search.md", SEARCH),
                     ("memory/billing.md", memory))
    pull_request(github, monkeypatch, {"memory/search.md": SEARCH, BASE: old},
                 {"memory/billing.md": memory, BASE: grown})
    [kept] = fingerprints(old)
    [new] = fingerprints(grown) - {kept}
    text = run_cli("ci", "--format", "text", cwd=github)
    assert text.code == 0, text.out
    assert new in text.out and kept not in text.out
    page = summary(github)
    assert new in page and kept not in page


def test_an_unchanged_baseline_is_not_mentioned(github: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    memory = billing(EARLY, LATE)
    base = accepted(github.parent, ("memory/billing.md", memory))
    pull_request(github, monkeypatch, {"memory/billing.md": memory, BASE: base},
                 {"memory/notes.md": "- dns: runs on Route53 (2026-02-01)\n"})
    text = run_cli("ci", "--format", "text", "--no-changed-only", "--changed-since", "HEAD~1",
                   cwd=github)
    assert text.code == 0 and BASE not in text.out
    assert BASE not in summary(github).replace(f"--baseline {BASE}", "")


@pytest.mark.parametrize("how", ["rule file", "flag", "link"])
@pytest.mark.parametrize("command", ["baseline", "ci", "scan"])
def test_a_baseline_outside_the_repository_is_refused(tmp_path: Path, how: str, command: str) -> None:
    repo, outside = tmp_path / "repo", tmp_path / "outside"
    memory = billing(EARLY, LATE)
    write(repo / "memory" / "billing.md", memory)
    git(repo, "init", "-q")
    args = [command, "memory/billing.md"] if command != "ci" else [command, "--format", "json"]
    if how == "rule file":
        write(repo / "memory-autopsy.toml", 'baseline = "../outside/b.json"\n')
    elif how == "flag":
        args += ["--baseline", "../outside/b.json"]
    else:
        (repo / "ci").mkdir()
        os.symlink(outside / "b.json", repo / "ci" / "b.json")
        write(repo / "memory-autopsy.toml", 'baseline = "ci/b.json"\n')
    if command != "baseline":  # an outside file that would accept every finding is never read
        write(outside / "b.json", accepted(tmp_path, ("memory/billing.md", memory)))
    result = run_cli(*args, cwd=repo)
    assert result.code == 2, (result.out, result.err)
    assert "b.json" in result.err and "repository" in result.err
    if command == "baseline":
        assert not outside.exists()


def test_a_baseline_inside_the_repository_from_a_subfolder(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    write(repo / "memory" / "billing.md", billing(EARLY, LATE))
    write(repo / "memory" / "memory-autopsy.toml", 'baseline = "../ci/accepted.json"\n')
    git(repo, "init", "-q")
    assert run_cli("baseline", "billing.md", cwd=repo / "memory").code == 0
    assert (repo / "ci" / "accepted.json").is_file()
    assert run_cli("scan", "billing.md", cwd=repo / "memory").code == 0


def test_an_older_fingerprint_scheme_is_refused_then_rewritten(tmp_path: Path) -> None:
    memory = billing(EARLY, LATE)
    write(tmp_path / "memory" / "billing.md", memory)
    document = json.loads(accepted_here(tmp_path))
    old = {**document, "fingerprints": "memoryAutopsy/v1",
           "entries": [{**e, "fingerprint": "0123456789abcdef"} for e in document["entries"]]}
    write(tmp_path / BASE, json.dumps(old))
    scan = run_cli("scan", "memory/billing.md", "--baseline", BASE, cwd=tmp_path)
    assert scan.code == 2 and "memory-autopsy baseline" in scan.err  # never a mass of "new"
    rewrite = run_cli("baseline", "memory/billing.md", cwd=tmp_path)
    assert rewrite.code == 0, rewrite.err
    assert "memoryAutopsy/v1" in rewrite.out
    assert json.loads((tmp_path / BASE).read_text(encoding="utf-8")) == document
    assert run_cli("scan", "memory/billing.md", "--baseline", BASE, cwd=tmp_path).code == 0


def accepted_here(folder: Path) -> str:
    assert run_cli("baseline", "memory/billing.md", cwd=folder).code == 0
    text = (folder / BASE).read_text(encoding="utf-8")
    (folder / BASE).unlink()
    return text
