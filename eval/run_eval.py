#!/usr/bin/env python3
"""Detection-quality eval for memory-autopsy (stdlib only, Python >= 3.10).

Each scenario in scenarios.json is written into a fresh temp dir and scanned in ONE run:

    python -m memory_autopsy scan <files in sorted name order> --json --engine <engine>

Predicted findings (rule, path, line) are matched against the gold labels, which were
written before any engine existed (see README.md for the protocol). This script never
imports the engine: it only talks to the CLI, so it cannot be tuned to engine internals.

Exit codes: 0 done (and, with --strict, every declared target met); 1 --strict and a
target was missed; 2 the package cannot be imported, bad options or an invalid scenario file.
"""
from __future__ import annotations

import argparse
import base64
import binascii
import json
import os
import subprocess
import sys
import tempfile
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from scan_child import scan_json

EVAL_DIR = Path(__file__).resolve().parent
SRC_DIR = EVAL_DIR.parent / "src"
DEFAULT_SCENARIOS = EVAL_DIR / "scenarios.json"

SCORED_RULES = (
    "duplicate", "near_duplicate", "contradicted_explicit", "contradicted_implicit",
    "likely_conflict", "stale", "unsourced", "superseded", "duplicate_id",
    "unresolved_alias", "validity_order", "orphan_entity", "bad_input", "status_conflict", "numeric_drift",
    "beyond_budget", "broken_link", "unlinked_memory",
)
# Reported by the engine but never scored: 'degraded' is a run condition, not a finding
# about a fact. Every other rule name, known or not, is scored (FP when no gold has it).
UNSCORED_RULES = frozenset({"degraded"})
GROUPS = frozenset({"core", "greyzone", "paraphrase", "negative", "hygiene"})
NEGATIVE_TAGS = frozenset({"paraphrase", "near-miss"})
EMBED_ONLY = "embed-only"
ENGINES = ("heuristic", "embed")


# ----------------------------------------------------------------------------- scenarios
def load_scenarios(path: Path) -> dict:
    with path.open(encoding="utf-8") as fh:
        return json.load(fh)


def scenario_files(scn: dict) -> dict[str, bytes]:
    files = {name: text.encode("utf-8") for name, text in scn.get("files", {}).items()}
    for name, b64 in scn.get("files_b64", {}).items():
        files[name] = base64.b64decode(b64, validate=True)
    return files


def _file_lines(data: bytes) -> list[bytes]:
    lines = data.split(b"\n")
    return lines[:-1] if lines and lines[-1] == b"" else lines


def check_scenarios(doc: dict) -> tuple[list[str], list[str]]:
    """Structural validation. Returns (errors, summary lines)."""
    errors: list[str] = []
    if doc.get("version") != 1:
        errors.append("version must be 1")
    targets = doc.get("targets", {})
    for rule, tgt in targets.items():
        if rule not in SCORED_RULES and rule != "ok":
            errors.append(f"target for unknown class {rule!r}")
        for key in ("precision", "recall"):
            val = tgt.get(key)
            if not isinstance(val, (int, float)) or not 0 <= val <= 1:
                errors.append(f"target {rule}.{key} must be a number in [0, 1]")
    seen_ids: set[str] = set()
    positives: Counter[str] = Counter()
    negatives = 0
    for scn in doc.get("scenarios", []):
        sid = scn.get("id", "?")
        if sid in seen_ids:
            errors.append(f"{sid}: duplicate scenario id")
        seen_ids.add(sid)
        if scn.get("group") not in GROUPS:
            errors.append(f"{sid}: bad group {scn.get('group')!r}")
        if not isinstance(scn.get("tags", []), list):
            errors.append(f"{sid}: tags must be a list")
        overlap = set(scn.get("files", {})) & set(scn.get("files_b64", {}))
        if overlap:
            errors.append(f"{sid}: file named twice: {sorted(overlap)}")
        try:
            files = scenario_files(scn)
        except (binascii.Error, ValueError) as exc:
            errors.append(f"{sid}: bad files_b64: {exc}")
            continue
        if not files:
            errors.append(f"{sid}: no files")
        for name in files:
            parts = name.split("/")
            if "\\" in name or name.startswith((".", "/")) or ".." in parts or "" in parts:
                errors.append(f"{sid}: file name must be a plain relative path: {name!r}")
        keys: set[tuple] = set()
        for exp in scn.get("expect", []):
            rule, fname, line = exp.get("rule"), exp.get("file"), exp.get("line")
            key = (rule, fname, line)
            if key in keys:
                errors.append(f"{sid}: expectation listed twice: {key}")
            keys.add(key)
            if rule not in SCORED_RULES:
                errors.append(f"{sid}: unknown rule {rule!r}")
            if fname not in files:
                errors.append(f"{sid}: expectation names missing file {fname!r}")
                continue
            lines = _file_lines(files[fname])
            if not isinstance(line, int) or line < 1:
                errors.append(f"{sid}: bad line {line!r}")
            elif rule == "bad_input" and line == 1:
                pass  # whole-file finding: the file may be empty
            elif line > len(lines):
                errors.append(f"{sid}: {fname}:{line} is past the end ({len(lines)} lines)")
            elif not lines[line - 1].strip():
                errors.append(f"{sid}: {fname}:{line} is a blank line")
        for rule in {e.get("rule") for e in scn.get("expect", [])}:
            positives[rule] += 1
        if not scn.get("expect") and NEGATIVE_TAGS & set(scn.get("tags", [])):
            negatives += 1
    summary = [f"{len(seen_ids)} scenarios; positive scenarios per class:"]
    for rule in SCORED_RULES:
        summary.append(f"  {rule:<24}{positives[rule]:>4}")
        if positives[rule] < 3:
            errors.append(f"class {rule} has fewer than 3 positive scenarios")
    summary.append(f"ok scenarios tagged paraphrase/near-miss: {negatives}")
    return errors, summary


