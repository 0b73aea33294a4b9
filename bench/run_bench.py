"""Speed and memory benchmark for `memory-autopsy scan` (stdlib only, Python >= 3.10).

For each size (10k, 100k, 1M facts by default) it generates a canonical JSONL store (cached in
a temp folder by size, seed and generator version), then measures in the same run:

- floor: a child `python -c` that reads the store and `json.loads` every line;
- scan:  a child `python -m memory_autopsy scan STORE --json` (stdout to a file);
- start-up: `python -c pass` vs `scan three.md` vs `hook three.md`, best of 7 each.

Every child is started with Popen and reaped with `os.wait4`, which returns that child's own
rusage, so its peak RSS (`ru_maxrss`) is exact per child. Wall time is perf_counter around
spawn + wait. The children get PYTHONPATH=<repo>/src (so a clean clone works without
installing) and PYTHONPYCACHEPREFIX=<cache>/pycache (bytecode is cached, outside the repo).

    python bench/run_bench.py --quick          # 10k and 100k
    python bench/run_bench.py                  # 10k, 100k and 1M
    python bench/run_bench.py --sizes 1m --json --check

Exit status is 0 unless --check is given; then 1 when a target is missed or could not be
measured (a size left out by --sizes/--quick is "n/a", not a failure).
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import os
import platform
import re
import resource
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
SRC = ROOT / "src"
sys.path.insert(0, str(BENCH))

from generate import generate, parse_size  # noqa: E402 (bench/ is not a package)

DEFAULT_SIZES = (10_000, 100_000, 1_000_000)
QUICK_SIZES = (10_000, 100_000)
STARTUP_RUNS = 7
MiB = 2**20

# The targets (SPEC: a linter must be cheap enough for pre-commit and CI).
FLOOR_RATIO_MAX = 8.0  # scan(100k) / floor(100k)
LINEARITY_MAX = 12.0  # scan(1M) / scan(100k)
PEAK_MIB_MAX = 2048.0  # scan peak RSS at 1M
STARTUP_RATIO_MAX = 4.0  # scan(three.md) / `python -c pass`

FLOOR_CODE = """\
import json, sys
loads = json.loads
with open(sys.argv[1], encoding="utf-8") as handle:
    for line in handle:
        if line.strip():
            loads(line)
"""

THREE_FACTS = """\
billing-store: tool = "PostgreSQL 14" -- 2026-01-05 (source: infra-doc)
cache-tier: tool = "redis 7" -- 2026-03-01 (source: infra-doc)
- billing-store: uses PostgreSQL 14 for the billing store (2026-01-05)
"""


class BenchError(Exception):
    """A measurement that could not be taken; the message says why."""


# --- running one child ------------------------------------------------------------------------

@dataclass
class Run:
    wall: float
    peak_mib: float
    code: int
    timed_out: bool
    stderr_tail: str


@dataclass
class Runner:
    cache: Path
    timeout: float
    mem_limit_gib: float
    env: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(
            [str(SRC)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
        )
        env["PYTHONPYCACHEPREFIX"] = str(self.cache / "pycache")
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        self.env = env

    def run(self, args: list[str], stdout: Path | None = None, timeout: float | None = None,
            cwd: Path | None = None) -> Run:
        """Run `python ARGS` (in the cache folder by default): wall time, the child's peak RSS."""
        err_path = self.cache / "stderr.txt"
        out_target = stdout if stdout is not None else Path(os.devnull)
        with out_target.open("wb") as out, err_path.open("wb") as err:
            start = time.perf_counter()
            proc = subprocess.Popen(
                [sys.executable, *args], stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                cwd=cwd or self.cache, env=self.env,
            )
            self._limit_memory(proc.pid)
            killed = threading.Event()

            def kill() -> None:
                killed.set()
                proc.kill()

            timer = threading.Timer(timeout or self.timeout, kill)
            timer.start()
            try:
                _, status, usage = os.wait4(proc.pid, 0)
            except BaseException:
                proc.kill()
                proc.wait()
                raise
            finally:
                timer.cancel()
            wall = time.perf_counter() - start
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        return Run(wall, _maxrss_mib(usage.ru_maxrss), code, killed.is_set(), _tail(err_path))

    def _limit_memory(self, pid: int) -> None:
        """Cap the child's address space (Linux `prlimit`; elsewhere no cap).

        Set from the parent just after exec rather than in a preexec_fn, which is unsafe
        with the timer threads; the interpreter has barely started by then.
        """
        if self.mem_limit_gib <= 0 or not hasattr(resource, "prlimit"):
            return
        limit = int(self.mem_limit_gib * 2**30)
        try:
            resource.prlimit(pid, resource.RLIMIT_AS, (limit, limit))
        except (OSError, ValueError):
            pass  # the child already exited, or the limit is not allowed here


