"""Hostile input at the command line ends fast, with a finding or a one-line error, never a traceback.

Exit codes: 1 findings, 2 usage error, 3 internal error (a bug) -- a crash never passes for findings.
"""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import SRC, run_cli, run_process, write
from memory_autopsy.dates import parse_date
from memory_autopsy.formatters import json_format, summary
from memory_autopsy.formatters.visible import json_safe
from memory_autopsy.model import Finding, Location, Report, Severity
from memory_autopsy.selection import selected

MEMORY = "# Billing\n- billing uses MySQL (observed 2024-01-01)\n"
# A graph node with nothing (orphan_entity, warning) whose name is a lone surrogate.
SURROGATE_STORE = '{"type": "entity", "name": "\\ud800", "entityType": "service", "observations": []}\n'
ESC_STORE = json.dumps({"facts": [
    {"entity": "e\x1b]0;pwned\x07", "slot": "db", "value": "MySQL\x1b[2J\x9b31m"},
    {"entity": "e\x1b]0;pwned\x07", "slot": "db", "value": "see https://evil.example www.evil.example a@b.co"},
]})
FORMATS = ("text", "json", "markdown", "sarif", "github")
posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX file modes and FIFOs")


def no_traceback(err: str) -> None:
    assert "Traceback" not in err, err


# -- exit codes: 3 is a bug, 2 a usage error, 1 findings ------------------------------------------

def crash_site(tmp_path: Path) -> dict[str, str]:
    """An environment whose interpreter breaks the engine at startup, as a bug would."""
    write(tmp_path / "site" / "sitecustomize.py",
          "import memory_autopsy.api as api\n\n"
          "def broken(*args, **kwargs):\n    raise RuntimeError('boom \\x1b]0;title\\x07')\n\n"
          "api.lint = broken\n")
    return {"PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), str(SRC)])}


def test_an_internal_error_exits_3_with_one_line(tmp_path: Path) -> None:
    write(tmp_path / "m.md", MEMORY)
    result = run_process("scan", "m.md", "--isolated", cwd=tmp_path, env=crash_site(tmp_path), timeout=30)
    assert result.code == 3, result.err
    no_traceback(result.err)
    lines = result.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("memory-autopsy: internal error: RuntimeError")
    assert "github.com/memory-autopsy/memory-autopsy/issues" in lines[0]
    assert "\x1b" not in result.err and "\\x1b" in result.err  # the message is shown, not obeyed


@pytest.fixture
def broken_engine(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    import memory_autopsy.engine as engine

    def broken(*args: object, **kwargs: object) -> None:
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(engine, "lint_store", broken)  # every entry lints through the engine
    for name in ("GITHUB_EVENT_PATH", "GITHUB_STEP_SUMMARY", "GITHUB_OUTPUT"):
        monkeypatch.delenv(name, raising=False)
    yield


@pytest.mark.parametrize("command", [
    ("scan", "m.md", "--isolated"),
    ("hook", "m.md", "--context", "m.md", "--isolated"),
    ("ci", "m.md", "--isolated", "--no-changed-only"),
])
def test_every_entry_maps_a_crash_to_3(command: tuple[str, ...], tmp_path: Path, broken_engine: None) -> None:
    write(tmp_path / "m.md", MEMORY)
    result = run_cli(*command, cwd=tmp_path)
    assert result.code == 3, result.err
    assert result.err.startswith("memory-autopsy: internal error: RecursionError") and result.err.count("\n") == 1


def test_the_traceback_is_there_when_asked_for(tmp_path: Path, broken_engine: None,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "m.md", MEMORY)
    monkeypatch.setenv("MEMORY_AUTOPSY_TRACEBACK", "1")
    result = run_cli("scan", "m.md", "--isolated", cwd=tmp_path)
    assert result.code == 3 and "Traceback" in result.err and "internal error" in result.err


@pytest.mark.parametrize("args, code", [
    (("scan", "--no-such-flag"), 2),
    (("scan", "missing.md", "--isolated"), 2),
    (("scan", "e.json", "--isolated"), 1),
])
def test_usage_errors_stay_2_and_findings_stay_1(args: tuple[str, ...], code: int, tmp_path: Path) -> None:
    write(tmp_path / "e.json", ESC_STORE)
    result = run_process(*args, cwd=tmp_path, timeout=30)
    assert result.code == code, result.err
    no_traceback(result.err)


# -- a lone surrogate, in every output format ------------------------------------------------------

def test_a_lone_surrogate_reaches_a_real_stdout(tmp_path: Path) -> None:
    write(tmp_path / "s.jsonl", SURROGATE_STORE)
    result = run_process("scan", "s.jsonl", "--isolated", cwd=tmp_path, timeout=30)
    assert result.code == 1, result.err
    no_traceback(result.err)
    assert "\\ud800" in result.out  # shown as an escape


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_lone_surrogate_in_every_format(fmt: str, tmp_path: Path) -> None:
    write(tmp_path / "s.jsonl", SURROGATE_STORE)
    result = run_cli("scan", "s.jsonl", "--isolated", "--format", fmt, cwd=tmp_path)
    assert result.code == 1, result.err
    result.out.encode("utf-8")  # strict: what a real stdout does
    if fmt in ("json", "sarif"):
        json.loads(result.out)


def test_a_lone_surrogate_in_files_and_the_job_summary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "s.jsonl", SURROGATE_STORE)
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(write(tmp_path / "summary.md", "")))
    monkeypatch.setenv("GITHUB_OUTPUT", str(write(tmp_path / "output.txt", "")))
    result = run_cli("ci", "s.jsonl", "--isolated", "--sarif-file", "out.sarif", cwd=tmp_path)
    assert result.code == 1, result.err
    json.loads((tmp_path / "out.sarif").read_text(encoding="utf-8"))
    assert "\\\\ud800" in (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert run_cli("scan", "s.jsonl", "--isolated", "--json", "-o", "out.json", cwd=tmp_path).code == 1
    json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))


