"""The conventions of the linters people know: rule codes, --select/--ignore, --exit-zero,
--quiet, --statistics, colour, stdin, both sides of a finding, why FILE:LINE, progress, exit 4."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from conftest import ROOT, SRC, git, run_cli, run_process, write
from memory_autopsy.rules import BY_CODE, CODES, RULES

# The codes as published. A code is never reassigned nor reused: add new rules here, never edit
# a line (a retired rule keeps its line and its code stays taken).
PUBLISHED = {
    "MA101": "duplicate", "MA102": "near_duplicate", "MA103": "duplicate_id",
    "MA201": "contradicted_explicit", "MA202": "contradicted_implicit", "MA203": "likely_conflict",
    "MA204": "status_conflict", "MA205": "numeric_drift",
    "MA301": "stale", "MA302": "superseded", "MA303": "aged", "MA304": "validity_order",
    "MA401": "unsourced", "MA402": "unresolved_alias", "MA403": "orphan_entity",
    "MA501": "beyond_budget", "MA502": "broken_link", "MA503": "unlinked_memory",
    "MA601": "missing_path", "MA602": "missing_command",
    "MA901": "bad_input", "MA902": "degraded",
}

# stale (MA301) on line 1, unsourced (MA401) on line 3, duplicate (MA101) on line 5
MIXED = (
    "- cache-tier: uses redis 6 (2026-01-01) (source: ops)\n"
    "- cache-tier: uses redis 7 (2026-05-01) (source: ops)\n"
    "- billing: uses MySQL\n"
    "- dns: runs on Route53 (2026-02-01) (source: ops)\n"
    "- dns: runs on Route53 (2026-02-01) (source: ops)\n"
)
CLEAN = "- dns: runs on Route53 (2026-02-01) (source: ops)\n"
FINDING_LINE = re.compile(r"^[^\s:][^:]*:\d+(#obs-\d+)?: (info|review|warning|error) [a-z_]+ MA\d{3}: \S")
ESCAPE = "\x1b["


@pytest.fixture
def mixed(tmp_path: Path) -> Path:
    write(tmp_path / "m.md", MIXED)
    return tmp_path


def rules_found(result_out: str) -> set[str]:
    return {f["rule"] for f in json.loads(result_out)["findings"]}


# --- rule codes ---------------------------------------------------------------------------

def test_codes_are_stable_unique_and_complete() -> None:
    assert {rule.id: rule.code for rule in RULES} == dict(CODES)
    assert len(set(CODES.values())) == len(CODES)
    for code, rule in PUBLISHED.items():  # never reassigned
        assert CODES.get(rule) == code, (code, rule)
    assert set(CODES.values()) == set(PUBLISHED)  # a new rule's code is published here first
    assert all(re.fullmatch(r"MA\d{3}", code) for code in CODES.values())
    assert {code: rule.id for code, rule in BY_CODE.items()} == PUBLISHED


def test_codes_in_text_output_rules_command_and_readme(mixed: Path) -> None:
    out = run_cli("scan", "m.md", "--fail-on", "info", cwd=mixed).out
    assert "m.md:1: warning stale MA301: " in out
    assert "m.md:3: info unsourced MA401: " in out
    listed = run_cli("rules").out
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for rule in RULES:
        assert f"{rule.code}  {rule.id}  [default" in listed
        assert f"| [`{rule.id}`](#rule-{rule.id}) | `{rule.code}` |" in readme
    assert {r["id"]: r["code"] for r in json.loads(run_cli("rules", "--json").out)} == dict(CODES)


# --- --select / --ignore ------------------------------------------------------------------

@pytest.mark.parametrize(("flags", "expected"), [
    ((), {"stale", "unsourced", "duplicate"}),
    (("--select", "stale"), {"stale"}),
    (("--select", "MA401"), {"unsourced"}),
    (("--select", "ma401"), {"unsourced"}),
    (("--select", "MA3"), {"stale"}),
    (("--select", "stale,MA101"), {"stale", "duplicate"}),
    (("--select", "stale", "--select", "duplicate"), {"stale", "duplicate"}),
    (("--select", "ALL", "--ignore", "MA1"), {"stale", "unsourced"}),
    (("--ignore", "unsourced"), {"stale", "duplicate"}),
    (("--ignore", "MA301,MA401"), {"duplicate"}),
    (("--select", "stale", "--ignore", "stale"), set()),
    (("--select", "near-duplicate"), set()),
])
def test_select_and_ignore(mixed: Path, flags: tuple[str, ...], expected: set[str]) -> None:
    result = run_cli("scan", "m.md", "--json", *flags, cwd=mixed)
    assert rules_found(result.out) == expected
    assert result.code == (1 if "stale" in expected else 0)  # fail-on warning: only stale fails


@pytest.mark.parametrize("option", ["--select", "--ignore"])
def test_unknown_rule_is_a_usage_error(mixed: Path, option: str) -> None:
    result = run_cli("scan", "m.md", option, "stael", cwd=mixed)
    assert result.code == 2 and result.out == ""
    assert "stael" in result.err and "'stale'" in result.err
    assert run_cli("scan", "m.md", option, "MA999", cwd=mixed).code == 2
    assert run_cli("scan", "m.md", option, "stale,nope", cwd=mixed).code == 2


# --- --exit-zero, --quiet, --statistics ---------------------------------------------------

def test_exit_zero(mixed: Path) -> None:
    assert run_cli("scan", "m.md", "--fail-on", "info", cwd=mixed).code == 1
    result = run_cli("scan", "m.md", "--fail-on", "info", "--exit-zero", cwd=mixed)
    assert result.code == 0 and "stale" in result.out
    assert run_cli("scan", "missing.md", "--exit-zero", cwd=mixed).code == 2
    assert run_cli("scan", "m.md", "--exit-zero", "--ignore", "nope", cwd=mixed).code == 2


def test_quiet(mixed: Path) -> None:
    write(mixed / "clean.md", CLEAN)
    clean = run_cli("scan", "clean.md", "-q", cwd=mixed)
    assert clean == (0, "", "")
    loud = run_cli("scan", "m.md", cwd=mixed).out.splitlines()
    quiet = run_cli("scan", "m.md", "--quiet", cwd=mixed)
    assert quiet.out.splitlines() == loud[:-1] and len(loud) == 4
    assert all(FINDING_LINE.match(line) for line in quiet.out.splitlines())


def test_statistics(mixed: Path) -> None:
    write(mixed / "n.md", MIXED.replace("billing", "ledger"))
    result = run_cli("scan", "m.md", "n.md", "--statistics", cwd=mixed)
    counts = json.loads(run_cli("scan", "m.md", "n.md", "--json", cwd=mixed).out)["counts"]
    rows = [line.split() for line in result.out.splitlines()[:-1]]
    assert {row[2]: int(row[0]) for row in rows} == counts
    assert all(row[1] == CODES[row[2]] for row in rows)
    assert [int(row[0]) for row in rows] == sorted((int(row[0]) for row in rows), reverse=True)
    assert result.out.splitlines()[-1].startswith("== ") and result.code == 1
    assert run_cli("scan", "m.md", "--statistics", "--quiet", cwd=mixed).out.count("\n") == len(
        json.loads(run_cli("scan", "m.md", "--json", cwd=mixed).out)["counts"])
    assert run_cli("scan", "m.md", "--statistics", "--json", cwd=mixed).code == 2


# --- colour -------------------------------------------------------------------------------

def test_no_colour_when_piped_or_with_no_color(mixed: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    piped = run_process("scan", "m.md", cwd=mixed, env=env)
    assert piped.code == 1 and "stale" in piped.out and ESCAPE not in piped.out + piped.err
    assert ESCAPE not in run_cli("scan", "m.md", cwd=mixed).out
    forced = run_cli("scan", "m.md", "--color", "always", cwd=mixed)
    assert ESCAPE in forced.out
    assert re.sub(r"\x1b\[[\d;]*m", "", forced.out) == run_cli("scan", "m.md", cwd=mixed).out
    assert ESCAPE not in run_cli("scan", "m.md", "--color", "never", cwd=mixed).out


def _on_a_terminal(args: list[str], cwd: Path, no_color: str | None) -> str:
    """Run the CLI with stdout on a pseudo-terminal; return what it printed there."""
    pty = pytest.importorskip("pty")
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM")}
    env["PYTHONPATH"] = str(SRC) + os.pathsep + env.get("PYTHONPATH", "")
    if no_color is not None:
        env["NO_COLOR"] = no_color
    leader, follower = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "memory_autopsy", *args], cwd=cwd, env=env,
                               stdout=follower, stderr=subprocess.PIPE)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal closes when the process exits
            break
        if not chunk:
            break
        chunks.append(chunk)
    process.wait(timeout=60)
    assert process.stderr is not None
    process.stderr.close()
    os.close(leader)
    return b"".join(chunks).decode("utf-8")


@pytest.mark.skipif(sys.platform == "win32", reason="pseudo-terminals are POSIX")
def test_colour_on_a_terminal_unless_no_color(mixed: Path) -> None:
    assert ESCAPE in _on_a_terminal(["scan", "m.md"], mixed, None)
    assert ESCAPE in _on_a_terminal(["scan", "m.md"], mixed, "")  # empty NO_COLOR is unset
    assert ESCAPE not in _on_a_terminal(["scan", "m.md"], mixed, "1")
    assert ESCAPE in _on_a_terminal(["scan", "m.md", "--color", "always"], mixed, "1")


# --- standard input -----------------------------------------------------------------------

def test_stdin_with_and_without_a_name(tmp_path: Path) -> None:
    text = "- billing: uses MySQL\n"
    bare = run_process("scan", "-", "--json", cwd=tmp_path, input=text)
    assert [(f["path"], f["rule"]) for f in json.loads(bare.out)["findings"]] == [("-", "unsourced")]
    # a dated daily log: the name dates every line, so nothing is unsourced
    named = run_process("scan", "-", "--stdin-filename", "memory/2026-01-05.md", "--json", "--fail-on", "info",
                        cwd=tmp_path, input=text)
    assert named.code == 0 and json.loads(named.out)["findings"] == []
    lines = json.dumps({"entity": "cache", "slot": "tool", "value": "redis 6", "observed_at": "2026-01-01"}) + "\n" \
        + json.dumps({"entity": "cache", "slot": "tool", "value": "redis 7", "observed_at": "2026-05-01"}) + "\n"
    store = run_process("scan", "--stdin-filename", "facts.jsonl", cwd=tmp_path, input=lines)
    assert store.code == 1 and store.out.startswith("facts.jsonl:1: warning stale MA301")


def test_stdin_beside_files_and_bad_uses(tmp_path: Path) -> None:
    write(tmp_path / "old.md", "- billing-store: uses PostgreSQL 14 (2026-01-05) (source: infra)\n")
    new = "- billing-store: uses MySQL 8 (2026-06-02) (source: infra)\n"
    result = run_process("scan", "old.md", "-", "--stdin-filename", "new.md", "--json", cwd=tmp_path, input=new)
    data = json.loads(result.out)
    assert [(f["path"], f["rule"], [r["path"] for r in f["related"]]) for f in data["findings"]] == [
        ("old.md", "contradicted_implicit", ["new.md"])]
    assert not (tmp_path / "new.md").exists()
    assert run_cli("scan", "old.md", "--stdin-filename", "new.md", cwd=tmp_path).code == 2


# --- both sides of a finding --------------------------------------------------------------

def test_text_names_the_other_side_once(mixed: Path) -> None:
    lines = run_cli("scan", "m.md", "--fail-on", "info", cwd=mixed).out.splitlines()
    stale = next(line for line in lines if " stale " in line)
    assert stale.count("m.md:2") == 1 and "other side" not in stale  # the message names it
    duplicate = next(line for line in lines if " duplicate " in line)
    assert "m.md:4" in duplicate and "other side" not in duplicate  # the message names it


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_hook_leads_with_the_changed_side(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    write(tmp_path / "memory-autopsy.toml", 'include = ["*.md"]\n')  # both files are memory here
    write(tmp_path / "old.md", "- billing-store: uses PostgreSQL 14 (2026-01-05) (source: infra)\n")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "base")
    write(tmp_path / "new.md", "- billing-store: uses PostgreSQL 16 (2026-06-02) (source: infra)\n")
    result = run_cli("hook", "new.md", cwd=tmp_path)
    first = result.out.splitlines()[0]
    assert result.code == 1 and first.startswith("new.md:1: warning stale MA301: ")
    assert "'PostgreSQL 14' at old.md:1, superseded by 'PostgreSQL 16' here" in first  # said from new.md
    assert "new.md:1" not in first.partition(": ")[2] and "flagged side" not in first
    assert "flagged fact" in result.err  # the hint: the ignore goes above the flagged side
    scan = run_cli("scan", "old.md", "new.md", cwd=tmp_path).out.splitlines()[0]
    assert scan.startswith("old.md:1:") and "'PostgreSQL 14' here, superseded by 'PostgreSQL 16' at new.md:1" in scan
    quiet = run_cli("hook", "new.md", "--quiet", "--exit-zero", cwd=tmp_path)
    assert quiet == (0, first + "\n", "")
    assert run_cli("hook", "new.md", "--ignore", "MA3", cwd=tmp_path).code == 0
    assert run_cli("hook", "new.md", "--select", "bogus", cwd=tmp_path).code == 2


# --- inline suppressions ------------------------------------------------------------------

def test_suppression_by_code_and_warning_for_an_unknown_name(tmp_path: Path) -> None:
    write(tmp_path / "code.md", "- billing: uses MySQL <!-- memory-autopsy: ignore MA401 -->\n")
    by_code = run_cli("scan", "code.md", "--json", cwd=tmp_path)
    assert json.loads(by_code.out)["findings"] == [] and json.loads(by_code.out)["suppressed"] == 1
    assert by_code.err == ""
    write(tmp_path / "typo.md", "- billing: uses MySQL <!-- memory-autopsy: ignore unsorced -->\n")
    typo = run_cli("scan", "typo.md", "--json", cwd=tmp_path)
    assert rules_found(typo.out) == {"unsourced"}
    assert "typo.md:1: unknown rule 'unsorced'" in typo.err and "'unsourced'" in typo.err
    record = json.dumps({"entity": "b", "claim": "uses MySQL", "memory-autopsy-ignore": ["unsourcd"]})
    write(tmp_path / "store.jsonl", record + "\n")
    assert "store.jsonl:1: unknown rule 'unsourcd'" in run_cli("scan", "store.jsonl", cwd=tmp_path).err


# --- why FILE:LINE ------------------------------------------------------------------------

def test_why_takes_the_location_a_finding_prints(mixed: Path) -> None:
    finding = next(f for f in json.loads(run_cli("scan", "m.md", "--json", cwd=mixed).out)["findings"]
                   if f["rule"] == "stale")
    result = run_cli("why", f"m.md:{finding['line']}", "--json", cwd=mixed)
    assert result.code == 0, result.err
    data = json.loads(result.out)
    assert data["location"] == "m.md:1"
    assert [f["fact"]["id"] for f in data["facts"]] == finding["fact_ids"]
    assert [s["line"] for s in data["facts"][0]["superseded_by"]] == [2]
    by_id = json.loads(run_cli("why", "m.md", finding["fact_ids"][0], "--json", cwd=mixed).out)
    assert data["facts"][0] == by_id
    text = run_cli("why", "./m.md:2", cwd=mixed)
    assert text.code == 0 and text.out.startswith("# why ") and "uses redis 7" in text.out


def test_why_location_with_stores_and_errors() -> None:
    data = json.loads(run_cli("why", "examples", "examples/memory.md:5", "--json", "--isolated", cwd=ROOT).out)
    assert [(f["fact"]["path"], f["fact"]["line"]) for f in data["facts"]] == [("examples/memory.md", 5)]
    missing_line = run_cli("why", "examples/memory.md:2", "--isolated", cwd=ROOT)
    assert missing_line.code == 2 and "examples/memory.md:2" in missing_line.err and "5" in missing_line.err
    assert run_cli("why", "examples/nope.md:3", cwd=ROOT).code == 2


# --- admit's own exit code ----------------------------------------------------------------

def test_admit_rejected_is_not_a_usage_error() -> None:
    store = str(ROOT / "examples/store.jsonl")
    rejected = run_cli("admit", "--fact", json.dumps({"claim": "no entity here"}), store)
    assert rejected.code == 4 and rejected.out.startswith("status: rejected")
    assert run_cli("admit", "--fact", "{not json", store).code == 2
    assert "4 `admit` rejected" in run_cli("--help").out + run_cli("scan", "--help").out


# --- progress -----------------------------------------------------------------------------

class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _wait(condition: object, seconds: float = 5.0) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:  # type: ignore[operator]
        time.sleep(0.01)


def test_progress_line_only_on_a_terminal() -> None:
    from memory_autopsy.commands.progress import Progress

    terminal = Terminal()
    with Progress(terminal, delay=0, interval=0.01) as progress:
        progress.read("a.md")
        _wait(lambda: "scanned 1 files" in terminal.getvalue())
    assert "memory-autopsy: scanned 1 files" in terminal.getvalue()
    assert terminal.getvalue().endswith("\r\x1b[K")  # erased at the end
    pipe = io.StringIO()
    with Progress(pipe, delay=0, interval=0.01) as progress:
        progress.read("a.md")
        time.sleep(0.05)
    assert pipe.getvalue() == "" and progress.files == 1


def _scan_with_stderr(stderr: io.StringIO, cwd: Path, *args: str) -> int:
    from memory_autopsy.cli import main

    previous = os.getcwd()
    os.chdir(cwd)
    try:
        with redirect_stdout(io.StringIO()), redirect_stderr(stderr):
            return main(["scan", "m.md", *args])
    finally:
        os.chdir(previous)


def test_scan_draws_progress_on_a_terminal_stderr(mixed: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from memory_autopsy.commands import progress

    monkeypatch.setattr(progress, "DELAY", 0.0)
    monkeypatch.setattr(progress, "INTERVAL", 0.01)
    real_read = progress.Progress.read
    drawn = threading.Event()

    def slow_read(self: progress.Progress, path: str) -> None:  # hold the run until the line shows
        real_read(self, path)
        if self.enabled:
            _wait(lambda: self.shown)
            drawn.set()

    monkeypatch.setattr(progress.Progress, "read", slow_read)
    terminal = Terminal()
    assert _scan_with_stderr(terminal, mixed) == 1
    assert drawn.is_set() and "memory-autopsy: scanned " in terminal.getvalue()
    quiet = Terminal()
    assert _scan_with_stderr(quiet, mixed, "--quiet") == 1 and quiet.getvalue() == ""
    piped = io.StringIO()
    assert _scan_with_stderr(piped, mixed) == 1 and piped.getvalue() == ""


def test_the_process_entry_leaves_the_runs_records_out_of_the_last_collection(tmp_path: Path) -> None:
    """The interpreter collects once more at exit, scanning every record of the run: the
    command-line entry freezes them first; a caller passing argv in process keeps its collector."""
    write(tmp_path / "m.md", MIXED)
    code = (
        "import gc, sys\n"
        "from memory_autopsy.cli import main\n"
        "sys.argv = ['memory-autopsy', 'scan', 'm.md', '--json']\n"
        "main(['scan', 'm.md', '--json'])\n"
        "print('frozen', gc.get_freeze_count())\n"
        "main()\n"
        "print('frozen', gc.get_freeze_count() > 0, gc.isenabled())\n"
    )
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=60)
    said = [line.split()[1:] for line in done.stdout.splitlines() if line.startswith("frozen ")]
    assert said == [["0"], ["True", "True"]], done.stderr


def test_the_process_entry_flushes_its_output_and_skips_the_teardown(tmp_path: Path) -> None:
    """`entry` (the console script, `python -m`) writes everything, returns main's exit code and
    leaves without the interpreter's teardown: an exit handler never runs."""
    write(tmp_path / "m.md", MIXED)
    code = (
        "import atexit, sys\n"
        "from memory_autopsy.cli import entry\n"
        "atexit.register(lambda: print('torn down'))\n"
        "sys.argv = ['memory-autopsy', 'scan', 'm.md', '--json']\n"
        "entry()\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # block-buffered, as piped
    env["PYTHONPATH"] = str(SRC)
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 1, done.stderr
    assert "torn down" not in done.stdout
    report = json.loads(done.stdout)  # every byte of the buffered report reached the pipe
    assert report["counts"] and report["findings"]


def test_the_process_entry_when_the_reader_goes_away(tmp_path: Path) -> None:
    """`scan | head -1`: the output that no longer fits the pipe is dropped quietly (141), with
    no traceback and no "Exception ignored" from a last flush."""
    write(tmp_path / "m.md", "# Memory\n" + "".join(f"- svc{i}: uses postgres {i}\n- svc{i}: uses mysql {i}\n"
                                                    for i in range(3000)))
    env = {**os.environ, "PYTHONPATH": str(SRC)}
    # --json: a report far larger than a pipe's buffer, so the writer meets the closed pipe
    process = subprocess.Popen([sys.executable, "-m", "memory_autopsy", "scan", "m.md", "--json"], cwd=tmp_path, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.readline()
    process.stdout.close()  # the reader goes away after one line
    err = process.stderr.read().decode()
    assert process.wait(timeout=60) == 141, err
    assert "Traceback" not in err and "Exception ignored" not in err