def _maxrss_mib(maxrss: int) -> float:
    # Linux reports KiB, macOS bytes.
    return maxrss / MiB if sys.platform == "darwin" else maxrss / 1024


def _tail(path: Path, lines: int = 6) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.strip().splitlines()[-lines:])


# --- the store --------------------------------------------------------------------------------

@functools.cache
def generator_version() -> str:
    return hashlib.sha256((BENCH / "generate.py").read_bytes()).hexdigest()[:8]


def store_for(n: int, seed: int, cache: Path) -> tuple[Path, float, bool]:
    """The cached store for (n, seed, generator version): path, seconds to make it, cached?"""
    version = generator_version()
    path = cache / f"store-n{n}-seed{seed}-g{version}.jsonl"
    if path.exists():
        return path, 0.0, True
    for stale in cache.glob(f"store-n{n}-seed{seed}-g*.jsonl"):
        stale.unlink()  # an older generator's output
    _progress(f"generating {n:,} facts -> {path}")
    start = time.perf_counter()
    partial = path.with_suffix(".partial")
    generate(n, partial, seed=seed)
    os.replace(partial, path)
    return path, time.perf_counter() - start, False


# --- measurements -----------------------------------------------------------------------------

@dataclass
class SizeResult:
    facts: int
    store_mib: float = 0.0
    generate_s: float = 0.0
    cached: bool = False
    floor_s: float | None = None
    floor_mib: float | None = None
    scan_s: float | None = None
    scan_mib: float | None = None
    ratio: float | None = None
    scan_facts: int | None = None
    findings: int | None = None
    counts: dict[str, int] | None = None
    error: str | None = None


def measure_size(n: int, runner: Runner, seed: int, repeat: int, scan_ok: bool) -> SizeResult:
    store, gen_s, cached = store_for(n, seed, runner.cache)
    res = SizeResult(n, store.stat().st_size / MiB, round(gen_s, 2), cached)
    floors: list[Run] = []
    scans: list[Run] = []
    out = runner.cache / f"scan-n{n}.json"
    for i in range(repeat):
        _progress(f"{n:,} facts: floor run {i + 1}/{repeat}")
        floors.append(_checked(runner.run(["-c", FLOOR_CODE, store.name]), "floor"))
        if not scan_ok or res.error:
            continue
        _progress(f"{n:,} facts: scan run {i + 1}/{repeat}")
        try:
            run = runner.run(["-m", "memory_autopsy", "scan", store.name, "--json"], out)
            scans.append(_check_scan(run, out, res))
        except BenchError as exc:
            res.error = str(exc)
    res.floor_s = min(r.wall for r in floors)
    res.floor_mib = max(r.peak_mib for r in floors)
    if scans:
        res.scan_s = min(r.wall for r in scans)
        res.scan_mib = max(r.peak_mib for r in scans)
        res.ratio = res.scan_s / res.floor_s
    out.unlink(missing_ok=True)
    return res


def _checked(run: Run, what: str) -> Run:
    if run.timed_out:
        raise BenchError(f"{what}: timed out")
    if run.code != 0:
        raise BenchError(f"{what}: exit {run.code}\n{run.stderr_tail}")
    return run