# -- numbers, nesting and globs that used to crash or hang ------------------------------------------

@pytest.mark.parametrize("name, text", [
    ("big.json", '[{"entity": "a", "slot": "b", "value": "c", "observed_at": ' + "9" * 400 + "}]"),
    ("big.jsonl", '{"entity": "a", "slot": "b", "value": "c", "observed_at": -' + "9" * 400 + "}\n"),
])
def test_a_400_digit_number_is_not_a_date(name: str, text: str, tmp_path: Path) -> None:
    write(tmp_path / name, text)
    result = run_cli("scan", name, "--isolated", "--json", cwd=tmp_path)
    assert result.code == 0, result.err
    assert json.loads(result.out)["facts"] == 1


@pytest.mark.parametrize("value", [
    int("9" * 400), float("inf"), float("nan"), "9999-12-31T23:00:00-05:00", "0001-01-01T00:00:00+05:00",
])
def test_dates_past_the_calendar_are_no_dates(value: object) -> None:
    assert parse_date(value) is None


def test_a_json_string_holding_deep_json_is_bad_input(tmp_path: Path) -> None:
    write(tmp_path / "s.json", json.dumps("[" * 1100 + "]" * 1100))
    result = run_cli("scan", "s.json", "--isolated", "--json", cwd=tmp_path)
    assert result.code == 0, result.err
    assert [f["rule"] for f in json.loads(result.out)["findings"]] == ["bad_input"]


DOTTED = ".a" * 4999


@pytest.mark.parametrize("rule_file", [
    "x = " + "[" * 5000 + "]" * 5000 + "\n",
    "x = " + "{a=" * 5000 + "1" + "}" * 5000 + "\n",
    "a" + DOTTED + " = 1\n",
    "[weights]\ncues" + DOTTED + " = 1\n",
    "[vocabulary]\nanchors" + DOTTED + " = 'x'\n",
    "[embed]\ntimeout" + DOTTED + " = 1\n",
    "[rules]\nduplicate" + DOTTED + " = 'x'\n",
    "[embed]\ntimeout = inf\n",
    "[embed]\ntimeout = nan\n",
    "[embed]\ntimeout = -inf\n",
    "[weights]\n\"cues.verified\" = nan\n",
    "[staleness]\nmax-age-days = 1000000\n",
])
def test_a_hostile_rule_file_is_a_usage_error(rule_file: str, tmp_path: Path) -> None:
    write(tmp_path / "m.md", MEMORY)
    write(tmp_path / "rules.toml", rule_file)
    result = run_cli("scan", "m.md", "--config", "rules.toml", cwd=tmp_path)
    assert result.code == 2, result.err
    assert result.err.startswith("memory-autopsy: error: rules.toml: ") and result.err.count("\n") == 1
    assert len(result.err) < 400


