"""Speed and memory benchmark for `memory-autopsy` (stdlib only, Python >= 3.10).

For each size (10k and 100k facts by default; 1M with --sizes) and each of three shapes of
the same facts (a JSONL store, memlint's JSON document, a markdown file of bullets) it
measures in the same run:

- floor: a child `python -c` that reads the store with `json` alone (JSONL: `json.loads` on
  every line; JSON: one `json.load`; markdown: the JSONL floor of the same facts);
- scan:  a child `python -m memory_autopsy scan STORE --json` (stdout to a file);
- cold / warm: a child that calls `memory_autopsy.api.lint` with a parse cache folder and
  writes the same JSON report: cold on an empty folder, warm on the folder the cold run filled;
- peer: `memlint check STORE --json` on the JSON document, from its own venv under the cache
  folder (installed on demand; `n/a` with the reason when it cannot be installed);
- hook: a one-line append to the 100k JSONL store (as one file and as 100 files), linted
  with a warm parse cache, focused on and filtered to the changed file as the hook does, against
  a cold run;
- start-up: `python -c pass` vs `scan three.md` vs `hook three.md`, best of 7 each (the hook
  on the file as it is, which replays its recorded run; edited before each run, the commit
  case; and with no record to replay), and the same hook in a git repository of 30,000 source
  files (it lists them for its scope).

At each size the shapes take turns, a round at a time (floor, scan, cold and warm of JSONL, then
of the JSON document, then of markdown, then round 2): a slower minute of the machine falls on
every shape, so a ratio between shapes compares runs close in time. The best run is kept.

Every child is started with Popen and reaped with `os.wait4`, which returns that child's own
rusage, so its peak RSS (`ru_maxrss`) is exact per child. Wall time is perf_counter around
spawn + wait. The children get PYTHONPATH=<repo>/src (so a clean clone works without
installing) and PYTHONPYCACHEPREFIX=<cache>/pycache (bytecode is cached, outside the repo).

    python bench/run_bench.py                        # 10k and 100k
    python bench/run_bench.py --sizes 10k,100k,1m    # and 1M
    python bench/run_bench.py --doubling             # and the doubling test (doubling.py)
    python bench/run_bench.py --json --check

Exit status is 0 unless --check is given; then 1 when a target is missed or could not be
measured (a target whose size was not selected is "n/a", not a failure).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (  # noqa: E402 (bench/ is not a package)
    DEFAULT_CACHE,
    PEER,
    PEER_VERSION,
    SRC,
    BenchError,
    DriverRun,
    MiB,
    Run,
    Runner,
    checked,
    fmt,
    generator_version,
    indent,
    load_average,
    peer_executable,
    progress,
    run_driver,
    run_peer,
    store_for,
)
from generate import parse_size  # noqa: E402

DEFAULT_SIZES = (10_000, 100_000)
SHAPES = ("jsonl", "json", "md")
SHAPE_NAMES = {"jsonl": "JSONL", "json": "JSON doc", "md": "markdown"}
STARTUP_RUNS = 7
HOOK_FACTS = 100_000
HOOK_SHARDS = 100
PEER_CALIBRATION = (1_000, 2_000)

# The targets (issue: linear on every input shape, ahead of the peer, instant on the second run).
FLOOR_RATIO_MAX = 6.0  # JSONL scan(100k) / floor(100k)
LINEARITY_MAX = 11.0  # JSONL scan(1M) / scan(100k)
PEAK_MIB_MAX = 1536.0  # JSONL scan peak RSS at 1M
PEER_RATIO_MAX = 0.5  # JSON document scan(100k) / memlint(100k)
MARKDOWN_RATIO_MAX = 1.5  # markdown scan(100k) / JSONL scan(100k), the same facts
SEMANTIC_RATIO_MAX = 3.0  # markdown scan(100k) with the static embedding model / without (issue: layer 3 offline)
SEMANTIC_SHAPE = "md"  # prose claims: what layer 3 reads
HOOK_STARTUP_MAX = 3.0  # hook(three.md) / `python -c pass`
HOOK_WARM_MAX = 0.3  # warm hook after a one-line change / cold run, 100k store
GROUNDING_MAX = 1.2  # hook on three.md just edited in the repository: grounding on / off (issue: memory against the repository)

FLOOR_JSONL = """\
import json, sys
loads = json.loads
with open(sys.argv[1], encoding="utf-8") as handle:
    for line in handle:
        if line.strip():
            loads(line)
"""
FLOOR_JSON = """\
import json, sys
with open(sys.argv[1], encoding="utf-8") as handle:
    json.load(handle)