def _check_scan(run: Run, out: Path, res: SizeResult) -> Run:
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


@dataclass
class Startup:
    python_ms: float
    scan_ms: float | None = None
    scan_ratio: float | None = None
    hook_ms: float | None = None
    hook_ratio: float | None = None
    hook_note: str | None = None
    error: str | None = None


def startup_dir(runner: Runner) -> Path:
    """A folder holding only three.md: the hook may lint its whole working folder."""
    folder = runner.cache / "startup"
    folder.mkdir(exist_ok=True)
    (folder / "three.md").write_text(THREE_FACTS, encoding="utf-8")
    return folder


def measure_startup(runner: Runner, scan_ok: bool) -> Startup:
    folder = startup_dir(runner)
    _progress(f"start-up: best of {STARTUP_RUNS}")
    result = Startup(_best(runner, ["-c", "pass"], folder))
    if not scan_ok:
        return result
    try:
        scan = ["-m", "memory_autopsy", "scan", "three.md"]
        result.scan_ms = _best(runner, scan, folder, ok=(0, 1))
        result.scan_ratio = result.scan_ms / result.python_ms
    except BenchError as exc:
        result.error = str(exc)
    hook = ["-m", "memory_autopsy", "hook", "three.md"]
    probe = runner.run(hook, timeout=60, cwd=folder)
    if probe.code not in (0, 1):
        result.hook_note = "no hook subcommand yet" if probe.code == 2 else f"exit {probe.code}"
        return result
    try:
        result.hook_ms = _best(runner, hook, folder, ok=(0, 1))
        result.hook_ratio = result.hook_ms / result.python_ms
    except BenchError as exc:
        result.hook_note = str(exc).splitlines()[0]
    return result


def _best(runner: Runner, args: list[str], cwd: Path, ok: tuple[int, ...] = (0,)) -> float:
    """Best wall time in ms over STARTUP_RUNS runs, after one warm-up run."""
    times = []
    for i in range(STARTUP_RUNS + 1):
        run = runner.run(args, timeout=60, cwd=cwd)
        if run.timed_out or run.code not in ok:
            raise BenchError(f"`python {' '.join(args[:4])}` exit {run.code}\n{run.stderr_tail}")
        if i:
            times.append(run.wall * 1000)
    return min(times)


def preflight(runner: Runner) -> str | None:
    """None when the package can scan; otherwise why the scan cannot be measured."""
    if not (SRC / "memory_autopsy" / "__main__.py").is_file():
        return f"no package at {SRC / 'memory_autopsy'} (with a __main__.py)"
    folder = startup_dir(runner)
    out = runner.cache / "preflight.json"
    scan = ["-m", "memory_autopsy", "scan", "three.md", "--json"]
    run = runner.run(scan, out, timeout=120, cwd=folder)
    try:
        if run.timed_out:
            return "`scan three.md --json` timed out"
        if run.code not in (0, 1) or _read_report(out) is None:
            tail = f"\n{run.stderr_tail}" if run.stderr_tail else ""
            return f"`scan three.md --json` exit {run.code}, no JSON report{tail}"
        return None
    finally:
        out.unlink(missing_ok=True)


# --- targets and output -----------------------------------------------------------------------

@dataclass
class Target:
    name: str
    status: str  # PASS, FAIL, n/a
    value: str
    limit: str


def check_targets(sizes: dict[int, SizeResult], startup: Startup | None,
                  wanted: list[int]) -> list[Target]:
    r100k, r1m = sizes.get(100_000), sizes.get(1_000_000)
    targets = [
        _target("100k scan within 8x the floor", 100_000 in wanted,
                r100k.ratio if r100k else None, FLOOR_RATIO_MAX, "x"),
        _target("1M scan within 12x the 100k scan", 1_000_000 in wanted and 100_000 in wanted,
                _linearity(sizes), LINEARITY_MAX, "x"),
        _target("peak memory at most 2 GiB at 1M", 1_000_000 in wanted,
                r1m.scan_mib if r1m else None, PEAK_MIB_MAX, " MiB"),
        _target("3-fact scan within 4x `python -c pass`", startup is not None,
                startup.scan_ratio if startup else None, STARTUP_RATIO_MAX, "x"),
    ]
    return targets


