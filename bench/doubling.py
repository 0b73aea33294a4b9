"""Doubling test: is every ingest path (and the whole lint) linear in its input?

For each shape it lints the store at N and at 2N (best of 3 each) in a child that calls
`memory_autopsy.api.lint`, and prints time(2N) / time(N) against the 2.3 target. The time is
measured inside the child (lint + writing the JSON report), after the same child has linted a
50-fact store of the same shape untimed: neither interpreter start-up nor imports, lazily
loaded word lists or compiled patterns count, so a fixed cost can neither hide a quadratic pass
nor inflate the ratio at small N. The ingest column is the `load_store` call alone.
Stdlib only, Python >= 3.10.

    python bench/doubling.py                       # every shape at its default N
    python bench/doubling.py --shapes graph,slot   # some shapes
    python bench/doubling.py --scale 0.1           # every N divided by 10 (a quick look)
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import (  # noqa: E402 (bench/ is not a package)
    DEFAULT_CACHE,
    BenchError,
    DriverRun,
    MiB,
    Runner,
    checked,
    fmt,
    indent,
    load_average,
    progress,
    run_driver,
    store_for,
)

RATIO_MAX = 2.3
WARM_UP_FACTS = 50  # a store of the same shape linted first, untimed, in the same child

# shape -> (N, what it is); the store at 2N is the same generator with twice the n
DOUBLING: dict[str, tuple[int, str]] = {
    "json": (50_000, "JSON document (memlint's list)"),
    "jsonl": (50_000, "JSONL"),
    "md": (50_000, "markdown bullets"),
    "table": (50_000, "markdown tables"),
    "prose": (50_000, "one paragraph of 50,000 lines"),
    "continued": (50_000, "one bullet continued over 50,000 lines"),
    "graph": (10_000, "MCP graph line, 10,000 observations"),
    "slot": (10_000, "one slot with 10,000 values"),
    "entity": (100_000, "one entity with 100,000 facts"),
}

# The commands beyond lint, each on its store at N and 2N: name -> (N, what it is, the store's
# shape, its arguments). `{store}` is a copy of the store in a folder of its own (`--apply`
# rewrites it), made before the clock starts.
COMMANDS: dict[str, tuple[int, str, str, tuple[str, ...]]] = {
    "as-of": (50_000, "as-of (text), JSONL", "jsonl", ("as-of", "2026-06-01", "{store}", "--isolated")),
    "sarif": (50_000, "scan --format sarif, JSONL", "jsonl", ("scan", "{store}", "--format", "sarif", "--isolated")),
    "apply-md": (10_000, "report --apply: N copies, markdown", "copies",
                 ("report", "{store}", "--apply", "--yes-i-know", "--isolated")),
    "apply-json": (10_000, "report --apply: N copies, JSON doc", "copiesjson",
                   ("report", "{store}", "--apply", "--yes-i-know", "--isolated")),
}

# argv: WARM_UP STORE ARG... The command runs in process (`cli.main`) on a copy of WARM_UP,
# untimed, then on a copy of STORE, timed; it prints the time as one JSON line.
COMMAND_CODE = """\
import contextlib, json, os, shutil, sys, tempfile, time
from memory_autopsy.cli import main
warm_up, store, *argv = sys.argv[1:]
def run(path):
    with tempfile.TemporaryDirectory() as folder:
        copy = os.path.join(folder, os.path.basename(path))
        shutil.copyfile(path, copy)
        args = [arg.replace("{store}", copy) for arg in argv]
        with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            began = time.perf_counter()
            code = main(args)
            took = time.perf_counter() - began
    if code not in (0, 1):
        raise SystemExit(f"{argv[0]} exited {code}")
    return took