"""

THREE_FACTS = """\
billing-store: tool = "PostgreSQL 14" -- 2026-01-05 (source: infra-doc)
cache-tier: tool = "redis 7" -- 2026-03-01 (source: infra-doc)
- billing-store: uses PostgreSQL 14 for the billing store (2026-01-05)
"""

APPENDED = json.dumps({
    "id": "bench0appended01", "entity": "platform-core", "slot": "", "value": "",
    "claim": "moved the billing store to PostgreSQL 17", "observed_at": "2026-11-01",
    "valid_from": None, "valid_to": None, "source": "runbook", "source_class": "primary",
    "fidelity": "PARTIAL", "status_verb": None,
}) + "\n"


# --- one shape at one size ----------------------------------------------------------------------

@dataclass
class ShapeResult:
    shape: str
    facts: int
    store_mib: float = 0.0
    floor_s: float | None = None
    scan_s: float | None = None
    scan_cpu_s: float | None = None  # the processor time of the fastest scan (all its processes)
    scan_mib: float | None = None
    scan_facts: int | None = None
    findings: int | None = None
    counts: dict[str, int] | None = None
    cold_s: float | None = None
    warm_s: float | None = None
    cold_work_s: float | None = None
    warm_work_s: float | None = None
    cold_ingest_s: float | None = None
    warm_ingest_s: float | None = None
    peer_s: float | None = None  # the peer's time, or its lower bound when it timed out
    peer_timed_out: bool = False
    peer_facts: int | None = None
    peer_note: str | None = None
    semantic_s: float | None = None  # markdown: the scan with the static embedding model (layer 3)
    semantic_note: str | None = None
    error: str | None = None

    def ratio(self, name: str, over: str = "floor_s") -> float | None:
        a, b = getattr(self, name), getattr(self, over)
        return a / b if a is not None and b else None


class _ShapeRuns:
    """One shape's runs at one size, a round at a time: `measure_size` runs each shape's round i
    in turn, so a slower minute of the machine falls on every shape and the ratios between
    shapes (markdown / JSONL) compare runs minutes apart at most, not a whole shape's runs."""

    def __init__(self, shape: str, n: int, runner: Runner, seed: int, repeat: int, scan_ok: bool) -> None:
        self.store = store_for(shape, n, seed, runner.cache)[0]
        self.res = ShapeResult(shape, n, self.store.stat().st_size / MiB)
        self.floor_store, self.floor_code = self.store, FLOOR_JSONL
        if shape == "json":
            self.floor_code = FLOOR_JSON
        elif shape == "md":
            self.floor_store = store_for("jsonl", n, seed, runner.cache)[0]  # the same facts as JSONL
        self.runner, self.repeat, self.scan_ok = runner, repeat, scan_ok
        self.floors: list[Run] = []
        self.scans: list[Run] = []
        self.colds: list[DriverRun] = []
        self.warms: list[DriverRun] = []
        self.out = runner.cache / f"scan-{shape}-n{n}.json"
        self.parse_cache = runner.cache / f"parse-cache-{shape}-n{n}"
        self.what = f"{shape} n={n:,}"

    def round(self, i: int) -> None:
        runner, res, what, repeat = self.runner, self.res, self.what, self.repeat
        progress(f"{what}: floor run {i + 1}/{repeat}")
        self.floors.append(checked(runner.run(["-c", self.floor_code, self.floor_store.name]), "floor"))
        if not self.scan_ok or res.error:
            return
        try:
            progress(f"{what}: scan run {i + 1}/{repeat}")
            run = runner.run(["-m", "memory_autopsy", "scan", self.store.name, "--json"], self.out)
            self.scans.append(_check_scan(run, self.out, res))
            shutil.rmtree(self.parse_cache, ignore_errors=True)
            progress(f"{what}: cold-cache run {i + 1}/{repeat}")
            self.colds.append(run_driver(runner, [self.store.name], self.out, parse_cache=self.parse_cache))
            progress(f"{what}: warm-cache run {i + 1}/{repeat}")
            self.warms.append(run_driver(runner, [self.store.name], self.out, parse_cache=self.parse_cache))
            if res.shape == SEMANTIC_SHAPE and res.semantic_note is None:
                self._semantic(i)
        except BenchError as exc:
            res.error = str(exc)

    def _semantic(self, i: int) -> None:
        """The same scan with layer 3 on the packaged static model (a rule file names it, so a
        server in the environment is never asked); degraded when the extra is missing."""
        rules = self.runner.cache / "semantic.toml"
        rules.write_text('engine = "embed"\n[embed]\nprovider = "static"\n', encoding="utf-8")
        progress(f"{self.what}: static-model scan run {i + 1}/{self.repeat}")
        run = self.runner.run(["-m", "memory_autopsy", "scan", self.store.name, "--json", "--no-cache",
                               "--config", rules.name], self.out)
        counts = _read_report(self.out)
        if run.code not in (0, 1) or counts is None or (counts[1] or {}).get("degraded"):
            self.res.semantic_note = "not measured: the semantic extra is not installed or the scan failed"
            return
        best = self.res.semantic_s
        self.res.semantic_s = run.wall if best is None else min(best, run.wall)

    def result(self, peer: Peer | None) -> ShapeResult:
        res, colds, warms = self.res, self.colds, self.warms
        self.out.unlink(missing_ok=True)
        shutil.rmtree(self.parse_cache, ignore_errors=True)
        res.floor_s = min(r.wall for r in self.floors)
        if self.scans:
            fastest = min(self.scans, key=lambda r: r.wall)
            res.scan_s, res.scan_cpu_s = fastest.wall, fastest.cpu
            res.scan_mib = max(r.peak_mib for r in self.scans)
        if colds and warms:
            res.cold_s, res.warm_s = min(r.wall for r in colds), min(r.wall for r in warms)
            res.cold_work_s, res.warm_work_s = min(r.work_s for r in colds), min(r.work_s for r in warms)
            res.cold_ingest_s = _min_or_none([r.ingest_s for r in colds])
            res.warm_ingest_s = _min_or_none([r.ingest_s for r in warms])
        if res.shape == "json" and peer is not None:
            _measure_peer(res, self.store, self.runner, peer)
        return res


def measure_size(shapes: list[str], n: int, runner: Runner, seed: int, repeat: int, scan_ok: bool,
                 peer: Peer | None) -> dict[str, ShapeResult]:
    """Every shape at one size, the shapes taking turns round by round (`_ShapeRuns`); the
    best run of each is kept."""
    runs = [_ShapeRuns(shape, n, runner, seed, repeat, scan_ok) for shape in shapes]
    for i in range(repeat):
        for shape_runs in runs:
            shape_runs.round(i)
    return {shape_runs.res.shape: shape_runs.result(peer) for shape_runs in runs}


def _min_or_none(values: list[float | None]) -> float | None:
    return None if any(v is None for v in values) else min(v for v in values if v is not None)


def _check_scan(run: Run, out: Path, res: ShapeResult) -> Run:
    """Exit 0/1 with a JSON report on stdout; anything else is an error to report."""
    if run.timed_out:
        raise BenchError(f"scan timed out after {run.wall:.0f}s")
    if run.code not in (0, 1):
        reason = "usage error" if run.code == 2 else "crashed"
        if run.code < 0:
            reason = f"killed by signal {-run.code}"
        raise BenchError(f"scan exit {run.code} ({reason})\n{run.stderr_tail}")
    report = _read_report(out)
    if report is None:
        hint = " (hit --mem-limit-gib?)" if "MemoryError" in run.stderr_tail else ""
        raise BenchError(f"scan exit {run.code} without a JSON report{hint}\n{run.stderr_tail}")
    res.scan_facts, res.counts = report
    res.findings = sum(res.counts.values()) if res.counts else None
    return run


def _read_report(out: Path) -> tuple[int | None, dict[str, int] | None] | None:
    """(facts, counts) from the report; None when stdout is not the JSON report."""
    size = out.stat().st_size if out.exists() else 0
    if size == 0:
        return None
    if size <= 256 * MiB:  # small enough to validate the whole document
        try:
            doc = json.loads(out.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError):
            return None
        if not isinstance(doc, dict):
            return None
        facts, counts = doc.get("facts"), doc.get("counts")
        return (facts if isinstance(facts, int) else None,
                counts if isinstance(counts, dict) else None)
    with out.open(encoding="utf-8", errors="replace") as handle:
        head = handle.read(65536)
    if not head.lstrip().startswith("{"):
        return None
    facts_m = re.search(r'"facts"\s*:\s*(\d+)', head)
    counts_m = re.search(r'"counts"\s*:\s*(\{[^{}]*\})', head)
    counts = json.loads(counts_m.group(1)) if counts_m else None
    return (int(facts_m.group(1)) if facts_m else None, counts)