def test_an_include_of_2000_double_stars_is_fast(tmp_path: Path) -> None:
    write(tmp_path / "a" / "b" / "notes.md", MEMORY)
    write(tmp_path / "memory-autopsy.toml", 'include = ["' + "**/" * 2000 + 'notes.md"]\n')
    started = time.perf_counter()
    result = run_cli("scan", ".", "--json", cwd=tmp_path)
    assert time.perf_counter() - started < 2
    assert result.code == 0, result.err
    assert json.loads(result.out)["facts"] == 1


@pytest.mark.parametrize("pattern", [
    "**/" * 2000 + "x.md", "a/" + "**/" * 2000 + "x.md", "*a" * 2000, "[a-" * 2000, "[a-/" * 2000,
    "[" * 6000, "*/" * 2000 + "x.md",
])
def test_glob_matching_stays_linear(pattern: str) -> None:
    path = "a/" * 30 + "b" * 200 + ".md"
    started = time.perf_counter()
    for _ in range(50):
        selected(path, [pattern], [])
    assert time.perf_counter() - started < 1


@pytest.mark.parametrize("path, pattern, expected", [
    ("a/b/x.md", "**/" * 50 + "x.md", True),
    ("x.md", "**/**/x.md", True),
    ("a/[x.md", "a/[x.md", True),
    ("a/[b/x.md", "**/[b/*.md", True),
    ("a/c.md", "a/[abc].md", True),
    ("a/d.md", "a/[!d].md", False),
    ("docs/a/b.md", "docs/**", True),
])
def test_glob_meaning_is_kept(path: str, pattern: str, expected: bool) -> None:
    assert selected(path, [pattern], []) is expected


# -- flags and paths -------------------------------------------------------------------------------

@pytest.mark.parametrize("args, code", [
    (("--max-age-days", "1000000"), 2),
    (("--max-age-days", "-1"), 2),
    (("--max-age-days", "365000", "--as-of", "0003-01-01"), 0),
    (("--max-age-days", "10", "--as-of", "0001-01-02"), 0),
])
def test_an_age_past_the_calendar(args: tuple[str, ...], code: int, tmp_path: Path) -> None:
    write(tmp_path / "m.md", MEMORY)
    result = run_cli("scan", "m.md", "--isolated", "--fail-on", "error", *args, cwd=tmp_path)
    assert result.code == code, result.err
    no_traceback(result.err)


def test_a_rule_file_age_meets_an_early_as_of(tmp_path: Path) -> None:
    write(tmp_path / "m.md", MEMORY)
    write(tmp_path / "rules.toml", "[staleness]\nmax-age-days = 365000\n")
    result = run_cli("scan", "m.md", "--config", "rules.toml", "--as-of", "0002-01-01", cwd=tmp_path)
    assert result.code == 0, result.err


def test_a_100k_deep_baseline_is_a_usage_error(tmp_path: Path) -> None:
    write(tmp_path / "m.md", MEMORY)
    write(tmp_path / "base.json", "[" * 100000 + "]" * 100000)
    result = run_cli("scan", "m.md", "--isolated", "--baseline", "base.json", cwd=tmp_path)
    assert result.code == 2 and "nested too deeply" in result.err, result.err


def test_a_deep_baseline_entry_is_a_usage_error(tmp_path: Path) -> None:
    write(tmp_path / "m.md", MEMORY)
    entry = {"fingerprint": "f", "rule": json.loads("[" * 900 + "]" * 900)}
    document = {"tool": "memory-autopsy", "format": 1, "entries": [entry]}
    from memory_autopsy.ci.baseline import SCHEME

    write(tmp_path / "base.json", json.dumps({**document, "fingerprints": SCHEME}))
    result = run_cli("scan", "m.md", "--isolated", "--baseline", "base.json", cwd=tmp_path)
    assert result.code in (0, 2), result.err
    no_traceback(result.err)