# ----------------------------------------------------------------------------- running
@dataclass
class ScanResult:
    sid: str
    predicted: set = field(default_factory=set)
    messages: dict = field(default_factory=dict)
    failure: str | None = None
    degraded: bool = False
    version: str | None = None


def build_env(embed_url: str | None) -> dict[str, str]:
    env = dict(os.environ)
    parts = [str(SRC_DIR)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(parts)
    env["PYTHONIOENCODING"] = "utf-8"
    if embed_url:
        env["OLLAMA_BASE_URL"] = embed_url
    return env


def package_importable(env: dict[str, str]) -> tuple[bool, str]:
    proc = subprocess.run([sys.executable, "-c", "import memory_autopsy"], env=env,
                          capture_output=True, text=True, timeout=60)
    return proc.returncode == 0, proc.stderr.strip()


def _norm_path(path: object) -> str:
    text = str(path).replace("\\", "/")
    while text.startswith("./"):
        text = text[2:]
    return text


def run_scan(scn: dict, engine: str, env: dict[str, str], timeout: float) -> ScanResult:
    res = ScanResult(scn["id"])
    files = scenario_files(scn)
    names = sorted(files)
    with tempfile.TemporaryDirectory(prefix="ma-eval-") as tmp:
        for name, data in files.items():
            (Path(tmp) / name).parent.mkdir(parents=True, exist_ok=True)
            (Path(tmp) / name).write_bytes(data)
        cmd = [sys.executable, "-m", "memory_autopsy", "scan", *names, "--json", "--engine", engine, "--no-grounding"]
        if engine == "embed":
            cmd.append("--no-cache")  # a stand-in server on a random port must not grow the cache
        report, res.failure = scan_json(cmd, tmp, env, timeout)
    if report is None:
        return res
    findings = report["findings"]
    res.version = report.get("version")
    for item in findings:
        if not isinstance(item, dict):
            continue
        rule = str(item.get("rule"))
        if rule in UNSCORED_RULES:
            res.degraded = res.degraded or rule == "degraded"
            continue
        line = item.get("line")
        triple = (rule, _norm_path(item.get("path")), line if isinstance(line, int) else None)
        res.predicted.add(triple)  # a set: one (rule, path, line) counts once
        res.messages.setdefault(triple, str(item.get("message", ""))[:160])
    return res


# ----------------------------------------------------------------------------- scoring
@dataclass
class EngineScore:
    engine: str
    tp: Counter = field(default_factory=Counter)
    fp: Counter = field(default_factory=Counter)
    fn: Counter = field(default_factory=Counter)
    gold: Counter = field(default_factory=Counter)
    misses: list = field(default_factory=list)
    failures: list = field(default_factory=list)
    degraded: list = field(default_factory=list)
    skipped: list = field(default_factory=list)
    scenarios_run: int = 0
    version: str | None = None


def gold_of(scn: dict) -> set:
    return {(e["rule"], e["file"], e["line"]) for e in scn.get("expect", [])}


def score_scenario(score: EngineScore, scn: dict, res: ScanResult) -> None:
    gold = gold_of(scn)
    score.scenarios_run += 1
    score.version = score.version or res.version
    for rule, _, _ in gold:
        score.gold[rule] += 1
    if not gold:
        score.gold["ok"] += 1
    if res.failure is not None:
        score.failures.append((scn["id"], res.failure))
        for triple in sorted(gold, key=str):
            score.fn[triple[0]] += 1
            score.misses.append(("FN", scn["id"], triple, "scan failed"))
        if not gold:
            score.fn["ok"] += 1
            score.misses.append(("FN", scn["id"], ("ok", "-", None), "scan failed"))
        return
    if res.degraded:
        score.degraded.append(scn["id"])
    pred = res.predicted
    for triple in sorted(gold & pred, key=str):
        score.tp[triple[0]] += 1
    for triple in sorted(pred - gold, key=str):
        score.fp[triple[0]] += 1
        score.misses.append(("FP", scn["id"], triple, res.messages.get(triple, "")))
    for triple in sorted(gold - pred, key=str):
        score.fn[triple[0]] += 1
        score.misses.append(("FN", scn["id"], triple, ""))
    # The 'ok' row scores the scenario-level verdict "nothing to report".
    silent = not pred
    if not gold and silent:
        score.tp["ok"] += 1
    elif not gold:
        score.fn["ok"] += 1
        score.misses.append(("FN", scn["id"], ("ok", "-", None), f"{len(pred)} finding(s) on an ok scenario"))
    elif silent:
        score.fp["ok"] += 1
        score.misses.append(("FP", scn["id"], ("ok", "-", None), "silent on a scenario with gold findings"))


def ratio(num: int, den: int) -> float | None:
    return None if den == 0 else num / den


def class_rows(score: EngineScore, targets: dict) -> list[dict]:
    extra = sorted((set(score.fp) | set(score.tp)) - set(SCORED_RULES) - {"ok"})
    rows = []
    for rule in (*SCORED_RULES, *extra, "ok"):
        tp, fp, fn = score.tp[rule], score.fp[rule], score.fn[rule]
        prec, rec = ratio(tp, tp + fp), ratio(tp, tp + fn)
        tgt = targets.get(rule)
        met = None
        if tgt is not None:
            met = (prec is None or prec >= tgt["precision"]) and (rec is None or rec >= tgt["recall"])
        rows.append({"class": rule, "gold": score.gold[rule], "tp": tp, "fp": fp, "fn": fn,
                     "precision": prec, "recall": rec, "target": tgt, "met": met})
    return rows


def target_misses(engine: str, rows: list[dict]) -> list[str]:
    out = []
    for row in rows:
        tgt = row["target"]
        if tgt is None:
            continue
        for key in ("precision", "recall"):
            val = row[key]
            if val is not None and val < tgt[key]:
                out.append(f"{engine}: {row['class']} {key} {val:.3f} < target {tgt[key]:.2f}")
    return out


# ----------------------------------------------------------------------------- output
def _fmt(val: float | None) -> str:
    return "  n/a" if val is None else f"{val:.3f}"


def print_table(score: EngineScore, rows: list[dict], total: int) -> None:
    print(f"\nengine: {score.engine}   version: {score.version or '?'}   scenarios run: "
          f"{score.scenarios_run}/{total}   skipped ({EMBED_ONLY}): {len(score.skipped)}   "
          f"scan failures: {len(score.failures)}")
    head = f"{'class':<24}{'gold':>5}{'TP':>5}{'FP':>5}{'FN':>5}{'prec':>8}{'recall':>8}   {'target P/R':<11}met"
    print(head)
    print("-" * len(head))
    for row in rows:
        tgt = row["target"]
        tgt_s = f"{tgt['precision']:.2f}/{tgt['recall']:.2f}" if tgt else "-"
        met = {None: "-", True: "yes", False: "NO"}[row["met"]]
        print(f"{row['class']:<24}{row['gold']:>5}{row['tp']:>5}{row['fp']:>5}{row['fn']:>5}"
              f"{_fmt(row['precision']):>8}{_fmt(row['recall']):>8}   {tgt_s:<11}{met}")
    for sid, why in score.failures:
        print(f"  scan failed: {sid}: {why}")
    if score.degraded:
        print(f"  WARNING: embedding layer degraded in {len(score.degraded)} scenario(s); "
              f"these numbers are heuristic-only: {', '.join(score.degraded[:8])}")


def print_misses(score: EngineScore) -> None:
    print(f"\nmisses ({score.engine}): {len(score.misses)}")
    for kind, sid, (rule, path, line), info in score.misses:
        loc = f"{path}:{line}" if path != "-" else "(scenario)"
        print(f"  {kind} {sid:<34} {rule:<22} {loc}" + (f"  -- {info}" if info else ""))


# ----------------------------------------------------------------------------- main
def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description="Score memory-autopsy against hand-labelled scenarios.")
    ap.add_argument("--engine", choices=("heuristic", "embed", "all"), default="heuristic")
    ap.add_argument("--embed-url", help="embedding endpoint, passed to the scan as env OLLAMA_BASE_URL "
                                        "(required for --engine embed/all unless OLLAMA_BASE_URL is set)")
    ap.add_argument("--strict", action="store_true", help="exit 1 when any declared target is missed")
    ap.add_argument("--json", action="store_true", help="print machine-readable results")
    ap.add_argument("--show-misses", action="store_true", help="list every FP/FN with its scenario id")
    ap.add_argument("--scenarios", type=Path, default=DEFAULT_SCENARIOS, help="scenario file")
    ap.add_argument("--scenario", action="append", metavar="ID", help="run only this scenario (repeatable)")
    ap.add_argument("--check", action="store_true", help="validate the scenario file and exit; runs no engine")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per scan (default 120)")
    ap.add_argument("--jobs", type=int, default=1, help="scans run in parallel (default 1)")
    return ap.parse_args(argv)