# --- the peer -------------------------------------------------------------------------------------

@dataclass
class Peer:
    script: str | None
    note: str  # why it is n/a; "" when installed
    timeout: float
    calibration: list[tuple[int, float | None]] = field(default_factory=list)  # (n, s) measured

    def estimate(self, n: int) -> float | None:
        """A quadratic extrapolation from the largest calibration run (memlint compares every
        fact with every other one); None when there is none."""
        known = [(k, s) for k, s in self.calibration if s is not None]
        if not known:
            return None
        k, s = known[-1]
        return s * (n / k) ** 2


def setup_peer(runner: Runner, seed: int, timeout: float, install: bool) -> Peer:
    script, note = peer_executable(runner.cache, install)
    peer = Peer(script, note, timeout)
    if script is None:
        progress(f"peer n/a: {note}")
        return peer
    out = runner.cache / "peer-out.json"
    for n in PEER_CALIBRATION:
        store = store_for("json", n, seed, runner.cache)[0]
        progress(f"peer calibration: {PEER} on {n:,} facts")
        run, total = run_peer(runner, script, store, out, timeout)
        ok = not run.timed_out and run.code == 0 and total == n
        peer.calibration.append((n, run.wall if ok else None))
    out.unlink(missing_ok=True)
    return peer


def _measure_peer(res: ShapeResult, store: Path, runner: Runner, peer: Peer) -> None:
    if peer.script is None:
        res.peer_note = f"n/a (peer not installable: {peer.note})"
        return
    out = runner.cache / "peer-out.json"
    progress(f"peer: {PEER} check on {res.facts:,} facts (timeout {peer.timeout:.0f}s)")
    run, total = run_peer(runner, peer.script, store, out, peer.timeout)
    out.unlink(missing_ok=True)
    if run.timed_out:
        res.peer_s, res.peer_timed_out = run.wall, True
        estimate = peer.estimate(res.facts)
        res.peer_note = f"timed out at {run.wall:.0f}s" + (
            f"; ~{estimate:,.0f}s by a quadratic extrapolation" if estimate else "")
    elif run.code != 0:
        res.peer_note = f"{PEER} exit {run.code}: {run.stderr_tail.splitlines()[-1:] or ''}"
    else:
        res.peer_s, res.peer_facts = run.wall, total
        if total != res.facts:
            res.peer_note = f"{PEER} reported {total} facts"


# --- the hook after a one-line change, warm cache ------------------------------------------------

@dataclass
class HookResult:
    layout: str
    facts: int
    files: int
    cold_s: float | None = None
    warm_unchanged_s: float | None = None
    warm_changed_s: float | None = None
    warm_changed_work_s: float | None = None
    warm_changed_ingest_s: float | None = None
    cold_ingest_s: float | None = None
    ratio: float | None = None
    # `memory-autopsy hook FILE` itself on the store as it is, run twice: the first (its own
    # parse cache empty) records the run, the second replays it (replay.py)
    command_first_s: float | None = None
    command_second_s: float | None = None
    error: str | None = None


def measure_hook(n: int, runner: Runner, seed: int, repeat: int) -> list[HookResult]:
    store = store_for("jsonl", n, seed, runner.cache)[0]
    results = []
    for files in (1, HOOK_SHARDS):
        layout = "one file" if files == 1 else f"{files} files"
        res = HookResult(layout, n, files)
        runs: dict[str, list[DriverRun]] = {"cold": [], "unchanged": [], "changed": []}
        command: dict[str, list[float]] = {"first": [], "second": []}
        try:
            for i in range(repeat):
                folder, changed = _hook_layout(store, files, runner.cache / "hook")
                parse_cache = runner.cache / "hook-parse-cache"
                shutil.rmtree(parse_cache, ignore_errors=True)
                out = runner.cache / "hook-report.json"
                paths = ["memory"]
                progress(f"hook, {n:,} facts as {layout}: cold, warm, one-line change ({i + 1}/{repeat})")
                runs["cold"].append(run_driver(runner, paths, out, parse_cache=parse_cache, cwd=folder))
                runs["unchanged"].append(run_driver(runner, paths, out, parse_cache=parse_cache,
                                                    changed=[changed], cwd=folder))
                for turn in ("first", "second"):
                    command[turn].append(_hook_command(runner, folder, changed, out))
                with (folder / changed).open("a", encoding="utf-8") as handle:
                    handle.write(APPENDED)
                runs["changed"].append(run_driver(runner, paths, out, parse_cache=parse_cache,
                                                  changed=[changed], cwd=folder))
                out.unlink(missing_ok=True)
        except BenchError as exc:
            res.error = str(exc)
        if all(runs.values()):
            res.cold_s = min(r.wall for r in runs["cold"])
            res.warm_unchanged_s = min(r.wall for r in runs["unchanged"])
            res.warm_changed_s = min(r.wall for r in runs["changed"])
            res.warm_changed_work_s = min(r.work_s for r in runs["changed"])
            res.warm_changed_ingest_s = _min_or_none([r.ingest_s for r in runs["changed"]])
            res.cold_ingest_s = _min_or_none([r.ingest_s for r in runs["cold"]])
            res.ratio = res.warm_changed_s / res.cold_s
            res.command_first_s, res.command_second_s = min(command["first"]), min(command["second"])
        results.append(res)
    shutil.rmtree(runner.cache / "hook", ignore_errors=True)
    shutil.rmtree(runner.cache / "hook-parse-cache", ignore_errors=True)
    return results


RACY_S = 2.1  # replay.RACY and a little: a file changed more recently is not recorded by its times


def _hook_command(runner: Runner, folder: Path, changed: str, out: Path) -> float:
    """`python -m memory_autopsy hook CHANGED` in the folder, as pre-commit runs it (text on
    stdout, to a file): its wall time. Started once the store is older than RACY_S."""
    age = time.time() - (folder / changed).stat().st_ctime
    if age < RACY_S:
        time.sleep(RACY_S - age)
    run = runner.run(["-m", "memory_autopsy", "hook", changed], out, timeout=runner.timeout, cwd=folder)
    if run.timed_out or run.code not in (0, 1):
        raise BenchError(f"`hook {changed}` exit {run.code}\n{run.stderr_tail}")
    return run.wall