run(warm_up)
print(json.dumps({"work_s": run(store)}))
"""


@dataclass
class Doubling:
    shape: str
    label: str
    n: int
    mib: float = 0.0
    mib_2n: float = 0.0
    work_s: float | None = None
    work_2n_s: float | None = None
    ingest_s: float | None = None
    ingest_2n_s: float | None = None
    wall_s: float | None = None
    wall_2n_s: float | None = None
    peak_mib_2n: float | None = None
    ratio: float | None = None
    ingest_ratio: float | None = None
    status: str = "n/a"
    error: str | None = None


def measure(shape: str, n: int, runner: Runner, seed: int, repeat: int) -> Doubling:
    result = Doubling(shape, DOUBLING[shape][1], n)
    try:
        warm_up = store_for(shape, WARM_UP_FACTS, seed, runner.cache)[0].name
        runs: dict[int, list[DriverRun]] = {}
        for size in (n, 2 * n):
            store, _, _ = store_for(shape, size, seed, runner.cache)
            if size == n:
                result.mib = store.stat().st_size / MiB
            else:
                result.mib_2n = store.stat().st_size / MiB
            out = runner.cache / f"doubling-{shape}.json"
            runs[size] = []
            for i in range(repeat):
                progress(f"doubling {shape} n={size:,}: run {i + 1}/{repeat}")
                runs[size].append(run_driver(runner, [store.name], out, warm_up=warm_up))
            out.unlink(missing_ok=True)
    except BenchError as exc:
        result.error = str(exc)
        result.status = "NOT met"
        return result
    one, two = runs[n], runs[2 * n]
    result.work_s, result.work_2n_s = min(r.work_s for r in one), min(r.work_s for r in two)
    result.wall_s, result.wall_2n_s = min(r.wall for r in one), min(r.wall for r in two)
    result.peak_mib_2n = max(r.peak_mib for r in two)
    ingest, ingest_2n = [r.ingest_s for r in one], [r.ingest_s for r in two]
    if all(v is not None for v in ingest + ingest_2n):
        result.ingest_s = min(v for v in ingest if v is not None)
        result.ingest_2n_s = min(v for v in ingest_2n if v is not None)
        result.ingest_ratio = result.ingest_2n_s / result.ingest_s if result.ingest_s else None
    result.ratio = result.work_2n_s / result.work_s if result.work_s else None
    ok = result.ratio is not None and result.ratio <= RATIO_MAX
    ok = ok and (result.ingest_ratio is None or result.ingest_ratio <= RATIO_MAX)
    result.status = "met" if ok else "NOT met"
    return result


def measure_command(name: str, n: int, runner: Runner, seed: int, repeat: int) -> Doubling:
    _, label, shape, args = COMMANDS[name]
    result = Doubling(name, label, n)
    times: dict[int, list[float]] = {}
    stats = runner.cache / "doubling-command.json"
    try:
        warm_up = store_for(shape, WARM_UP_FACTS, seed, runner.cache)[0]
        for size in (n, 2 * n):
            store = store_for(shape, size, seed, runner.cache)[0]
            if size == n:
                result.mib = store.stat().st_size / MiB
            else:
                result.mib_2n = store.stat().st_size / MiB
            times[size] = []
            for i in range(repeat):
                progress(f"doubling {name} n={size:,}: run {i + 1}/{repeat}")
                run = checked(runner.run(["-c", COMMAND_CODE, str(warm_up), str(store), *args], stats), name)
                try:
                    times[size].append(json.loads(stats.read_text(encoding="utf-8").splitlines()[-1])["work_s"])
                except (OSError, ValueError, IndexError, KeyError) as exc:
                    raise BenchError(f"{name} printed no time ({exc})\n{run.stderr_tail}") from None
                result.peak_mib_2n = run.peak_mib if size == 2 * n else result.peak_mib_2n
    except BenchError as exc:
        result.error = str(exc)
        result.status = "NOT met"
        return result
    finally:
        stats.unlink(missing_ok=True)
    result.work_s, result.work_2n_s = min(times[n]), min(times[2 * n])
    result.ratio = result.work_2n_s / result.work_s if result.work_s else None
    result.status = "met" if result.ratio is not None and result.ratio <= RATIO_MAX else "NOT met"
    return result


def run_doubling(runner: Runner, seed: int, repeat: int, scale: float,
                 shapes: list[str]) -> list[Doubling]:
    return [measure_command(name, max(2, round(COMMANDS[name][0] * scale)), runner, seed, repeat)
            if name in COMMANDS else
            measure(name, max(2, round(DOUBLING[name][0] * scale)), runner, seed, repeat)
            for name in shapes]


def print_doubling(results: list[Doubling], repeat: int) -> None:
    print(f"\ndoubling test (best of {repeat}; time inside the child: lint + JSON report, or the command; "
          f"target time(2N)/time(N) <= {RATIO_MAX})")
    header = (f"  {'shape':<38} {'N':>8} {'MiB 2N':>7} {'t(N) s':>7} {'t(2N) s':>8} "
              f"{'ratio':>6} {'ingest':>7} {'bytes':>6}  status")
    print(header)
    print("  " + "-" * (len(header) - 2))
    for r in results:
        bytes_ratio = r.mib_2n / r.mib if r.mib else None
        print(f"  {r.label:<38} {r.n:>8,} {fmt(r.mib_2n, '.1f'):>7} {fmt(r.work_s, '.2f'):>7} "
              f"{fmt(r.work_2n_s, '.2f'):>8} {fmt(r.ratio, '.2f'):>6} {fmt(r.ingest_ratio, '.2f'):>7} "
              f"{fmt(bytes_ratio, '.2f'):>6}  {r.status}")
        if r.error:
            print(f"    error: {indent(r.error)}")


def _shapes(text: str) -> list[str]:
    names = [s.strip() for s in text.split(",") if s.strip()]
    unknown = [s for s in names if s not in DOUBLING and s not in COMMANDS]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"unknown shape(s) {unknown}; known: {', '.join([*DOUBLING, *COMMANDS])}")
    return names


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Doubling test: lint time at 2N over N, per input shape.")
    p.add_argument("--shapes", type=_shapes, default=[*DOUBLING, *COMMANDS],
                   help=f"comma list of {', '.join([*DOUBLING, *COMMANDS])}")
    p.add_argument("--scale", type=float, default=1.0, help="multiply every N (default 1)")
    p.add_argument("--repeat", type=int, default=3, help="runs per size, best kept (default 3)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timeout", type=float, default=900.0)
    p.add_argument("--mem-limit-gib", type=float, default=8.0)
    p.add_argument("--cache-dir", type=Path, default=DEFAULT_CACHE)
    p.add_argument("--json", action="store_true", help="print the numbers as JSON")
    p.add_argument("--check", action="store_true", help="exit 1 when a ratio is over the target")
    args = p.parse_args(argv)
    cache = args.cache_dir.resolve()
    cache.mkdir(parents=True, exist_ok=True)
    runner = Runner(cache, args.timeout, args.mem_limit_gib)
    load_before = load_average()
    results = run_doubling(runner, args.seed, max(1, args.repeat), args.scale, args.shapes)
    if args.json:
        print(json.dumps({"load": [load_before, load_average()], "target": RATIO_MAX,
                          "results": [asdict(r) for r in results]}, indent=2))
    else:
        print(f"load average {load_before} before, {load_average()} after")
        print_doubling(results, max(1, args.repeat))
    return 1 if args.check and any(r.status != "met" for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())
