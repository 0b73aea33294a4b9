"""What `run_bench.py` and `doubling.py` share: running one child and reaping it with
`os.wait4` (its own peak RSS), the cached stores, the in-process lint driver and the peer's venv.

Stdlib only, Python >= 3.10.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
SRC = ROOT / "src"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))

from generate import SHAPES, generate_shape  # noqa: E402 (bench/ is not a package)

MiB = 2**20
DEFAULT_CACHE = Path(tempfile.gettempdir()) / "memory-autopsy-bench"

PEER = "memlint"
PEER_VERSION = "0.1.6"
PEER_PYTHON = (3, 11)  # memlint's requires-python


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
    # Processor seconds (user and system) of the child and of every child it waited for: a scan
    # of a large store judges it in more than one process (memory_autopsy.parallel).
    cpu: float = 0.0


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
            cwd: Path | None = None, exe: str | None = None) -> Run:
        """Run `python ARGS` (or `EXE ARGS`), in the cache folder by default: wall time from
        spawn to reap, the child's own peak RSS (of it or of a child it waited for, whichever is
        larger) and its processor time."""
        err_path = self.cache / "stderr.txt"
        out_target = stdout if stdout is not None else Path(os.devnull)
        with out_target.open("wb") as out, err_path.open("wb") as err:
            start = time.perf_counter()
            proc = subprocess.Popen(
                [exe or sys.executable, *args], stdin=subprocess.DEVNULL, stdout=out, stderr=err,
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
        return Run(wall, _maxrss_mib(usage.ru_maxrss), code, killed.is_set(), _tail(err_path),
                   usage.ru_utime + usage.ru_stime)

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


def checked(run: Run, what: str) -> Run:
    if run.timed_out:
        raise BenchError(f"{what}: timed out after {run.wall:.0f}s")
    if run.code != 0:
        raise BenchError(f"{what}: exit {run.code}\n{run.stderr_tail}")
    return run


# --- the stores -------------------------------------------------------------------------------

@functools.cache
def generator_version() -> str:
    return hashlib.sha256((BENCH / "generate.py").read_bytes()).hexdigest()[:8]


def store_for(shape: str, n: int, seed: int, cache: Path) -> tuple[Path, float, bool]:
    """The cached store for (shape, n, seed, generator version): path, seconds to make it,
    whether it was cached. A store made by another generator version is deleted."""
    version = generator_version()
    suffix = SHAPES[shape][1]
    path = cache / f"{shape}-n{n}-seed{seed}-g{version}{suffix}"
    if path.exists():
        return path, 0.0, True
    for stale in [*cache.glob(f"{shape}-n{n}-seed{seed}-g*"), *cache.glob(f"store-n{n}-seed{seed}-g*")]:
        stale.unlink()  # an older generator's output (store-* is the old JSONL naming)
    progress(f"generating {shape} n={n:,} -> {path.name}")
    start = time.perf_counter()
    partial = path.with_name(path.name + ".partial")
    generate_shape(shape, n, partial, seed=seed)
    os.replace(partial, path)
    return path, time.perf_counter() - start, False


# --- the in-process lint driver ---------------------------------------------------------------

# argv: WARM_UP ("" = none; else a file linted first, untimed, so lazy imports, compiled
# patterns and word lists are loaded before the clock starts) CACHE_DIR ("" = no parse cache)
# CHANGED ("" = report everything; else comma-separated paths, linted with them as the focus and
# filtered as the hook does both)
# REPORT_OUT PATH...
# It calls `memory_autopsy.api.lint` (timing its `load_store` call as the ingest phase), writes
# the JSON report as `scan --json` does, prints its timings as one JSON line on stdout, and
# runs as the command line does: the cycle collector paused throughout and the run's records
# frozen out of the interpreter's last collection (see api.paused_gc).
DRIVER_CODE = """\
import gc, json, sys, time
start = time.perf_counter()
gc.disable()  # as the command line runs a command: the collector paused throughout, see api.paused_gc
from memory_autopsy import api
from memory_autopsy.settings import Settings
from memory_autopsy.formatters import json_format
imported = time.perf_counter()
warm_up, cache, changed, out, *paths = sys.argv[1:]
focus = frozenset(changed.split(",")) if changed else None
if warm_up:
    api.lint([warm_up], Settings())
    imported = time.perf_counter()
ingest = []
from memory_autopsy import pipeline  # api.lint reads through pipeline._load (older: load_store)
_name = "_load" if hasattr(pipeline, "_load") else "load_store"
_read = getattr(pipeline, _name)
def timed_read(*args, **kwargs):
    began = time.perf_counter()
    read = _read(*args, **kwargs)
    ingest.append(time.perf_counter() - began)
    return read
setattr(pipeline, _name, timed_read)
if _name == "load_store":
    api.load_store = timed_read
try:
    settings = Settings(parse_cache=cache or None, focus=focus)
except TypeError:  # a version without the focus setting
    settings = Settings(parse_cache=cache or None)
report = api.lint(paths, settings)
linted = time.perf_counter()
if changed:
    from memory_autopsy.ci.filters import filter_report
    report = filter_report(report, None, focus).report