def _target(name: str, selected: bool, value: float | None, limit: float, unit: str) -> Target:
    shown_limit = f"{limit:g}{unit}"
    if not selected:
        return Target(name, "n/a", "not selected", shown_limit)
    if value is None:
        return Target(name, "FAIL", "not measured", shown_limit)
    status = "PASS" if value <= limit else "FAIL"
    return Target(name, status, f"{value:.2f}{unit}" if unit == "x" else f"{value:.0f}{unit}",
                  shown_limit)


def _linearity(sizes: dict[int, SizeResult], field_name: str = "scan_s") -> float | None:
    a, b = sizes.get(100_000), sizes.get(1_000_000)
    if not a or not b:
        return None
    small, big = getattr(a, field_name), getattr(b, field_name)
    return big / small if small and big else None


def _fmt(value: float | None, spec: str) -> str:
    return "n/a" if value is None else format(value, spec)


def print_report(meta: dict[str, Any], sizes: list[SizeResult], startup: Startup | None,
                 targets: list[Target], scan_problem: str | None) -> None:
    print(f"memory-autopsy benchmark — Python {meta['python']} on {meta['platform']}, "
          f"{meta['cpus']} CPUs, load {meta['load']}, seed {meta['seed']}, "
          f"best of {meta['repeat']}")
    if meta["load"] is not None and meta["cpus"] and meta["load"] > 0.5 * meta["cpus"]:
        print(f"warning: load average {meta['load']} on {meta['cpus']} CPUs; "
              "timings are noisy (try --repeat 5 on an idle machine)")
    if scan_problem:
        print(f"\nscan NOT measured: {_indent(scan_problem)}")
    print()
    header = f"{'facts':>10}  {'floor s':>8}  {'scan s':>8}  {'scan/floor':>10}  " \
             f"{'peak MiB':>8}  {'findings':>9}"
    print(header)
    print("-" * len(header))
    for s in sizes:
        ratio = "n/a" if s.ratio is None else f"{s.ratio:.2f}x"
        findings = "n/a" if s.findings is None else f"{s.findings:,}"
        print(f"{s.facts:>10,}  {_fmt(s.floor_s, '.2f'):>8}  {_fmt(s.scan_s, '.2f'):>8}  "
              f"{ratio:>10}  {_fmt(s.scan_mib, '.0f'):>8}  {findings:>9}")
    for s in sizes:
        if s.scan_facts is not None and s.scan_facts != s.facts:
            print(f"  note: the {s.facts:,} store was reported as {s.scan_facts:,} facts")
        if s.error:
            print(f"  error at {s.facts:,}: {_indent(s.error)}")
    lin, lin_floor = meta.get("linearity"), meta.get("linearity_floor")
    if lin is not None or lin_floor is not None:
        print(f"\nlinearity time(1M)/time(100k): scan {_fmt(lin, '.2f')}, "
              f"floor {_fmt(lin_floor, '.2f')}")
    if startup:
        _print_startup(startup)
    print("\ntargets")
    for t in targets:
        print(f"  {t.status:<4}  {t.name:<40} {t.value:>14}  (limit {t.limit})")


def _print_startup(st: Startup) -> None:
    print(f"\nstart-up, best of {STARTUP_RUNS}   {'ms':>8}  {'ratio':>6}")
    print(f"  python -c pass       {st.python_ms:>8.1f}  {1.0:>6.2f}")
    print(f"  scan three.md        {_fmt(st.scan_ms, '8.1f'):>8}  {_fmt(st.scan_ratio, '6.2f'):>6}")
    hook = f"{_fmt(st.hook_ms, '8.1f'):>8}  {_fmt(st.hook_ratio, '6.2f'):>6}"
    note = f"  ({st.hook_note})" if st.hook_note else ""
    print(f"  hook three.md        {hook}{note}")
    if st.error:
        print(f"  error: {_indent(st.error)}")