def test_an_output_path_that_is_a_folder_is_a_usage_error(tmp_path: Path) -> None:
    write(tmp_path / "m.md", MEMORY)
    (tmp_path / "out").mkdir()
    result = run_cli("scan", "m.md", "--isolated", "-o", "out", cwd=tmp_path)
    assert result.code == 2 and "is a directory" in result.err, result.err
    assert list((tmp_path / "out").iterdir()) == [] and [p.name for p in tmp_path.glob(".memory-autopsy-*")] == []


def test_init_creates_a_missing_folder(tmp_path: Path) -> None:
    result = run_cli("init", "new/deeper/rules.toml", cwd=tmp_path)
    assert result.code == 0, result.err
    assert (tmp_path / "new" / "deeper" / "rules.toml").is_file()
    result = run_cli("init", "new/", cwd=tmp_path)
    assert result.code == 0, result.err
    assert (tmp_path / "new" / "memory-autopsy.toml").is_file()
    assert run_cli("init", "new", cwd=tmp_path).code == 2  # exists: --force to overwrite


@posix_only
def test_a_fifo_baseline_is_refused_without_blocking(tmp_path: Path) -> None:
    write(tmp_path / "m.md", MEMORY)
    os.mkfifo(tmp_path / "fifo")
    result = run_process("scan", "m.md", "--isolated", "--baseline", "fifo", cwd=tmp_path, timeout=10)
    assert result.code == 2 and "regular file" in result.err, result.err


@posix_only
def test_the_baseline_command_never_replaces_a_fifo(tmp_path: Path) -> None:
    write(tmp_path / "m.md", MEMORY)
    os.mkfifo(tmp_path / "fifo")
    result = run_cli("baseline", "m.md", "--isolated", "--baseline", "fifo", cwd=tmp_path)
    assert result.code == 2, result.err
    assert stat.S_ISFIFO(os.stat(tmp_path / "fifo").st_mode)


# -- terminal and job-summary injection ------------------------------------------------------------

@pytest.mark.parametrize("fmt", ["text", "markdown", "github"])
def test_control_characters_are_shown_not_sent(fmt: str, tmp_path: Path) -> None:
    write(tmp_path / "e.json", ESC_STORE)
    result = run_cli("scan", "e.json", "--isolated", "--format", fmt, cwd=tmp_path)
    assert result.code == 1, result.err
    assert not any(ch in result.out for ch in "\x1b\x07\x9b\r"), result.out
    assert "\\x1b]0;pwned\\x07" in result.out and "\\x9b" in result.out


@pytest.mark.parametrize("command", [("reconcile", "e.json"), ("as-of", "2030-01-01", "e.json")])
def test_control_characters_in_the_views(command: tuple[str, ...], tmp_path: Path) -> None:
    write(tmp_path / "e.json", ESC_STORE)
    result = run_cli(*command, "--isolated", cwd=tmp_path)
    assert result.code == 0, result.err
    assert "\x1b" not in result.out and "\\x1b" in result.out


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_json_formats_keep_the_text_and_escape_it(fmt: str, tmp_path: Path) -> None:
    write(tmp_path / "e.json", ESC_STORE)
    result = run_cli("scan", "e.json", "--isolated", "--format", fmt, cwd=tmp_path)
    assert not any(ch in result.out for ch in "\x1b\x07\x9b")
    parsed = repr(json.loads(result.out))  # the same characters, escaped in the document
    assert "e\\x1b]0;pwned\\x07" in parsed and "\\x9b" in parsed


@pytest.mark.parametrize("fmt", ["json", "sarif", "text", "markdown", "github"])
def test_a_delete_in_ascii_text_is_escaped_too(fmt: str, tmp_path: Path) -> None:
    """The formats pass text through unsearched when it holds nothing to escape: ASCII text
    with DEL in it (a control character, but ASCII; the JSON encoder leaves it raw) is escaped."""
    store = [{"entity": "e\x7fx", "slot": "db", "value": v} for v in ("MySQL", "PostgreSQL")]
    write(tmp_path / "e.json", json.dumps(store))
    result = run_cli("scan", "e.json", "--isolated", "--format", fmt, cwd=tmp_path)
    assert result.code == 1, result.err
    assert "\x7f" not in result.out
    shown = repr(json.loads(result.out)) if fmt in ("json", "sarif") else result.out
    assert "e\\x7fx" in shown