with open(out, "w", encoding="utf-8") as handle:
    write = getattr(json_format, "iter_report", None)
    handle.writelines(write(report)) if write else handle.write(json_format.format_report(report))
done = time.perf_counter()
print(json.dumps({"import_s": imported - start, "ingest_s": sum(ingest) if ingest else None,
                  "lint_s": linted - imported, "write_s": done - linted, "work_s": done - imported,
                  "facts": len(report.facts), "findings": len(report.findings)}))
gc.freeze()  # as the command line exits: no last collection of the run's records,
sys.stdout.flush()  # and no teardown (cli.entry): the report is closed, the timings flushed
import os
os._exit(0)
"""


@dataclass
class DriverRun:
    wall: float
    peak_mib: float
    work_s: float  # in-process: lint + report, without interpreter start-up, imports and warm-up
    ingest_s: float | None
    import_s: float
    facts: int
    findings: int


def run_driver(runner: Runner, paths: list[str], out: Path, *, parse_cache: Path | None = None,
               changed: list[str] | None = None, cwd: Path | None = None,
               timeout: float | None = None, warm_up: str | None = None) -> DriverRun:
    stats_path = runner.cache / "driver-stats.json"
    args = ["-c", DRIVER_CODE, warm_up or "", str(parse_cache or ""), ",".join(changed or []), str(out),
            *paths]
    run = checked(runner.run(args, stats_path, timeout=timeout, cwd=cwd), "lint driver")
    try:
        stats = json.loads(stats_path.read_text(encoding="utf-8").strip().splitlines()[-1])
    except (OSError, ValueError, IndexError) as exc:
        raise BenchError(f"lint driver printed no timings ({exc})\n{run.stderr_tail}") from None
    finally:
        stats_path.unlink(missing_ok=True)
    return DriverRun(run.wall, run.peak_mib, stats["work_s"], stats["ingest_s"], stats["import_s"],
                     stats["facts"], stats["findings"])


# --- the peer (memlint) in its own venv ---------------------------------------------------------

def peer_executable(cache: Path, install: bool = True) -> tuple[str | None, str]:
    """The peer's console script, installed on demand into `<cache>/peer-venv`:
    (path, "") or (None, why it is not installable). Never raises."""
    venv = cache / "peer-venv"
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    script = bindir / (PEER + (".exe" if os.name == "nt" else ""))
    marker = venv / f".{PEER}-{PEER_VERSION}-ok"
    if marker.exists() and script.exists():
        return str(script), ""
    if not install:
        return None, "not installed (--no-peer-install)"
    python = _peer_python()
    if python is None:
        return None, f"{PEER} needs Python >= {'.'.join(map(str, PEER_PYTHON))}; none found on PATH"
    progress(f"installing {PEER}=={PEER_VERSION} into {venv} (once)")
    steps = [
        [python, "-m", "venv", "--clear", str(venv)],
        [str(bindir / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
         f"{PEER}=={PEER_VERSION}"],
        [str(script), "--help"],
    ]
    for step in steps:
        try:
            done = subprocess.run(step, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                  timeout=900)
        except (OSError, subprocess.SubprocessError) as exc:
            return None, f"`{' '.join(step[1:4])}`: {exc}"
        if done.returncode != 0:
            lines = [ln for ln in (done.stderr or done.stdout).splitlines() if ln.strip()
                     and not ln.startswith("WARNING: Location")]
            return None, f"`{' '.join(step[1:4])}` exit {done.returncode}: {lines[-1] if lines else ''}"
    marker.write_text(f"{PEER}=={PEER_VERSION}\n", encoding="utf-8")
    return str(script), ""


def _peer_python() -> str | None:
    if sys.version_info >= PEER_PYTHON:
        return sys.executable
    for minor in range(20, PEER_PYTHON[1] - 1, -1):
        found = shutil.which(f"python3.{minor}")
        if found:
            return found
    return None


def run_peer(runner: Runner, script: str, store: Path, out: Path, timeout: float) -> tuple[Run, int | None]:
    """`memlint check STORE --json`: the run and the number of facts it reported (None when
    its output is not its JSON report)."""
    run = runner.run(["check", store.name, "--json"], out, timeout=timeout, cwd=store.parent, exe=script)
    total = None
    if not run.timed_out and run.code == 0:
        try:
            doc: Any = json.loads(out.read_text(encoding="utf-8"))
            total = doc.get("total_facts") if isinstance(doc, dict) else None
        except (OSError, ValueError):
            total = None
    return run, total


# --- output helpers -----------------------------------------------------------------------------

def progress(message: str) -> None:
    print(f"[bench] {message}", file=sys.stderr, flush=True)


def fmt(value: float | None, spec: str) -> str:
    return "n/a" if value is None else format(value, spec)


def indent(message: str) -> str:
    """First line as is, the child's stderr tail below it, indented."""
    first, *rest = message.strip().splitlines() or [""]
    return "\n".join([first] + [f"      | {line}" for line in rest])


def load_average() -> float | None:
    return round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None