def _indent(message: str) -> str:
    """First line as is, the child's stderr tail below it, indented."""
    first, *rest = message.strip().splitlines() or [""]
    return "\n".join([first] + [f"      | {line}" for line in rest])


def _progress(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


# --- main -------------------------------------------------------------------------------------

def parse_sizes(text: str) -> list[int]:
    try:
        sizes = [parse_size(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad size list: {text!r}") from None
    if not sizes or any(n <= 0 for n in sizes):
        raise argparse.ArgumentTypeError(f"bad size list: {text!r}")
    return sorted(dict.fromkeys(sizes))


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description="Benchmark `memory-autopsy scan` speed and memory.")
    p.add_argument("--sizes", type=parse_sizes, help="comma list, e.g. 10000,100000 or 10k,1m")
    p.add_argument("--quick", action="store_true", help="10k and 100k only")
    p.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    p.add_argument("--repeat", type=int, default=None,
                   help="runs per size, best time kept (default 3 up to 100k, 1 above)")
    p.add_argument("--timeout", type=float, default=900.0,
                   help="seconds before a measured child is killed (default 900)")
    p.add_argument("--mem-limit-gib", type=float, default=8.0,
                   help="address-space limit for each child, 0 for none (default 8)")
    p.add_argument("--cache-dir", type=Path,
                   default=Path(tempfile.gettempdir()) / "memory-autopsy-bench",
                   help="where generated stores are cached (default: TMPDIR/memory-autopsy-bench)")
    p.add_argument("--no-startup", action="store_true", help="skip the start-up measurement")
    p.add_argument("--json", action="store_true", help="print the numbers as JSON")
    p.add_argument("--check", action="store_true", help="exit 1 when a target is missed")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    wanted = args.sizes or list(QUICK_SIZES if args.quick else DEFAULT_SIZES)
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


def _bench(args: argparse.Namespace, wanted: list[int], runner: Runner) -> int:
    scan_problem = preflight(runner)
    if scan_problem:
        _progress(f"scan cannot be measured: {scan_problem.splitlines()[0]}")
    results: dict[int, SizeResult] = {}
    for n in wanted:
        repeat = args.repeat or (3 if n <= 100_000 else 1)
        results[n] = measure_size(n, runner, args.seed, max(1, repeat), scan_problem is None)
    startup = None if args.no_startup else measure_startup(runner, scan_problem is None)
    targets = check_targets(results, startup, wanted)
    meta = _meta(args, results)
    sizes = [results[n] for n in wanted]
    if args.json:
        doc = {**meta, "scan_problem": scan_problem, "sizes": [asdict(s) for s in sizes],
               "startup": asdict(startup) if startup else None,
               "targets": [asdict(t) for t in targets]}
        print(json.dumps(doc, indent=2))
    else:
        print_report(meta, sizes, startup, targets, scan_problem)
    missed = any(t.status == "FAIL" for t in targets)
    return 1 if args.check and missed else 0


def _meta(args: argparse.Namespace, results: dict[int, SizeResult]) -> dict[str, Any]:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    repeats = sorted({args.repeat or (3 if n <= 100_000 else 1) for n in results})
    return {
        "tool": "memory-autopsy bench",
        "python": platform.python_version(),
        "platform": f"{platform.system()} {platform.machine()}",
        "cpus": os.cpu_count(),
        "load": None if load is None else round(load, 2),
        "seed": args.seed,
        "repeat": "/".join(str(r) for r in repeats),
        "generator": generator_version(),
        "linearity": _linearity(results),
        "linearity_floor": _linearity(results, "floor_s"),
    }


if __name__ == "__main__":
    sys.exit(main())
