"""Hostile input ends fast and cleanly (issue 10): fuzzed memory and rule files never raise and
always yield valid output in every format; the adversarial families of the issue scan in time
linear in their size.

Profiles: `fuzz` (the default here) keeps each shape to a few seconds in CI; `long` is for local
runs. pytest loads `--hypothesis-profile` before it imports test files, so name this file as a
plugin too for the long run:

    python -m pytest -p tests.test_fuzz --hypothesis-profile long tests/test_fuzz.py
"""

from __future__ import annotations

import json
import math
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import date, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

if TYPE_CHECKING:
    from conftest import Result

settings.register_profile(
    "fuzz", max_examples=30, deadline=timedelta(seconds=5), derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.register_profile(
    "long", max_examples=3000, deadline=timedelta(seconds=10),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
# Only this file's tests take the profile: other property tests keep theirs.
FUZZ = settings.get_profile("long" if settings.get_current_profile_name() == "long" else "fuzz")
CLI_FUZZ = settings(FUZZ, max_examples=max(5, FUZZ.max_examples // 6))
TODAY = date(2026, 1, 1)


def run_cli(*args: str, cwd: Path | None = None) -> Result:
    """conftest's run_cli, imported late: this file is also loaded as a plugin (see above), before
    the tests folder is on the import path."""
    from conftest import run_cli as run

    return run(*args, cwd=cwd)


@contextmanager
def _memory_file(name: str, data: str | bytes) -> Iterator[Path]:
    """A fresh folder per example (pytest's tmp_path is one per test, not per example)."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass"))
        yield path


# --- what memory looks like, and what breaks parsers -----------------------------------------

PIECES = (
    "billing", "Globex", "Nortwind", "Northwind", "uses", "PostgreSQL 15", "MySQL", "v2.3", "is",
    "replaced", "no longer", "migrated to", "works at", "deprecated", "we use", ":", "：", "=", '"x"',
    'tool = "redis"', "(aka: B)", "(source: wiki", "(source: a, class: primary)", ", class: x)",
    "(2026-02-01)", "(observed 2025-03-01)", "(on Jan 5, 2024)", "-- 2024-04-01", "; valid_from=2024-01-01",
    "; to=2025-13-45", "~~old~~ (superseded 2024-05-01, see a.md:3)", "✅", "(Completed)", "**Status**:",
    "Last Updated: 2025-01-01", "[2024-01-01] - started", "5 tests passing", "1,800 tests passing",
    "90% complete", "<!--", "-->", "<!-- memory-autopsy: ignore duplicate -->", "[[link]]",
    "[doc](docs/a.md)", "https://x.example/a", "\x1b]8;;x\x07", "\u2028", "\x00", "\ud800", "(", ")",
    "[", "|", "~~", "**", "`", "```", "  ", "\t", "uses , ", "9" * 40,
)
LEADS = ("", "", "- ", "* ", "1. ", "  - ", "- [ ] ", "- [x] ", "# ", "## ", "### ", "| ", "> ", "---", "===")

line = st.builds(
    lambda lead, parts: lead + " ".join(parts),
    st.sampled_from(LEADS),
    st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=12)), max_size=8),
)
markdown_text = st.lists(line, max_size=16).map("\n".join)

KEYS = ("entity", "subject", "name", "claim", "fact", "text", "slot", "value", "observed_at", "date",
        "updated_at", "valid_from", "valid_to", "source", "source_class", "id", "aliases", "status",
        "facts", "memories", "entities", "relations", "observations", "from", "to", "relationType",
        "entityType", "metadata", "kind")
scalar = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=20),
    st.sampled_from(("2026-01-05", "2025-02-30", "Jan 5, 2024", "1700000000", "uses MySQL", "billing")),
)
json_value = st.recursive(
    scalar,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5),
        st.dictionaries(st.one_of(st.sampled_from(KEYS), st.text(max_size=6)), inner, max_size=6),
    ),
    max_leaves=24,
)
record = st.dictionaries(st.sampled_from(KEYS), json_value, max_size=7)


def _jsonl(lines: list[dict[str, Any] | str]) -> str:
    return "\n".join(item if isinstance(item, str) else json.dumps(item) for item in lines) + "\n"


jsonl_text = st.lists(st.one_of(record, st.text(max_size=30)), max_size=10).map(_jsonl)
json_text = st.one_of(
    json_value.map(json.dumps),
    st.lists(record, max_size=8).map(lambda items: json.dumps({"facts": items}, indent=2)),
    st.text(max_size=40),
)
SHAPES: dict[str, tuple[str, st.SearchStrategy[str]]] = {
    "markdown": ("MEMORY.md", markdown_text),
    "json": ("memory.json", json_text),
    "jsonl": ("memory.jsonl", jsonl_text),
}


# --- one run, every format ---------------------------------------------------------------------

def _formats() -> dict[str, Callable[[Any], str]]:
    from memory_autopsy.formatters import github, json_format, markdown, sarif, text

    return {"text": text.format_report, "json": json_format.format_report,
            "markdown": markdown.format_report, "sarif": sarif.format_report, "github": github.format_report}


def _assert_valid(fmt: str, output: object) -> None:
    assert isinstance(output, str)
    if fmt in ("json", "sarif"):
        json.loads(output)


def _lint_every_format(path: Path) -> None:
    from memory_autopsy.api import lint

    report = lint(str(path), today=TODAY)
    for fmt, format_report in _formats().items():
        _assert_valid(fmt, format_report(report))


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_fuzzed_memory_lints_in_every_format(shape: str) -> None:
    name, texts = SHAPES[shape]

    @FUZZ
    @given(texts)
    def check(text: str) -> None:
        with _memory_file(name, text) as path:
            _lint_every_format(path)

    check()


def _assert_clean_exit(args: tuple[str, ...], fmt: str, cwd: Path | None = None) -> None:
    done = run_cli(*args, "--format", fmt, cwd=cwd)
    assert done.code in (0, 1, 2), done  # 3 is an internal error: a bug, never findings
    assert "Traceback" not in done.err and "internal error" not in done.err, done.err
    if done.code != 2:
        _assert_valid(fmt, done.out)


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_fuzzed_memory_through_the_cli(shape: str) -> None:
    name, texts = SHAPES[shape]

    @CLI_FUZZ
    @given(texts, st.sampled_from(sorted(_formats())))
    def check(text: str, fmt: str) -> None:
        with _memory_file(name, text) as path:
            _assert_clean_exit(("scan", "--isolated", str(path)), fmt)

    check()


# --- rule files ----------------------------------------------------------------------------------

def _toml_value(value: Any) -> str:
    """A TOML rendering of a generated value (strings in JSON quoting, which TOML reads)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"


RULE_KEYS = {
    "": ("include", "exclude", "fail-on", "engine", "baseline", "unknown-key"),
    "rules": ("duplicate", "unsourced", "likely_conflict", "stale", "no_such_rule"),
    "vocabulary": ("transitions", "anchors", "synonyms", "status-words", "section-kinds"),
    "staleness": ("max-age-days",),
    "embed": ("provider", "url", "model", "api-key-env", "timeout", "batch-size", "cache-dir"),
    "weights": ("cues.verified", "class.primary", "fidelity.FULL", "cues", "class.nope"),
}
toml_scalar = st.one_of(
    st.sampled_from(("warning", "error", "never", "off", "heuristic", "info", "ollama", "primary",
                     "memory/**/*.md", "**/", "uses", "pending", "")),
    st.integers(min_value=-(10**20), max_value=10**20), st.floats(), st.booleans(), st.text(max_size=10),
)
toml_item = st.one_of(
    toml_scalar, st.lists(toml_scalar, max_size=4),
    st.dictionaries(st.text(max_size=8), st.one_of(toml_scalar, st.lists(toml_scalar, max_size=3)), max_size=3),
)


@st.composite
def rule_files(draw: st.DrawFn) -> str:
    lines = []
    for table, keys in RULE_KEYS.items():
        chosen = draw(st.dictionaries(st.sampled_from(keys), toml_item, max_size=3))
        if table and (chosen or draw(st.booleans())):
            lines.append(f"[{table}]")
        for key, value in chosen.items():
            if table == "" and key == "engine":
                value = "heuristic"  # the embed engine would go to the network
            lines.append(f"{json.dumps(key)} = {_toml_value(value)}")
    return draw(st.one_of(st.just("\n".join(lines) + "\n"), st.text(max_size=60)))


def test_fuzzed_rule_files_are_read_or_refused_in_one_line() -> None:
    @CLI_FUZZ
    @given(rule_files(), markdown_text, st.sampled_from(sorted(_formats())))
    def check(rules: str, memory: str, fmt: str) -> None:
        with _memory_file("memory-autopsy.toml", rules) as config:
            (config.parent / "MEMORY.md").write_bytes(memory.encode("utf-8", "surrogatepass"))
            _assert_clean_exit(("scan", "--config", str(config), "MEMORY.md"), fmt, cwd=config.parent)

    check()


# --- adversarial families: each ends fast, and in time linear in its size ------------------------

FLOOR = 0.5  # seconds: below this a doubling says nothing about growth on a busy CI machine
SMALL = 2_000  # the "2 KB adversarial line"
LARGE = 40_000


def _repeat(unit: str, size: int) -> str:
    return unit * max(1, size // len(unit))


def _record(entity: str, claim: str, observed: str = "2026-01-05") -> str:
    return json.dumps({"entity": entity, "claim": claim, "observed_at": observed}) + "\n"


def _long_name(size: int) -> str:
    return "".join(chr(97 + (i * 7) % 26) for i in range(size))


def _wide_slot(size: int) -> str:
    """One slot, `size // 8` distinct values, half on the newest date (issue: 10,000 values)."""
    lines = []
    for i in range(size // 8):
        day = "2026-06-01" if i % 2 else f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}"
        lines.append(json.dumps({"entity": "billing", "slot": "database", "value": f"engine {i}x",
                                 "observed_at": day}))
    return "\n".join(lines) + "\n"


def _json_document(size: int) -> str:
    """A whole-file JSON document (pretty-printed, so line numbers are looked up per item)."""
    items = [{"entity": f"service{i}", "claim": f"service{i} uses engine {i}", "observed_at": "2026-01-05"}
             for i in range(size // 64)]
    return json.dumps({"facts": items}, indent=2)


# name -> (file name, text of a given size); the reproducers, then what their fixes found.
FAMILIES: dict[str, tuple[str, Callable[[int], str]]] = {
    "observation parenthesis": ("m.md", lambda n: "- x (" + " " * n + "y)\n"),
    "heading spaces": ("m.md", lambda n: "# a" + " " * n + "b\n"),
    "heading spaces in a parenthesis": ("m.md", lambda n: "## a (" + " " * n + "b\n"),
    "source repeated": ("m.md", lambda n: "- x " + _repeat("(source: ", n) + "\n"),
    "comment repeated": ("m.md", lambda n: "- x " + _repeat("<!--", n) + "\n"),
    "uses repeated": ("m.md", lambda n: "- " + _repeat("uses , ", n) + "\n"),
    "uses repeated in a record": ("m.jsonl", lambda n: _record("svc", _repeat("uses , ", n))),
    "label spaces": ("m.md", lambda n: "- Status" + " " * n + "x\n"),
    "table rule spaces": ("m.md", lambda n: "| a |\n|" + " " * n + "x\n"),
    "thousands repeated": ("m.md", lambda n: "- " + _repeat("111,", n) + " tests passing\n"),
    "pair value spaces": ("m.md", lambda n: 'svc: tool = "x" ; valid_from=' + " " * n + "x\n"),
    "long entity name": ("m.jsonl", lambda n: _record(_long_name(n), "uses postgres")
                         + _record(_long_name(n)[:-1] + "q", "uses mysql", "2026-02-01")),
    "long entity heading": ("m.md", lambda n: f"## {_long_name(n)}\n\n- uses postgres (2026-01-05)\n\n"
                            f"## {_long_name(n)}q\n\n- uses mysql (2026-02-01)\n"),
    "long claim twice": ("m.md", lambda n: "".join(f"- {' '.join(f'w{i}x' for i in range(n // 6))} {end}\n"
                                                   for end in ("alpha", "beta"))),
    "one slot, many values": ("m.jsonl", _wide_slot),
    "json document": ("m.json", _json_document),
    "open questions answered by older lines": ("m.md", lambda n: (
        "- the job reads from `jobs_queue` (2025-01-01)\n- uses `jobs_queue` for retries (TBD) (2026-01-01)\n"
    ) * (n // 8)),
    "a rejected name relied on": ("m.md", lambda n: (
        "- Do NOT use `legacy_sync` (2026-06-01)\n- Sync: from `legacy_sync` nightly (2026-01-01)\n"
    ) * (n // 8)),
    "a rejected name many times on one line": ("m.md", lambda n: "- Do NOT use `a_b`\n- Note: x " + _repeat("a_b ", n) + "\n"),
    "done and pending copies": ("m.md", lambda n: "- [x] migrate the billing db\n- [ ] migrate the billing db\n"
                                * (n // 64)),
}


def _scan_seconds(name: str, text: str) -> float:
    with _memory_file(name, text) as path:
        start = time.perf_counter()
        done = run_cli("scan", "--isolated", "--format", "json", str(path))
        seconds = time.perf_counter() - start
    assert done.code in (0, 1), done.err
    json.loads(done.out)
    return seconds


@pytest.fixture(scope="module", autouse=True)
def _warm() -> None:
    """Imports and lexicon loading are paid once, not by the first family timed or example run."""
    _scan_seconds("m.md", "- warm: uses x\n")
    _formats()


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_an_adversarial_2_kb_line_scans_well_under_a_second(family: str) -> None:
    name, build = FAMILIES[family]
    assert _scan_seconds(name, build(SMALL)) < 1.0


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_scan_time_is_linear_when_the_input_doubles(family: str) -> None:
    name, build = FAMILIES[family]
    once = _scan_seconds(name, build(LARGE))
    twice = _scan_seconds(name, build(2 * LARGE))
    if twice > max(3 * once, FLOOR):  # a quadratic step grows 4x; retry once for CI noise
        once, twice = _scan_seconds(name, build(LARGE)), _scan_seconds(name, build(2 * LARGE))
    assert twice <= max(3 * once, FLOOR), f"{family}: {once:.2f} s, then {twice:.2f} s for twice the input"


def test_admit_of_a_112_kb_claim_ends_fast(tmp_path: Path) -> None:
    """The write gate (MCP `memory_admit`) reads the candidate like any record."""
    from memory_autopsy.api import admit

    store = tmp_path / "store.jsonl"
    store.write_text(_record("svc", "svc uses postgres"), encoding="utf-8")
    start = time.perf_counter()
    verdict = admit({"entity": "svc", "claim": _repeat("uses , ", 112_000)}, str(store))
    assert time.perf_counter() - start < 2.0
    assert verdict.status in ("accepted", "requires_review", "rejected")


def _scan_peak(tmp_path: Path, family: str, size: int) -> tuple[Any, int]:
    """Scan one adversarial file of a family; the run's result and its peak traced memory."""
    name, build = FAMILIES[family]
    path = tmp_path / name
    path.write_text(build(size), encoding="utf-8")
    tracemalloc.start()
    try:
        done = run_cli("scan", "--isolated", str(path))
        return done, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_64_kb_entity_name_needs_little_memory(tmp_path: Path) -> None:
    """Look-alike keys were len(name) strings of len(name): 4.2 GB for 64 KB (a MemoryError
    under a memory limit). Names longer than a name are not compared for look-alikes."""
    done, peak = _scan_peak(tmp_path, "long entity name", 64 * 1024)
    assert done.code in (0, 1), done.err
    assert peak < 64 * 2**20, f"peak {peak / 2**20:.0f} MiB"


def test_a_long_claim_needs_little_memory(tmp_path: Path) -> None:
    """Near-duplicate blocking keys were every one-word deletion of the claim, joined: now they
    are hashes, and the two claims one word apart are still near-duplicates."""
    done, peak = _scan_peak(tmp_path, "long claim twice", 32 * 1024)  # 5,400 words: about 1 GB before
    assert done.code in (0, 1), done.err
    assert peak < 64 * 2**20, f"peak {peak / 2**20:.0f} MiB"
    assert "near_duplicate" in done.out


def test_one_slot_with_10000_values_still_reports_the_newest_disagreement(tmp_path: Path) -> None:
    """Past 64 distinct values on the newest date, older facts are not judged against them;
    the disagreement among the newest values is still reported."""
    path = tmp_path / "m.jsonl"
    path.write_text(_wide_slot(80_000), encoding="utf-8")
    start = time.perf_counter()
    done = run_cli("scan", "--isolated", "--format", "json", str(path))
    assert time.perf_counter() - start < 10.0
    findings = json.loads(done.out)["findings"]
    newest = 10_000 // 2
    assert len(findings) == newest - 1  # the first newest value against each other one
    assert all("no observation order" in finding["message"] for finding in findings)


def test_the_profiles_are_registered() -> None:
    assert settings.get_profile("fuzz").max_examples <= 50
    assert settings.get_profile("long").max_examples >= 1000


# --- a repository a pull request controls: links out, odd names, a forged baseline (issue 43) ----

SECRET = "FUZZ-SECRET-5e1c"
_NAMES = st.sampled_from([b"CLAUDE.md", b"memory-bank/progress.md", b"memory-bank/\xff\xfe.md",
                          b"memory-bank/\xe9t\xe9.md", b".cursor/rules/a\xc3.mdc", b"notes/\xff.txt"])
_ENTRIES = st.tuples(_NAMES, st.sampled_from(["text", "outside", "inside", "broken", "import-out"]), markdown_text)
_FINGERPRINT = st.one_of(st.text(max_size=40), st.just("x\n::error file=a.md,line=1::forged"),
                         st.just("::add-mask::" + SECRET), st.integers(), st.none())
_BASELINES = st.one_of(
    st.none(), st.just("outside-link"), st.text(max_size=80),
    st.lists(st.fixed_dictionaries({"rule": st.sampled_from(["contradicted_implicit", "x\n::warning::y"]),
                                    "path": st.text(max_size=20), "fingerprint": _FINGERPRINT,
                                    "count": st.one_of(st.integers(-2, 3), st.text(max_size=3))}),
             max_size=4).map(lambda entries: json.dumps({"tool": "memory-autopsy", "format": 1,
                                                         "fingerprints": "memoryAutopsy/v2",
                                                         "entries": entries})),
)


def _hostile_repository(root: Path, outside: Path, entries: list[tuple[bytes, str, str]],
                        baseline: str | None) -> None:
    import os
    import subprocess

    base = os.fsencode(root)
    for name, kind, text in entries:
        path = os.path.join(base, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if os.path.lexists(path):
            continue
        if kind == "outside":
            os.symlink(os.fsencode(outside / "secret.md"), path)
        elif kind == "broken":
            os.symlink(os.fsencode(outside / "missing.md"), path)
        elif kind == "inside" and os.path.exists(os.path.join(base, b"CLAUDE.md")):
            os.symlink(os.path.join(base, b"CLAUDE.md"), path)
        else:
            body = f"@{outside}/secret.md\n" if kind == "import-out" else ""
            with open(path, "wb") as handle:
                handle.write((body + text).encode("utf-8", "surrogatepass"))
    if baseline == "outside-link":
        os.symlink(outside / "secret.md", root / ".memory-autopsy-baseline.json")
    elif baseline is not None:
        (root / ".memory-autopsy-baseline.json").write_bytes(baseline.encode("utf-8", "surrogatepass"))
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"}
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "pr", "--allow-empty"]):
        subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True)


def test_a_hostile_repository_never_leaks_forges_or_crashes() -> None:
    """Links to a secret outside, names that are not UTF-8, forged baselines: `ci` and `scan`
    end with a verdict or a usage error, quote nothing of the secret, and print no workflow
    command of the repository's making."""

    @CLI_FUZZ
    @given(st.lists(_ENTRIES, min_size=1, max_size=5), _BASELINES, st.sampled_from(sorted(_formats())))
    def check(entries: list[tuple[bytes, str, str]], baseline: str | None, fmt: str) -> None:
        with tempfile.TemporaryDirectory() as folder:
            root, outside = Path(folder) / "repo", Path(folder) / "outside"
            root.mkdir()
            outside.mkdir()
            (outside / "secret.md").write_text(f"- 2024-01-01 billing uses {SECRET}\n", encoding="utf-8")
            _hostile_repository(root, outside, entries, baseline)
            for args in (("ci",), ("scan", "--format", fmt), ("scan", ".", "--format", fmt)):
                done = run_cli(*args, cwd=root)
                assert done.code in (0, 1, 2), done
                assert "Traceback" not in done.err and "internal error" not in done.err, done.err
                assert SECRET not in done.out + done.err
                assert not [line for line in (done.out + done.err).splitlines()
                            if line.lstrip().startswith(("::add-mask", "::error file=a.md", "::warning::y"))]

    check()