def _hook_layout(store: Path, files: int, work: Path) -> tuple[Path, str]:
    """A fresh copy of the store under `work/memory/`, as one file or split in `files` files;
    returns the folder to run in and the file the one-line change goes to."""
    shutil.rmtree(work, ignore_errors=True)
    memory = work / "memory"
    memory.mkdir(parents=True)
    if files == 1:
        shutil.copyfile(store, memory / "store.jsonl")
        return work, "memory/store.jsonl"
    lines = store.read_bytes().splitlines(keepends=True)
    per = max(1, -(-len(lines) // files))
    for k in range(files):
        (memory / f"part-{k:03d}.jsonl").write_bytes(b"".join(lines[k * per:(k + 1) * per]) or b"\n")
    return work, f"memory/part-{files // 2:03d}.jsonl"


# --- start-up ---------------------------------------------------------------------------------------

@dataclass
class Startup:
    python_ms: float
    scan_ms: float | None = None
    scan_ratio: float | None = None
    hook_ms: float | None = None
    hook_ratio: float | None = None
    hook_note: str | None = None
    repo_hook_ms: float | None = None  # the same hook run in a repository of REPO_FILES files
    repo_hook_ratio: float | None = None
    # the hook in that repository on a README.md, as pre-commit runs it on a commit of no memory
    # file that its `files` pattern matches (most commits that run it in a repository of code)
    repo_other_ms: float | None = None
    repo_other_ratio: float | None = None
    repo_note: str | None = None
    # the hook there on three.md just edited (the commit case), the grounding layer on and off
    # (the rule file's `grounding`): what checking memory against the repository costs a commit
    grounded_ms: float | None = None
    ungrounded_ms: float | None = None
    grounding_ratio: float | None = None
    # the hook right after three.md changed, as on a commit: its parse-cache entry misses and
    # the markdown reader is imported and run
    changed_ms: float | None = None
    changed_ratio: float | None = None
    changed_note: str | None = None
    # the hook on three.md as it is with no record of an earlier run (the folder of records
    # emptied before each run): the full run the record saves, which writes one
    first_ms: float | None = None
    first_ratio: float | None = None
    # `python -c "import ..."` of the standard modules the hook loads, none of its own: what
    # any hook written on the same modules pays before it reads a byte
    stdlib_ms: float | None = None
    stdlib_ratio: float | None = None
    stdlib_modules: int = 0
    stdlib_note: str | None = None
    error: str | None = None


THREE = "memory/three.md"  # a known memory location: the hook lints it with no rule file
RULE_FILE = "memory-autopsy.toml"


def startup_dir(runner: Runner) -> Path:
    """A folder holding only memory/three.md: the hook may lint its whole working folder."""
    folder = runner.cache / "startup"
    (folder / "memory").mkdir(parents=True, exist_ok=True)
    (folder / THREE).write_text(THREE_FACTS, encoding="utf-8")
    return folder


# A repository the hook runs in: it lists the repository's files for its scope on every commit.
REPO_FILES = 30_000


def repo_dir(runner: Runner) -> tuple[Path | None, str]:
    """A git repository of REPO_FILES source files and memory/three.md, built once per cache
    folder: (its folder, "") or (None, why not)."""
    folder = runner.cache / f"startup-repo-{REPO_FILES}"
    built = runner.cache / f"startup-repo-{REPO_FILES}.built"
    if built.exists():
        return folder, ""
    if shutil.which("git") is None:
        return None, "git is not installed"
    shutil.rmtree(folder, ignore_errors=True)
    for k in range(REPO_FILES):
        source = folder / "src" / f"pkg{k // 100:03d}" / f"mod{k % 100:02d}.py"
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text("VALUE = 1\n", encoding="utf-8")
    (folder / "memory").mkdir()
    (folder / THREE).write_text(THREE_FACTS, encoding="utf-8")
    commit = ["-c", "user.name=bench", "-c", "user.email=bench@localhost", "-c", "commit.gpgsign=false",
              "commit", "-q", "-m", "bench"]
    for args in (["init", "-q"], ["add", "-A"], commit):
        done = subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            return None, f"git {args[0]}: {done.stderr.strip()[:200]}"
    built.write_text("", encoding="utf-8")
    return folder, ""


def measure_startup(runner: Runner, scan_ok: bool) -> Startup:
    folder = startup_dir(runner)
    progress(f"start-up: best of {STARTUP_RUNS}")
    result = Startup(_best(runner, ["-c", "pass"], folder))
    if not scan_ok:
        return result
    try:
        scan = ["-m", "memory_autopsy", "scan", THREE]
        result.scan_ms = _best(runner, scan, folder, ok=(0, 1))
        result.scan_ratio = result.scan_ms / result.python_ms
    except BenchError as exc:
        result.error = str(exc)
    hook = ["-m", "memory_autopsy", "hook", THREE]
    probe = runner.run(hook, timeout=60, cwd=folder)
    if probe.code not in (0, 1):
        result.hook_note = "no hook subcommand" if probe.code == 2 else f"exit {probe.code}"
        return result
    try:  # three.md as it is, edited before each run (the commit case), and as it is with no
        # record of a run to replay, taking turns
        result.hook_ms, result.changed_ms, result.first_ms = _bests(runner, hook, folder, (0, 1), [
            lambda _: (folder / THREE).write_text(THREE_FACTS, encoding="utf-8"),
            lambda k: _edit_three(folder, k),
            lambda _: _forget_runs(folder),
        ])
        result.hook_ratio = result.hook_ms / result.python_ms
        result.changed_ratio = result.changed_ms / result.python_ms
        result.first_ratio = result.first_ms / result.python_ms
    except BenchError as exc:
        result.hook_note = result.changed_note = str(exc).splitlines()[0]
    finally:
        (folder / THREE).write_text(THREE_FACTS, encoding="utf-8")
    try:
        modules = hook_modules(runner, folder)
        result.stdlib_modules = len(modules)
        result.stdlib_ms = _best(runner, ["-c", "import " + ", ".join(modules)], folder)
        result.stdlib_ratio = result.stdlib_ms / result.python_ms
    except BenchError as exc:
        result.stdlib_note = str(exc).splitlines()[0]
    repo, result.repo_note = repo_dir(runner)
    if repo is not None:
        try:
            result.repo_hook_ms = _best(runner, hook, repo, ok=(0, 1))
            result.repo_hook_ratio = result.repo_hook_ms / result.python_ms
            (repo / "README.md").write_text("# A project\n", encoding="utf-8")
            result.repo_other_ms = _best(runner, [*hook[:-1], "README.md"], repo)
            result.repo_other_ratio = result.repo_other_ms / result.python_ms
            result.grounded_ms, result.ungrounded_ms = _bests(runner, hook, repo, (0, 1), [
                lambda k: _edit_three(repo, k, grounding=True), lambda k: _edit_three(repo, k, grounding=False)])
            result.grounding_ratio = result.grounded_ms / result.ungrounded_ms
        except BenchError as exc:
            result.repo_note = str(exc).splitlines()[0]
        finally:
            (repo / THREE).write_text(THREE_FACTS, encoding="utf-8")
            (repo / RULE_FILE).unlink(missing_ok=True)
    return result


# Runs the hook in process and lists the modules it loaded that are not the package's own.
_HOOK_MODULES = f"""
import os, sys
before = set(sys.modules)
from memory_autopsy.cli import main
null = os.open(os.devnull, os.O_WRONLY)
saved = os.dup(1)
os.dup2(null, 1)
main(["hook", "{THREE}"])
sys.stdout.flush()
os.dup2(saved, 1)
loaded = set(sys.modules) - before
print(" ".join(sorted(m for m in loaded if m.split(".")[0] != "memory_autopsy")))
"""


def hook_modules(runner: Runner, folder: Path) -> list[str]:
    """The standard (and third-party) modules a hook run on three.md imports."""
    listing = runner.cache / "hook-modules.txt"
    run = runner.run(["-c", _HOOK_MODULES], stdout=listing, timeout=60, cwd=folder)
    if run.code != 0:
        raise BenchError(f"listing the hook's modules: exit {run.code}\n{run.stderr_tail}")
    modules = listing.read_text(encoding="utf-8").split()
    if not modules:
        raise BenchError("listing the hook's modules: none listed")
    return modules


def _edit_three(folder: Path, k: int, grounding: bool | None = None) -> None:
    """three.md with one more fact, never written before (run k of this process, at this
    time): the hook cannot find it in the parse cache of an earlier run or bench. `grounding`:
    the rule file beside it turns the grounding layer on or off."""
    stamp = f"{time.time_ns() % 10**12}{k:02d}"
    (folder / THREE).write_text(THREE_FACTS + f"- cache-tier: evicts after {stamp} seconds\n", encoding="utf-8")
    if grounding is not None:
        (folder / RULE_FILE).write_text(f"grounding = {str(grounding).lower()}\n", encoding="utf-8")


def _forget_runs(folder: Path) -> None:
    """three.md as it is, and no record of an earlier hook run (`.memory-autopsy-cache/runs/`):
    the hook runs in full, with the parse cache warm, and writes a record."""
    (folder / THREE).write_text(THREE_FACTS, encoding="utf-8")
    shutil.rmtree(folder / ".memory-autopsy-cache" / "runs", ignore_errors=True)


def _best(runner: Runner, args: list[str], cwd: Path, ok: tuple[int, ...] = (0,)) -> float:
    """Best wall time in ms over STARTUP_RUNS runs, after one warm-up run."""
    return _bests(runner, args, cwd, ok, [None])[0]


def _bests(runner: Runner, args: list[str], cwd: Path, ok: tuple[int, ...],
           befores: list[Callable[[int], None] | None]) -> list[float]:
    """The best wall time in ms of each variant of one command, the variants taking turns
    (so a slower minute of the machine falls on all of them): `before(i)` runs ahead of the
    variant's run i, untimed; STARTUP_RUNS runs each after one warm-up round."""
    times: list[list[float]] = [[] for _ in befores]
    for i in range(STARTUP_RUNS + 1):
        for before, kept in zip(befores, times):
            if before is not None:
                before(i)
            run = runner.run(args, timeout=60, cwd=cwd)
            if run.timed_out or run.code not in ok:
                raise BenchError(f"`python {' '.join(args[:4])}` exit {run.code}\n{run.stderr_tail}")
            if i:
                kept.append(run.wall * 1000)
    return [min(kept) for kept in times]


def preflight(runner: Runner) -> str | None:
    """None when the package can scan; otherwise why the scan cannot be measured."""
    if not (SRC / "memory_autopsy" / "__main__.py").is_file():
        return f"no package at {SRC / 'memory_autopsy'} (with a __main__.py)"
    folder = startup_dir(runner)
    out = runner.cache / "preflight.json"
    scan = ["-m", "memory_autopsy", "scan", THREE, "--json"]
    run = runner.run(scan, out, timeout=120, cwd=folder)
    try:
        if run.timed_out:
            return "`scan three.md --json` timed out"
        if run.code not in (0, 1) or _read_report(out) is None:
            tail = f"\n{run.stderr_tail}" if run.stderr_tail else ""
            return f"`scan three.md --json` exit {run.code}, no JSON report{tail}"
        run_driver(runner, [THREE], out, parse_cache=runner.cache / "preflight-cache", cwd=folder)
        return None
    except BenchError as exc:
        return f"the lint driver (api.lint with a parse cache) failed: {exc}"
    finally:
        out.unlink(missing_ok=True)
        shutil.rmtree(runner.cache / "preflight-cache", ignore_errors=True)


# --- targets ----------------------------------------------------------------------------------------

@dataclass
class Target:
    name: str
    status: str  # met, NOT met, n/a
    value: str
    limit: str


def _target(name: str, selected: bool, value: float | None, limit: float, unit: str = "x",
            *, upper_bound: bool = False, why: str = "not measured") -> Target:
    shown_limit = f"{limit:g}{unit}"
    if not selected:
        return Target(name, "n/a", "not selected", shown_limit)
    if value is None:
        return Target(name, "NOT met", why, shown_limit)
    status = "met" if value <= limit else ("n/a" if upper_bound else "NOT met")
    shown = f"{value:.2f}{unit}" if unit == "x" else f"{value:.0f}{unit}"
    if upper_bound:
        shown = f"< {shown}"
        if status == "n/a":
            shown += " (peer timed out too soon to tell)"
    return Target(name, status, shown, shown_limit)


def check_targets(res: dict[tuple[str, int], ShapeResult], wanted: list[int], startup: Startup | None,
                  hook: list[HookResult], peer: Peer | None, doubling: list[Any]) -> list[Target]:
    def get(shape: str, n: int) -> ShapeResult | None:
        return res.get((shape, n))

    jl100, jl1m = get("jsonl", 100_000), get("jsonl", 1_000_000)
    js100, md100 = get("json", 100_000), get("md", 100_000)
    shapes = {shape for shape, _ in res}
    has100, has1m = 100_000 in wanted, 1_000_000 in wanted
    jsonl100, jsonl1m = has100 and "jsonl" in shapes, has1m and "jsonl" in shapes
    lin = jl1m.scan_s / jl100.scan_s if jl1m and jl100 and jl1m.scan_s and jl100.scan_s else None
    targets = [
        _target("100k JSONL scan within 6x the json.loads floor", jsonl100,
                jl100.ratio("scan_s") if jl100 else None, FLOOR_RATIO_MAX),
        _target("JSONL scan 1M / 100k within 11x", jsonl1m and jsonl100, lin, LINEARITY_MAX),
        _target("peak RSS of the 1M JSONL scan within 1.5 GiB", jsonl1m,
                jl1m.scan_mib if jl1m else None, PEAK_MIB_MAX, " MiB"),
    ]
    peer_name = f"100k JSON document within 0.5x {PEER}'s time"
    if "json" not in shapes:
        targets.append(Target(peer_name, "n/a", "not selected", f"{PEER_RATIO_MAX:g}x"))
    elif peer is None or (has100 and peer.script is None):
        why = "not run (--no-peer)" if peer is None else f"peer not installable: {peer.note}"
        targets.append(Target(peer_name, "n/a", why, f"{PEER_RATIO_MAX:g}x"))
    else:
        value = js100.ratio("scan_s", "peer_s") if js100 else None
        targets.append(_target(peer_name, has100, value, PEER_RATIO_MAX,
                               upper_bound=bool(js100 and js100.peer_timed_out),
                               why=(js100.peer_note or "not measured") if js100 else "not measured"))
    md_ratio = md100.scan_s / jl100.scan_s if md100 and jl100 and md100.scan_s and jl100.scan_s else None
    targets.append(_target("100k markdown, static embedding model within 3x the heuristic scan",
                           has100 and SEMANTIC_SHAPE in shapes,
                           md100.ratio("semantic_s", "scan_s") if md100 else None, SEMANTIC_RATIO_MAX,
                           why=(md100.semantic_note or "not measured") if md100 else "not measured"))
    targets.append(_target("100k markdown bullets within 1.5x the same facts as JSONL",
                           has100 and {"md", "jsonl"} <= shapes,
                           md_ratio, MARKDOWN_RATIO_MAX))
    targets.append(_target("hook on a three-fact file within 3x `python -c pass`", startup is not None,
                           startup.hook_ratio if startup else None, HOOK_STARTUP_MAX,
                           why=(startup.hook_note or "not measured") if startup else "not measured"))
    # The row above is the file as it is, which a run with the same inputs replays; a commit
    # that changed the file runs in full: held to the same limit, so that a miss stays visible.
    targets.append(_target("  the same, three.md just edited (the commit case: a full run)", startup is not None,
                           startup.changed_ratio if startup else None, HOOK_STARTUP_MAX,
                           why=(startup.changed_note or "not measured") if startup else "not measured"))
    targets.append(_target(f"  the same in a {REPO_FILES // 1000}k-file repository: grounding on within 1.2x off",
                           startup is not None, startup.grounding_ratio if startup else None, GROUNDING_MAX,
                           why=(startup.repo_note or "not measured") if startup else "not measured"))
    for h in hook or [HookResult("one file", HOOK_FACTS, 1), HookResult(f"{HOOK_SHARDS} files", HOOK_FACTS,
                                                                         HOOK_SHARDS)]:
        name = f"hook, one-line change, 100k store as {h.layout}, warm cache, within 0.3x cold"
        if hook and h.facts != HOOK_FACTS:
            targets.append(Target(name, "n/a", f"measured at {h.facts:,} facts", f"{HOOK_WARM_MAX:g}x"))
        else:
            targets.append(_target(name, bool(hook), h.ratio, HOOK_WARM_MAX, why=h.error or "not measured"))
    for d in doubling:
        value = "failed" if d.ratio is None else f"{d.ratio:.2f}x (ingest {fmt(d.ingest_ratio, '.2f')}x)"
        targets.append(Target(f"doubling: {d.label}", d.status, value, "2.3x"))
    return targets


# --- output -------------------------------------------------------------------------------------------

def print_report(meta: dict[str, Any], shapes: list[ShapeResult], peer: Peer | None,
                 hook: list[HookResult], startup: Startup | None, doubling: list[Any],
                 targets: list[Target], scan_problem: str | None) -> None:
    print(f"memory-autopsy benchmark — Python {meta['python']} on {meta['platform']}, "
          f"{meta['cpus']} CPUs, load {meta['load_before']} before / {meta['load_after']} after, "
          f"seed {meta['seed']}, best of {meta['repeat']}")
    print(f"{meta['date']} ({meta['minutes']} min), commit {meta['commit']}: {meta['command']}")
    if meta["load_before"] is not None and meta["cpus"] and max(
            meta["load_before"], meta["load_after"] or 0) > 0.5 * meta["cpus"]:
        print(f"warning: load average above {0.5 * meta['cpus']:g} on {meta['cpus']} CPUs; "
              "timings are noisy (try --repeat 5 on an idle machine)")
    if scan_problem:
        print(f"\nscan NOT measured: {indent(scan_problem)}")
    print("\nseconds (wall, spawn to reap; best of the runs). floor: json alone (markdown: the JSONL "
          "floor of\nthe same facts); scan: `scan --json` (scan CPU: that run's processor time, in "
          "every process it ran);\ncold/warm: api.lint with an empty / a filled parse cache (one process); "
          f"peer: `{PEER} check --json`\n({PEER} {PEER_VERSION}, JSON document only)")
    header = (f"{'shape':<9} {'facts':>9} {'MiB':>6} {'floor':>6} {'scan':>7} {'scan CPU':>8} {'cold':>7} "
              f"{'warm':>7} {'peer':>9} {'peak MiB':>8} {'findings':>9}")
    print(header)
    print("-" * len(header))
    for s in shapes:
        findings = "n/a" if s.findings is None else f"{s.findings:,}"
        print(f"{SHAPE_NAMES[s.shape]:<9} {s.facts:>9,} {s.store_mib:>6.1f} {fmt(s.floor_s, '.2f'):>6} "
              f"{fmt(s.scan_s, '.2f'):>7} {fmt(s.scan_cpu_s, '.2f'):>8} {fmt(s.cold_s, '.2f'):>7} "
              f"{fmt(s.warm_s, '.2f'):>7} {_peer_cell(s):>9} {fmt(s.scan_mib, '.0f'):>8} {findings:>9}")
    print("\nratios")
    header = (f"{'shape':<9} {'facts':>9} {'scan/floor':>10} {'cold/floor':>10} {'warm/floor':>10} "
              f"{'warm/cold':>9} {'scan/peer':>10} {'warm/peer':>10} {'md/JSONL':>8}")
    print(header)
    print("-" * len(header))
    by_key = {(s.shape, s.facts): s for s in shapes}
    for s in shapes:
        jl = by_key.get(("jsonl", s.facts))
        md_ratio = s.scan_s / jl.scan_s if s.shape == "md" and jl and s.scan_s and jl.scan_s else None
        print(f"{SHAPE_NAMES[s.shape]:<9} {s.facts:>9,} {_x(s.ratio('scan_s')):>10} "
              f"{_x(s.ratio('cold_s')):>10} {_x(s.ratio('warm_s')):>10} {_x(s.ratio('warm_s', 'cold_s')):>9} "
              f"{_peer_ratio(s, 'scan_s'):>10} {_peer_ratio(s, 'warm_s'):>10} {_x(md_ratio):>8}")
    for s in shapes:
        if s.scan_facts is not None and s.scan_facts != s.facts:
            print(f"  note: the {SHAPE_NAMES[s.shape]} store of {s.facts:,} facts was read as "
                  f"{s.scan_facts:,} facts")
        if s.peer_note:
            print(f"  peer at {s.facts:,}: {s.peer_note}")
        if s.error:
            print(f"  error, {SHAPE_NAMES[s.shape]} at {s.facts:,}: {indent(s.error)}")
    lin = meta.get("linearity")
    if lin and (lin["scan"] is not None or lin["floor"] is not None):
        print(f"\nlinearity time(1M)/time(100k), JSONL: scan {fmt(lin['scan'], '.2f')}, "
              f"floor {fmt(lin['floor'], '.2f')}")
    if peer is not None:
        _print_peer(peer)
    if hook:
        _print_hook(hook)
    if startup:
        _print_startup(startup)
    if doubling:
        from doubling import print_doubling

        print_doubling(doubling, meta["doubling_repeat"])
    for s in shapes:
        if s.shape == SEMANTIC_SHAPE and (s.semantic_s is not None or s.semantic_note):
            ratio = s.ratio("semantic_s", "scan_s")
            shown = f"{s.semantic_s:.2f} s, {ratio:.2f}x the heuristic scan" if s.semantic_s and ratio else s.semantic_note
            print(f"{s.shape} n={s.facts:,}: with the static embedding model (layer 3, no cache): {shown}")
    print("\ntargets")
    for t in targets:
        print(f"  {t.status:<7}  {t.name:<78} {t.value:>16}  (limit {t.limit})")


def _x(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}x"


def _peer_cell(s: ShapeResult) -> str:
    if s.shape != "json":
        return "-"
    if s.peer_s is None:
        return "n/a"
    return f">{s.peer_s:.0f}" if s.peer_timed_out else f"{s.peer_s:.2f}"


def _peer_ratio(s: ShapeResult, name: str) -> str:
    if s.shape != "json":
        return "-"
    value = s.ratio(name, "peer_s")
    if value is None:
        return "n/a"
    return f"<{value:.3f}x" if s.peer_timed_out else f"{value:.3f}x"


def _print_peer(peer: Peer) -> None:
    if peer.script is None:
        print(f"\npeer: n/a (peer not installable: {peer.note})")
        return
    parts = [f"{n:,} facts {fmt(s, '.2f')} s" for n, s in peer.calibration]
    known = [s for _, s in peer.calibration]
    growth = known[1] / known[0] if len(known) == 2 and known[0] and known[1] else None
    print(f"\npeer scaling ({PEER} {PEER_VERSION}, JSON document, one run each): {', '.join(parts)}"
          f"; 2x facts -> {_x(growth)} time")


def _print_hook(hook: list[HookResult]) -> None:
    print("\nhook after a one-line append to the JSONL store (api.lint focused on the changed file, then "
          "the hook's filter;\nthe whole store is still read as context). seconds, best of the runs")
    print("(and `memory-autopsy hook FILE` itself on the store as it is, twice: the first run records, "
          "the second replays)")
    header = (f"  {'layout':<10} {'facts':>9} {'cold':>7} {'warm, same':>10} {'warm, +1 line':>13} "
              f"{'ingest cold':>11} {'ingest warm':>11} {'warm/cold':>9} {'hook 1st':>8} {'hook 2nd':>8}")
    print(header)
    print("  " + "-" * (len(header) - 2))
    for h in hook:
        print(f"  {h.layout:<10} {h.facts:>9,} {fmt(h.cold_s, '.2f'):>7} {fmt(h.warm_unchanged_s, '.2f'):>10} "
              f"{fmt(h.warm_changed_s, '.2f'):>13} {fmt(h.cold_ingest_s, '.2f'):>11} "
              f"{fmt(h.warm_changed_ingest_s, '.2f'):>11} {_x(h.ratio):>9} {fmt(h.command_first_s, '.2f'):>8} "
              f"{fmt(h.command_second_s, '.2f'):>8}")
        if h.error:
            print(f"    error: {indent(h.error)}")


def _startup_row(label: str, ms: float | None, ratio: float | None, note: str | None = None,
                 what: str = "") -> None:
    """One row of the start-up table: label, best ms, ratio to `python -c pass`, a failure's
    note and what the row measures, each in parentheses."""
    extra = (f"  ({note})" if note else "") + (f"  ({what})" if what else "")
    print(f"  {label:<21}{fmt(ms, '8.1f'):>8}  {fmt(ratio, '6.2f'):>6}{extra}")


def _print_startup(st: Startup) -> None:
    print(f"\nstart-up, best of {STARTUP_RUNS}   {'ms':>8}  {'ratio':>6}")
    _startup_row("python -c pass", st.python_ms, 1.0)
    _startup_row("scan three.md", st.scan_ms, st.scan_ratio)
    _startup_row("hook three.md", st.hook_ms, st.hook_ratio, st.hook_note)
    _startup_row("hook, three.md edited", st.changed_ms, st.changed_ratio, st.changed_note,
                 "a new line before each run: the commit case")
    _startup_row("hook three.md, 1st run", st.first_ms, st.first_ratio, None,
                 "no record of a run to replay: the full run")
    _startup_row(f"hook, {REPO_FILES // 1000}k-file repo", st.repo_hook_ms, st.repo_hook_ratio, st.repo_note)
    _startup_row("  the same, README.md", st.repo_other_ms, st.repo_other_ratio, None,
                 "a commit of no memory file")
    _startup_row("  three.md edited", st.grounded_ms, st.grounding_ratio, None,
                 "ratio: grounding on / off (the rule file's `grounding`), the commit case")
    _startup_row(f"its {st.stdlib_modules} std modules", st.stdlib_ms, st.stdlib_ratio, st.stdlib_note,
                 "`python -c \"import ...\"` of the modules the hook loads that are not its own")
    if st.error:
        print(f"  error: {indent(st.error)}")


# --- main -----------------------------------------------------------------------------------------------

def parse_sizes(text: str) -> list[int]:
    try:
        sizes = [parse_size(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad size list: {text!r}") from None
    if not sizes or any(n <= 0 for n in sizes):
        raise argparse.ArgumentTypeError(f"bad size list: {text!r}")
    return sorted(dict.fromkeys(sizes))


def _shape_list(text: str) -> list[str]:
    names = [s.strip() for s in text.split(",") if s.strip()]
    if not names or any(s not in SHAPES for s in names):
        raise argparse.ArgumentTypeError(f"bad shape list {text!r}; known: {', '.join(SHAPES)}")
    return [s for s in SHAPES if s in names]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description="Benchmark memory-autopsy: speed, memory, cache, peer.")
    p.add_argument("--sizes", type=parse_sizes, help="comma list, e.g. 10k,100k,1m (default 10k,100k)")
    p.add_argument("--quick", action="store_true", help="the default sizes (kept for old scripts)")
    p.add_argument("--shapes", type=_shape_list, default=list(SHAPES),
                   help="comma list of jsonl, json, md (default all three)")
    p.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    p.add_argument("--repeat", type=int, default=None,
                   help="runs per size, best time kept (default 3 up to 100k, 1 above)")
    p.add_argument("--timeout", type=float, default=900.0,
                   help="seconds before a measured child is killed (default 900)")
    p.add_argument("--peer-timeout", type=float, default=120.0,
                   help=f"seconds before {PEER} is killed; its time is then a lower bound (default 120)")
    p.add_argument("--no-peer", action="store_true", help=f"do not run {PEER}")
    p.add_argument("--no-peer-install", action="store_true",
                   help=f"use {PEER} only if its venv is already in the cache folder")
    p.add_argument("--hook-facts", type=parse_size, default=None,
                   help="size of the store for the warm-cache hook (default 100k when 100k is selected)")
    p.add_argument("--no-hook", action="store_true", help="skip the warm-cache hook measurement")
    p.add_argument("--doubling", action="store_true", help="also run the doubling test (doubling.py)")
    p.add_argument("--doubling-scale", type=float, default=1.0, help="multiply the doubling test's N")
    p.add_argument("--mem-limit-gib", type=float, default=8.0,
                   help="address-space limit for each child, 0 for none (default 8)")
    p.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE,
                   help="stores, parse caches and the peer venv (default: TMPDIR/memory-autopsy-bench)")
    p.add_argument("--no-startup", action="store_true", help="skip the start-up measurement")
    p.add_argument("--json", action="store_true", help="print the numbers as JSON")
    p.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    wanted = args.sizes or list(DEFAULT_SIZES)
    cache = args.cache_dir.resolve()
    cache.mkdir(parents=True, exist_ok=True)
    runner = Runner(cache, args.timeout, args.mem_limit_gib)
    try:
        return _bench(args, wanted, runner)
    except BenchError as exc:
        print(f"benchmark failed: {exc}", file=sys.stderr)
        return 1 if args.check else 0
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _repeat(args: argparse.Namespace, n: int) -> int:
    return max(1, args.repeat or (3 if n <= 100_000 else 1))


def _bench(args: argparse.Namespace, wanted: list[int], runner: Runner) -> int:
    load_before = load_average()
    started = time.time()
    scan_problem = preflight(runner)
    if scan_problem:
        progress(f"scan cannot be measured: {scan_problem.splitlines()[0]}")
    peer = None if args.no_peer else setup_peer(runner, args.seed, args.peer_timeout, not args.no_peer_install)
    results: dict[tuple[str, int], ShapeResult] = {}
    for n in wanted:
        for shape, res in measure_size(args.shapes, n, runner, args.seed, _repeat(args, n),
                                       scan_problem is None, peer).items():
            results[(shape, n)] = res
    hook_n = args.hook_facts or (HOOK_FACTS if HOOK_FACTS in wanted else None)
    hook = [] if args.no_hook or hook_n is None or scan_problem else \
        measure_hook(hook_n, runner, args.seed, _repeat(args, hook_n))
    startup = None if args.no_startup else measure_startup(runner, scan_problem is None)
    doubling: list[Any] = []
    doubling_repeat = max(1, args.repeat or 3)
    if args.doubling and not scan_problem:
        from doubling import DOUBLING, run_doubling

        doubling = run_doubling(runner, args.seed, doubling_repeat, args.doubling_scale, list(DOUBLING))
    targets = check_targets(results, wanted, startup, hook, peer, doubling)
    meta = _meta(args, results, load_before, started, doubling_repeat)
    shapes = [results[(shape, n)] for n in wanted for shape in args.shapes]
    if args.json:
        doc = {**meta, "scan_problem": scan_problem, "shapes": [asdict(s) for s in shapes],
               "peer": asdict(peer) if peer else None, "hook": [asdict(h) for h in hook],
               "startup": asdict(startup) if startup else None,
               "doubling": [asdict(d) for d in doubling], "targets": [asdict(t) for t in targets]}
        print(json.dumps(doc, indent=2))
    else:
        print_report(meta, shapes, peer, hook, startup, doubling, targets, scan_problem)
    missed = any(t.status == "NOT met" for t in targets)
    return 1 if args.check and missed else 0


def _meta(args: argparse.Namespace, results: dict[tuple[str, int], ShapeResult], load_before: float | None,
          started: float, doubling_repeat: int) -> dict[str, Any]:
    a, b = results.get(("jsonl", 100_000)), results.get(("jsonl", 1_000_000))

    def lin(name: str) -> float | None:
        small, big = (getattr(a, name), getattr(b, name)) if a and b else (None, None)
        return big / small if small and big else None

    return {
        "tool": "memory-autopsy bench",
        "date": time.strftime("%Y-%m-%d %H:%M", time.localtime(started)),
        "minutes": round((time.time() - started) / 60, 1),
        "command": " ".join(["python bench/run_bench.py", *sys.argv[1:]]),
        "commit": _commit(),
        "python": platform.python_version(),
        "platform": f"{platform.system()} {platform.machine()}",
        "cpus": os.cpu_count(),
        "load_before": load_before,
        "load_after": load_average(),
        "seed": args.seed,
        "repeat": "/".join(str(r) for r in sorted({_repeat(args, n) for _, n in results})),
        "doubling_repeat": doubling_repeat,
        "generator": generator_version(),
        "linearity": {"scan": lin("scan_s"), "floor": lin("floor_s")},
    }


def _commit() -> str:
    """HEAD of the repository and whether src/ had uncommitted changes (read-only git calls)."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=SRC.parent, capture_output=True,
                              text=True, timeout=30).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--", "src"], cwd=SRC.parent,
                               capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "unknown"
    return f"{head or 'unknown'}{' + uncommitted changes in src/' if dirty else ''}"


if __name__ == "__main__":
    sys.exit(main())