def test_each_finding_line_is_what_the_json_encoder_writes() -> None:
    """The JSON report writes a finding's line field by field: every value must come out as
    json.dumps writes it (escapes, non-ASCII, None, NaN and infinities, an int for a float, a
    bool where an int belongs, a value of no JSON type at all)."""
    texts = ["plain", 'a "quote" and a \\ backslash', "a line\nbreak\tand tab", "é 漢 😀", "\u2028 \x85",
             "nul\x00 esc\x1b"]
    confidences = [1.0, 0.1, 1, float("nan"), float("inf"), -float("inf")]
    findings = [
        Finding("duplicate", Severity.WARNING, "1", text, n + 1, text, "FULL", text, confidences[n], (text, "id"),
                (Location(text, n + 2, None if n % 2 else text, n - 3),), "fp" + text,
                "unchanged" if n % 2 else None, (), n - 3)
        for n, text in enumerate(texts)
    ]
    findings.append(findings[0]._replace(line=True))
    findings.append(findings[0]._replace(related=(Location("m.md", False),)))
    findings.append(findings[0]._replace(fact_ids=(7,), related=()))
    expected = []
    for f in findings:
        data = {"rule": f.rule, "severity": f.severity.value, "layer": f.layer, "path": f.path, "line": f.line,
                "entity": f.entity, "fidelity": f.fidelity, "message": f.message, "confidence": f.confidence,
                "fact_ids": list(f.fact_ids), "related": [], "fingerprint": f.fingerprint}
        for where in f.related:
            data["related"].append({"path": where.path, "line": where.line, "fact_id": where.fact_id})
            if where.obs >= 0:
                data["related"][-1]["obs"] = where.obs
        if f.obs >= 0:
            data["obs"] = f.obs
        if f.baseline is not None:
            data["baseline"] = f.baseline
        expected.append(json_safe(json.dumps(data, ensure_ascii=False)))
    lines = json_format.format_report(Report("heuristic", (), tuple(findings))).split("\n")  # not at U+2028
    written = [line.strip().removesuffix(",") for line in lines if line.startswith("    {")]
    assert written == expected


def test_bare_urls_are_no_links_in_the_job_summary() -> None:
    message = "see https://evil.example/x, http://a.b, WWW.evil.example and ops@evil.example"
    finding = Finding("duplicate", Severity.ERROR, "0", "m.md", 1, "www.x.example", "FULL", message, 1.0,
                      (), (), "f")
    report = Report("heuristic", (), (finding,))
    page = summary.format_report(report)
    for linkable in ("://", "www.", "WWW.", "@evil", "&#64;evil"):
        assert linkable not in page, linkable
    assert "evil.example/x" in page


# -- files the user asked for follow the umask -----------------------------------------------------

@pytest.fixture
def umask() -> Iterator[None]:
    previous = os.umask(0o022)
    yield
    os.umask(previous)


@posix_only
def test_output_files_follow_the_umask(tmp_path: Path, umask: None, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "m.md", MEMORY)
    assert run_cli("scan", "m.md", "--isolated", "-o", "out.txt", cwd=tmp_path).code == 0
    assert stat.S_IMODE(os.stat(tmp_path / "out.txt").st_mode) == 0o644
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    run_cli("ci", "m.md", "--isolated", "--sarif-file", "out.sarif", cwd=tmp_path)
    assert stat.S_IMODE(os.stat(tmp_path / "out.sarif").st_mode) == 0o644
    os.umask(0o077)
    assert run_cli("scan", "m.md", "--isolated", "-o", "private.txt", cwd=tmp_path).code == 0
    assert stat.S_IMODE(os.stat(tmp_path / "private.txt").st_mode) == 0o600


@posix_only
def test_a_replaced_output_keeps_its_mode(tmp_path: Path, umask: None) -> None:
    write(tmp_path / "m.md", MEMORY)
    os.chmod(write(tmp_path / "out.txt", "old"), 0o640)
    assert run_cli("scan", "m.md", "--isolated", "-o", "out.txt", cwd=tmp_path).code == 0
    assert stat.S_IMODE(os.stat(tmp_path / "out.txt").st_mode) == 0o640
    assert "clean" in (tmp_path / "out.txt").read_text(encoding="utf-8")