def run_engine(engine: str, scenarios: list[dict], env: dict[str, str], args: argparse.Namespace) -> EngineScore:
    score = EngineScore(engine)
    todo = []
    for scn in scenarios:
        if engine == "heuristic" and EMBED_ONLY in scn.get("tags", []):
            score.skipped.append(scn["id"])
        else:
            todo.append(scn)
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        results = list(pool.map(lambda s: run_scan(s, engine, env, args.timeout), todo))
    for scn, res in zip(todo, results):
        score_scenario(score, scn, res)
    return score


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    try:
        doc = load_scenarios(args.scenarios)
    except (OSError, ValueError) as exc:
        print(f"error: cannot read {args.scenarios}: {exc}", file=sys.stderr)
        return 2
    errors, summary = check_scenarios(doc)
    if args.check:
        print("\n".join(summary))
        for err in errors:
            print(f"error: {err}", file=sys.stderr)
        print("scenario file OK" if not errors else f"{len(errors)} error(s)")
        return 2 if errors else 0
    if errors:
        for err in errors:
            print(f"error: {err}", file=sys.stderr)
        return 2
    scenarios = doc["scenarios"]
    if args.scenario:
        wanted = set(args.scenario)
        unknown = wanted - {s["id"] for s in scenarios}
        if unknown:
            print(f"error: unknown scenario id(s): {sorted(unknown)}", file=sys.stderr)
            return 2
        scenarios = [s for s in scenarios if s["id"] in wanted]
    engines = ENGINES if args.engine == "all" else (args.engine,)
    embed_url = args.embed_url or os.environ.get("OLLAMA_BASE_URL")
    if "embed" in engines and not embed_url:
        print("error: --engine embed needs --embed-url URL (or OLLAMA_BASE_URL)", file=sys.stderr)
        return 2
    env = build_env(embed_url if "embed" in engines else args.embed_url)
    ok, why = package_importable(env)
    if not ok:
        last = why.splitlines()[-1] if why else "unknown error"
        print(f"error: cannot import memory_autopsy (PYTHONPATH starts with {SRC_DIR}): {last}",
              file=sys.stderr)
        return 2
    targets = doc.get("targets", {})
    results, missed = {}, []
    for engine in engines:
        score = run_engine(engine, scenarios, env, args)
        rows = class_rows(score, targets)
        missed += target_misses(engine, rows)
        results[engine] = (score, rows)
    if args.json:
        out = {"scenarios": len(scenarios), "engines": {}, "targets_missed": missed}
        for engine, (score, rows) in results.items():
            out["engines"][engine] = {
                "version": score.version, "scenarios_run": score.scenarios_run,
                "skipped": score.skipped, "scan_failures": [list(f) for f in score.failures],
                "degraded": score.degraded, "classes": rows,
                "misses": [{"kind": k, "scenario": sid, "rule": t[0], "file": t[1], "line": t[2], "info": info}
                           for k, sid, t, info in score.misses],
            }
        print(json.dumps(out, indent=2))
    else:
        for score, rows in results.values():
            print_table(score, rows, len(scenarios))
            if args.show_misses:
                print_misses(score)
        if missed:
            print("\ntargets missed:")
            for line in missed:
                print(f"  {line}")
        else:
            print("\nall declared targets met")
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())
