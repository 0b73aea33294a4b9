#!/usr/bin/env python3
"""Reading eval for memory-autopsy (stdlib only, Python >= 3.10).

For every file real/labels.json marks `"dated_log": true`, load it with the package's API
(`memory_autopsy.api.load_store([path]).facts`) and count the facts that get an observation
date. Also lists the facts read from every labelled file, so a file that yields nothing shows.
Unlike run_real.py this script imports the package: the source tree (--src, default the
repository's src/) goes first on sys.path.

Exit codes: 0 done (and the --min-share target met); 1 the facts-weighted dated share over the
dated logs is below --min-share, or a file failed to load; 2 bad options, a missing or invalid
labels.json, or the package cannot be imported.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

EVAL_DIR = Path(__file__).resolve().parent
FILES_DIR = EVAL_DIR / "real" / "files"
LABELS = EVAL_DIR / "real" / "labels.json"
DEFAULT_SRC = EVAL_DIR.parent / "src"

Loader = Callable[[str], list[Any]]


@dataclass
class FileReading:
    path: str
    dated_log: bool
    facts: int = 0
    dated: int = 0
    error: str | None = None

    @property
    def share(self) -> float | None:
        return None if self.facts == 0 else self.dated / self.facts


def labelled_files(path: Path) -> tuple[dict[str, bool], list[str]]:
    """{relative path: dated_log} from labels.json, or the reasons it cannot be used."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
        files = doc["files"]
        out = {str(rel): meta["dated_log"] for rel, meta in files.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        return {}, [f"cannot read the files of {path}: {exc!r}"]
    errors = [f"no file {rel} under {FILES_DIR}" for rel in out if not (FILES_DIR / rel).is_file()]
    errors += [f"{rel}: dated_log must be true or false" for rel, v in out.items() if not isinstance(v, bool)]
    return out, errors


def import_loader(src: Path) -> tuple[Loader | None, str]:
    """`load_store(...).facts` from the package under `src` (not from an installed copy)."""
    sys.path.insert(0, str(src))
    try:
        import memory_autopsy
        from memory_autopsy.api import load_store
    except Exception as exc:  # any import failure is reported, not raised
        return None, f"{type(exc).__name__}: {exc}"
    where = Path(memory_autopsy.__file__ or "").resolve()
    if not where.is_relative_to(src):
        return None, f"memory_autopsy is imported from {where}, not from {src}"
    return (lambda path: list(load_store([path]).facts)), ""


def read_file(rel: str, dated_log: bool, load: Loader) -> FileReading:
    reading = FileReading(rel, dated_log)
    try:
        facts = load(str(FILES_DIR / rel))
    except Exception as exc:  # one bad file must not stop the eval
        reading.error = f"{type(exc).__name__}: {exc}"[:300]
        return reading
    reading.facts = len(facts)
    reading.dated = sum(1 for fact in facts if fact.observed_at is not None)
    return reading


def _ratio(num: float, den: float) -> float | None:
    return None if den == 0 else num / den


def summarise(readings: list[FileReading], src: Path) -> dict[str, Any]:
    logs = [r for r in readings if r.dated_log]
    shares = [r.share for r in logs if r.share is not None]
    facts = sum(r.facts for r in logs)
    return {
        "src": str(src),
        "dated_logs": len(logs),
        "dated_log_facts": facts,
        "dated_log_dated": sum(r.dated for r in logs),
        "weighted_share": _ratio(sum(r.dated for r in logs), facts),
        "mean_share": _ratio(sum(shares), len(shares)),
        "mean_over": len(shares),
        "files": len(readings),
        "total_facts": sum(r.facts for r in readings),
        "facts_per_file": _ratio(sum(r.facts for r in readings), len(readings)),
        "files_without_facts": [r.path for r in readings if r.facts == 0],
        "load_failures": [[r.path, r.error] for r in readings if r.error],
        "per_file": [{**asdict(r), "share": r.share} for r in readings],
    }


def _fmt(val: float | None) -> str:
    return "  n/a" if val is None else f"{val:.3f}"


def _print_rows(readings: list[FileReading]) -> None:
    width = max((len(r.path) for r in readings), default=4) + 2
    head = f"{'file':<{width}}{'facts':>7}{'dated':>7}{'share':>8}"
    print(head)
    print("-" * len(head))
    for r in readings:
        error = f"  ERROR {r.error}" if r.error else ""
        print(f"{r.path:<{width}}{r.facts:>7}{r.dated:>7}{_fmt(r.share):>8}{error}")


def print_report(res: dict[str, Any], readings: list[FileReading]) -> None:
    print(f"source: {res['src']}\n\ndated logs ({res['dated_logs']} files):")
    _print_rows([r for r in readings if r.dated_log])
    print(f"\ndated share over dated logs: weighted {_fmt(res['weighted_share'])} "
          f"({res['dated_log_dated']}/{res['dated_log_facts']} facts)   "
          f"mean per file {_fmt(res['mean_share'])} (over the {res['mean_over']} with facts)")
    print(f"\nother labelled files ({res['files'] - res['dated_logs']}):")
    _print_rows([r for r in readings if not r.dated_log])
    print(f"\nall labelled files: {res['files']}   facts {res['total_facts']}   "
          f"facts per file {_fmt(res['facts_per_file'])}")
    print(f"files yielding no facts: {', '.join(res['files_without_facts']) or '-'}")
    for path, why in res["load_failures"]:
        print(f"  load failed: {path}: {why}")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description="Share of facts with an observation date in the dated logs.")
    ap.add_argument("--src", type=Path, default=DEFAULT_SRC,
                    help=f"source tree to measure (default {DEFAULT_SRC})")
    ap.add_argument("--json", action="store_true", help="print machine-readable results")
    ap.add_argument("--min-share", type=float, metavar="F",
                    help="exit 1 when the facts-weighted dated share over dated logs is below F")
    ap.add_argument("--labels", type=Path, default=LABELS, help=argparse.SUPPRESS)
    return ap.parse_args(argv)


def fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.min_share is not None and not 0 <= args.min_share <= 1:
        return fail("--min-share must be in [0, 1]")
    files, errors = labelled_files(args.labels)
    if errors:
        return fail("; ".join(errors))
    src = args.src.resolve()
    load, why = import_loader(src)
    if load is None:
        return fail(f"cannot import memory_autopsy from {src}: {why}")
    readings = [read_file(rel, dated, load) for rel, dated in sorted(files.items())]
    res = summarise(readings, src)
    share = res["weighted_share"]
    low = args.min_share is not None and (share is None or share < args.min_share)
    res["min_share_missed"] = low
    if args.json:
        print(json.dumps(res, indent=2))
    else:
        print_report(res, readings)
        if low:
            print(f"\nweighted dated share {_fmt(share)} is below --min-share {args.min_share:g}")
    return 1 if low or res["load_failures"] else 0


if __name__ == "__main__":
    sys.exit(main())
