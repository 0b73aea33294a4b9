#!/usr/bin/env python3
"""Real-memory eval for memory-autopsy (stdlib only, Python >= 3.10).

Each repository folder under real/files/ is scanned in one run, from inside real/files/:

    python -m memory_autopsy scan <folder> --format json --fail-on <level>

so a finding's path reads `<folder>/<file>`, the form the labels use. Failing findings (at or
above --fail-on) are scored against real/labels.json as real/README.md describes. This script
never imports the engine: it only talks to the CLI, so an older checkout can be measured with
--src.

Exit codes: 0 done (and, with --strict, every given threshold met); 1 --strict and a threshold
was missed (or a scan failed); 2 bad options, a missing or invalid labels.json, or the package
cannot be imported.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scan_child import scan_json

EVAL_DIR = Path(__file__).resolve().parent
REAL_DIR = EVAL_DIR / "real"
FILES_DIR = REAL_DIR / "files"
LABELS = REAL_DIR / "labels.json"
SPLIT = REAL_DIR / "split.json"
PARTS = ("dev", "test")
DEFAULT_SRC = EVAL_DIR.parent / "src"

SEVERITIES = ("info", "review", "warning", "error")
RANK = {name: i for i, name in enumerate(SEVERITIES)}
KINDS = ("contradiction", "stale", "duplicate", "status_conflict", "numeric_drift")
MESSAGE_CUT = 160


# ----------------------------------------------------------------------------- labels
@dataclass(frozen=True)
class Side:
    path: str
    first: int
    last: int
    obs: int | None

    def holds(self, loc: Loc) -> bool:
        """The finding's region (a line, or a copied block's lines or observations) meets the side."""
        if loc.path != self.path or loc.line is None or not (loc.line <= self.last and self.first <= loc.end):
            return False
        if self.obs is None or loc.obs is None:
            return True
        return loc.obs <= self.obs <= (loc.end_obs if loc.end_obs is not None else loc.obs)


@dataclass(frozen=True)
class Label:
    id: str
    kind: str
    sides: tuple[Side, Side]
    quotes: tuple[str, str]
    why: str


@dataclass(frozen=True)
class Labels:
    files: dict[str, dict[str, Any]]
    problems: list[Label]
    not_problems: list[Label]


def _side(item: dict[str, Any], other: bool) -> Side:
    prefix = "other_" if other else ""
    path = item.get(f"{prefix}path", item["path"]) if other else item["path"]
    first, last = item[f"{prefix}lines"]
    return Side(str(path), first, last, item.get(f"{prefix}obs"))


def to_label(item: dict[str, Any]) -> Label:
    return Label(str(item["id"]), str(item.get("kind", "")), (_side(item, False), _side(item, True)),
                 (str(item.get("quote", "")), str(item.get("other_quote", ""))), str(item.get("why", "")))


def _squash(text: str) -> str:
    return " ".join(text.split())


def _obs_texts(line: str) -> list[str]:
    """The observations of a one-line JSON entity, decoded (empty when the line is not one)."""
    try:
        doc = json.loads(line)
    except ValueError:
        return []
    obs = doc.get("observations") if isinstance(doc, dict) else None
    return [o if isinstance(o, str) else json.dumps(o) for o in obs] if isinstance(obs, list) else []


def _quote_errors(lid: str, side: Side, quote: str, lines: list[str]) -> list[str]:
    if not quote:
        return [f"{lid}: empty quote for {side.path}"]
    text = lines[side.first - 1:side.last]
    if side.obs is None:
        if _squash(quote) not in _squash(" ".join(text)):
            return [f"{lid}: quote {quote[:60]!r} not in {side.path}:{side.first}-{side.last}"]
        return []
    if side.first != side.last:
        return [f"{lid}: a side with obs must cover one line ({side.path}:{side.first}-{side.last})"]
    observations = _obs_texts(text[0])
    if observations and not 0 <= side.obs < len(observations):
        return [f"{lid}: obs {side.obs} out of range ({len(observations)} observations) at "
                f"{side.path}:{side.first}"]
    haystack = observations[side.obs] if observations else text[0]
    if _squash(quote) not in _squash(haystack):
        return [f"{lid}: quote {quote[:60]!r} not in {side.path}:{side.first} obs {side.obs}"]
    return []


def _read_lines(rel: str, cache: dict[str, list[str] | None]) -> list[str] | None:
    if rel not in cache:
        path = FILES_DIR / rel
        text = path.read_bytes().decode("utf-8", "replace") if path.is_file() else None
        # lines as the reader counts them: split at "\n" only (a stray "\r" stays in its line)
        cache[rel] = None if text is None else [line.removesuffix("\r") for line in text.split("\n")]
    return cache[rel]


def _side_errors(lid: str, side: Side, quote: str, cache: dict[str, list[str] | None]) -> list[str]:
    lines = _read_lines(side.path, cache)
    if lines is None:
        return [f"{lid}: no file {side.path} under files/"]
    if not (isinstance(side.first, int) and isinstance(side.last, int) and 1 <= side.first <= side.last):
        return [f"{lid}: bad range [{side.first}, {side.last}] for {side.path}"]
    if side.last > len(lines):
        return [f"{lid}: range [{side.first}, {side.last}] past the end of {side.path} ({len(lines)} lines)"]
    if side.obs is not None and (not isinstance(side.obs, int) or side.obs < 0):
        return [f"{lid}: bad obs {side.obs!r}"]
    return _quote_errors(lid, side, quote, lines)


def _item_errors(item: Any, is_problem: bool, cache: dict[str, list[str] | None]) -> list[str]:
    if not isinstance(item, dict) or "id" not in item:
        return [f"entry without an id: {str(item)[:80]}"]
    lid = str(item["id"])
    if is_problem and item.get("kind") not in KINDS:
        return [f"{lid}: bad kind {item.get('kind')!r}"]
    try:
        label = to_label(item)
    except (KeyError, TypeError, ValueError) as exc:
        return [f"{lid}: malformed entry ({exc!r})"]
    errors: list[str] = []
    for side, quote in zip(label.sides, label.quotes, strict=True):
        errors += _side_errors(lid, side, quote, cache)
    return errors


def _file_errors(files: Any) -> list[str]:
    if not isinstance(files, dict) or not files:
        return ["'files' must be a non-empty object"]
    errors = []
    for rel, meta in files.items():
        if not (FILES_DIR / rel).is_file():
            errors.append(f"files: no file {rel} under files/")
        if not isinstance(meta, dict) or not isinstance(meta.get("dated_log"), bool):
            errors.append(f"files: {rel} needs a boolean dated_log")
    return errors


def check_labels(doc: Any) -> list[str]:
    """Every problem of the label file, as readable lines (empty when it is valid)."""
    if not isinstance(doc, dict):
        return ["labels.json must hold an object"]
    errors = [] if doc.get("version") == 1 else ["version must be 1"]
    errors += _file_errors(doc.get("files"))
    cache: dict[str, list[str] | None] = {}
    seen: Counter[str] = Counter()
    for key, is_problem in (("problems", True), ("not_problems", False)):
        items = doc.get(key)
        if not isinstance(items, list):
            errors.append(f"'{key}' must be a list")
            continue
        for item in items:
            errors += _item_errors(item, is_problem, cache)
            if isinstance(item, dict):
                seen[str(item.get("id"))] += 1
    errors += [f"{lid}: id used {n} times" for lid, n in sorted(seen.items()) if n > 1]
    return errors


def load_labels(path: Path) -> tuple[Labels | None, list[str]]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return None, [f"cannot read {path}: {exc}"]
    errors = check_labels(doc)
    if errors:
        return None, errors
    return Labels(doc["files"], [to_label(p) for p in doc["problems"]],
                  [to_label(p) for p in doc["not_problems"]]), []


def only_folders(labels: Labels, folders: set[str]) -> Labels:
    def inside(label: Label) -> bool:
        return any(side.path.split("/", 1)[0] in folders for side in label.sides)

    files = {rel: meta for rel, meta in labels.files.items() if rel.split("/", 1)[0] in folders}
    problems = [p for p in labels.problems if inside(p)]
    return Labels(files, problems, [n for n in labels.not_problems if inside(n)])


def load_split(path: Path, folders: list[str]) -> tuple[dict[str, str], list[str]]:
    """Each folder's part ("dev" or "test") from split.json, and what is wrong with it: every
    folder of files/ is in exactly one part, and the split names no other folder."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        return {}, [f"{path}: {error}"]
    part_of: dict[str, str] = {}
    errors: list[str] = []
    for part in PARTS:
        for folder in doc.get(part, []):
            if folder in part_of:
                errors.append(f"{path}: {folder} is in both parts")
            part_of[folder] = part
    missing = sorted(set(folders) - set(part_of))
    extra = sorted(set(part_of) - set(folders))
    if missing:
        errors.append(f"{path}: folder(s) in no part: {missing}")
    if extra:
        errors.append(f"{path}: folder(s) not in files/: {extra}")
    return part_of, errors


# ----------------------------------------------------------------------------- scanning
@dataclass(frozen=True)
class Loc:
    path: str
    line: int | None
    obs: int | None
    end_line: int | None = None  # a copied block's region
    end_obs: int | None = None

    @property
    def end(self) -> int:
        return max(self.line or 0, self.end_line or 0)


@dataclass(frozen=True)
class Finding:
    rule: str
    severity: str
    loc: Loc
    related: tuple[Loc, ...]
    message: str

    def key(self) -> tuple[str, int, str, int, str]:
        return (self.loc.path, self.loc.line or 0, self.rule, -1 if self.loc.obs is None else self.loc.obs,
                repr(self.related) + self.message)


@dataclass
class FolderScan:
    folder: str
    findings: list[Finding] = field(default_factory=list)
    failure: str | None = None


def build_env(src: Path) -> dict[str, str]:
    env = dict(os.environ)
    parts = [str(src)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env["PYTHONPATH"] = os.pathsep.join(parts)
    env["PYTHONIOENCODING"] = "utf-8"
    return env


def package_importable(env: dict[str, str], src: Path) -> tuple[bool, str]:
    """The package imports, and from `src` (not from an installed copy)."""
    code = "import memory_autopsy; print(memory_autopsy.__file__)"
    proc = subprocess.run([sys.executable, "-c", code], env=env, cwd=FILES_DIR,
                          capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        return False, proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else "unknown error"
    where = Path(proc.stdout.strip()).resolve()
    if not where.is_relative_to(src):
        return False, f"it is imported from {where}, not from {src}"
    return True, ""


def _norm_path(path: object) -> str:
    text = str(path).replace("\\", "/")
    if Path(text).is_absolute():
        try:
            text = Path(text).resolve().relative_to(FILES_DIR.resolve()).as_posix()
        except ValueError:
            pass
    while text.startswith("./"):
        text = text[2:]
    return text


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _loc(item: dict[str, Any]) -> Loc:
    return Loc(_norm_path(item.get("path")), _int_or_none(item.get("line")), _int_or_none(item.get("obs")),
               _int_or_none(item.get("end_line")), _int_or_none(item.get("end_obs")))


def to_finding(item: dict[str, Any]) -> Finding:
    related = tuple(_loc(r) for r in item.get("related") or () if isinstance(r, dict))
    return Finding(str(item.get("rule")), str(item.get("severity")), _loc(item), related,
                   str(item.get("message", "")))


def run_scan(folder: str, fail_on: str, env: dict[str, str], timeout: float, engine: str = "heuristic") -> FolderScan:
    res = FolderScan(folder)
    cmd = [sys.executable, "-m", "memory_autopsy", "scan", folder, "--format", "json", "--fail-on", fail_on,
           "--no-grounding",  # copies of other repositories' memory: not this repository's
           "--engine", engine]
    report, res.failure = scan_json(cmd, FILES_DIR, env, timeout)
    if report is None:
        return res
    items = report["findings"]
    res.findings = [to_finding(item) for item in items if isinstance(item, dict)]
    return res


# ----------------------------------------------------------------------------- scoring
@dataclass
class Score:
    failing: Counter[str] = field(default_factory=Counter)
    tp: Counter[str] = field(default_factory=Counter)
    found: set[str] = field(default_factory=set)
    reported: set[str] = field(default_factory=set)
    paired: set[str] = field(default_factory=set)  # reported with both sides named
    counted: set[tuple[str, int]] = field(default_factory=set)
    false_alarms: list[Finding] = field(default_factory=list)
    np_reported: list[str] = field(default_factory=list)
    unsourced: Counter[str] = field(default_factory=Counter)
    failing_files: set[str] = field(default_factory=set)
    failures: list[tuple[str, str]] = field(default_factory=list)


def is_failing(finding: Finding, fail_on: str) -> bool:
    return RANK.get(finding.severity, -1) >= RANK[fail_on]


def hits(finding: Finding, problems: list[Label]) -> list[tuple[str, int]]:
    """The (problem, side) pairs the finding's locations fall in: own location first, label order."""
    out: list[tuple[str, int]] = []
    for loc in (finding.loc, *finding.related):
        for label in problems:
            out += [(label.id, i) for i, side in enumerate(label.sides) if side.holds(loc)]
    return out


def score_finding(score: Score, finding: Finding, problems: list[Label]) -> None:
    score.failing[finding.rule] += 1
    score.failing_files.add(finding.loc.path)
    pairs = hits(finding, problems)
    score.found.update(pid for pid, _ in pairs)
    fresh = [pair for pair in pairs if pair not in score.counted]
    if fresh:
        score.counted.add(fresh[0])
        score.tp[finding.rule] += 1
    else:
        score.false_alarms.append(finding)


def reports(finding: Finding, label: Label) -> bool:
    one, two = label.sides
    if one == two:
        return one.holds(finding.loc)
    for here, there in ((one, two), (two, one)):
        if here.holds(finding.loc) and any(there.holds(r) for r in finding.related):
            return True
    return False


def score_run(scans: list[FolderScan], labels: Labels, fail_on: str) -> Score:
    score = Score()
    failing: list[Finding] = []
    for scan in scans:
        if scan.failure is not None:
            score.failures.append((scan.folder, scan.failure))
        for finding in scan.findings:
            if finding.rule == "unsourced" and finding.loc.path in labels.files:
                score.unsourced[finding.loc.path] += 1
            if is_failing(finding, fail_on):
                failing.append(finding)
            if finding.rule in PROBLEM_RULES:
                ids = {pid for pid, _ in hits(finding, labels.problems)}
                score.reported.update(ids)
                score.paired.update(p.id for p in labels.problems if p.id in ids and reports(finding, p))
    failing.sort(key=Finding.key)
    for finding in failing:
        score_finding(score, finding, labels.problems)
    score.np_reported = [n.id for n in labels.not_problems if any(reports(f, n) for f in failing)]
    return score


# The rules that report a problem (not provenance, hygiene or input): a duplicate is an info by
# contract and fails no default run, but it does tell the user about the problem.
PROBLEM_RULES = frozenset({
    "duplicate", "near_duplicate", "contradicted_explicit", "contradicted_implicit", "likely_conflict",
    "stale", "status_conflict", "numeric_drift",
})


def ratio(num: int, den: int) -> float | None:
    return None if den == 0 else num / den


def rule_rows(score: Score) -> list[dict[str, Any]]:
    rows = []
    for rule in sorted(score.failing):
        n, tp = score.failing[rule], score.tp[rule]
        rows.append({"rule": rule, "failing": n, "tp": tp, "fp": n - tp, "precision": ratio(tp, n)})
    return rows


def kind_rows(score: Score, labels: Labels) -> list[dict[str, Any]]:
    rows = []
    for kind in KINDS:
        ids = [p.id for p in labels.problems if p.kind == kind]
        found = sum(1 for pid in ids if pid in score.reported)
        failing = sum(1 for pid in ids if pid in score.found)
        rows.append({"kind": kind, "problems": len(ids), "found": found, "recall": ratio(found, len(ids)),
                     "found_failing": failing})
    return rows


def clean_files(labels: Labels) -> list[str]:
    touched = {side.path for p in labels.problems for side in p.sides}
    return sorted(rel for rel in labels.files if rel not in touched)


def results(score: Score, labels: Labels, src: Path, fail_on: str) -> dict[str, Any]:
    failing, tp = sum(score.failing.values()), sum(score.tp.values())
    found = sum(1 for p in labels.problems if p.id in score.reported)
    found_failing = sum(1 for p in labels.problems if p.id in score.found)
    per_file = [score.unsourced[rel] for rel in labels.files]
    clean = clean_files(labels)
    return {
        "src": str(src), "fail_on": fail_on, "folders": None, "files": len(labels.files),
        "problems": len(labels.problems), "failing": failing, "tp": tp, "fp": failing - tp,
        "precision": ratio(tp, failing), "found": found, "recall": ratio(found, len(labels.problems)),
        "found_failing": found_failing, "recall_failing": ratio(found_failing, len(labels.problems)),
        "found_paired": sum(1 for p in labels.problems if p.id in score.paired),
        "rules": rule_rows(score), "kinds": kind_rows(score, labels),
        "not_problems": len(labels.not_problems), "not_problems_reported": score.np_reported,
        "unsourced_avg": ratio(sum(per_file), len(per_file)), "unsourced_max": max(per_file, default=0),
        "clean_files": len(clean), "clean_files_failing": sorted(set(clean) & score.failing_files),
        "scan_failures": [list(f) for f in score.failures],
        "false_alarms": [false_alarm(f) for f in score.false_alarms],
        "missed": [missed(p) for p in labels.problems if p.id not in score.reported],
    }


def false_alarm(f: Finding) -> dict[str, Any]:
    return {"rule": f.rule, "severity": f.severity, "path": f.loc.path, "line": f.loc.line, "obs": f.loc.obs,
            "message": f.message[:MESSAGE_CUT]}


def missed(p: Label) -> dict[str, Any]:
    side = p.sides[0]
    return {"id": p.id, "kind": p.kind, "path": side.path, "lines": [side.first, side.last],
            "quote": p.quotes[0]}


def threshold_misses(res: dict[str, Any], args: argparse.Namespace) -> list[str]:
    checks: tuple[tuple[str, float | None, bool], ...] = (
        ("precision", args.min_precision, True),
        ("recall", args.min_recall, True),
        ("unsourced_avg", args.max_unsourced, False),
    )
    out = []
    for key, limit, at_least in checks:
        val = res[key]
        if limit is None:
            continue
        if val is None or (val < limit if at_least else val > limit):
            out.append(f"{key} {_fmt(val)} is not {'>=' if at_least else '<='} {limit:g}")
    failing_clean = _count(res, "clean_files_failing")
    if args.max_clean_failing is not None and failing_clean > args.max_clean_failing:
        out.append(f"clean files failing {failing_clean} > {args.max_clean_failing}")
    if res["scan_failures"]:
        out.append(f"{len(res['scan_failures'])} scan failure(s)")
    return out


# ----------------------------------------------------------------------------- output
def _fmt(val: float | None) -> str:
    return "  n/a" if val is None else f"{val:.3f}"


def print_tables(res: dict[str, Any]) -> None:
    print(f"source: {res['src']}   fail-on: {res['fail_on']}   files: {res['files']}   "
          f"problems: {res['problems']}")
    if res.get("itemised") == "dev":
        print("tables below: the dev part only (the test part is reported by its figures alone)")
    head = f"\n{'rule':<24}{'failing':>8}{'TP':>5}{'FP':>5}{'precision':>11}"
    print(head)
    print("-" * (len(head) - 1))
    for row in res["rules"]:
        print(f"{row['rule']:<24}{row['failing']:>8}{row['tp']:>5}{row['fp']:>5}{_fmt(row['precision']):>11}")
    head = f"\n{'kind':<24}{'problems':>9}{'found':>7}{'recall':>9}{'by failing':>12}"
    print(head)
    print("-" * (len(head) - 1))
    for row in res["kinds"]:
        print(f"{row['kind']:<24}{row['problems']:>9}{row['found']:>7}{_fmt(row['recall']):>9}"
              f"{row['found_failing']:>12}")
    print(f"\noverall: precision {_fmt(res['precision'])} ({res['tp']}/{res['failing']} failing findings)   "
          f"recall {_fmt(res['recall'])} ({res['found']}/{res['problems']} problems reported; "
          f"{res['found_failing']} by failing findings, {res['found_paired']} naming both sides)")
    print(f"not_problems reported: {_count(res, 'not_problems_reported')}/{res['not_problems']}")
    print(f"unsourced per file: avg {_fmt(res['unsourced_avg'])}   max {res['unsourced_max']}")
    print(f"clean files failing: {_count(res, 'clean_files_failing')}/{res['clean_files']}")
    print(f"scan failures: {len(res['scan_failures'])}")
    for folder, why in res["scan_failures"]:
        print(f"  scan failed: {folder}: {why}")


def print_parts(res: dict[str, Any]) -> None:
    """One line per part: dev (tuned on) and test (reported only)."""
    if not res.get("parts"):
        return
    print()
    for part, got in res["parts"].items():
        print(f"{part:<5} ({got['folders']} folders, {got['files']} files, {got['problems']} problems): "
              f"precision {_fmt(got['precision'])} ({got['tp']}/{got['failing']})   "
              f"recall {_fmt(got['recall'])} ({got['found']}/{got['problems']})   "
              f"not_problems reported {_count(got, 'not_problems_reported')}/{got['not_problems']}   "
              f"clean files failing {_count(got, 'clean_files_failing')}/{got['clean_files']}")


def _count(got: dict[str, Any], key: str) -> int:
    return int(got.get(f"{key}_count", len(got[key])))


def print_show(res: dict[str, Any]) -> None:
    """The false alarms and misses of the dev part (the whole run when no split is in force):
    the test part's are never shown."""
    res = res.get("parts", {}).get("dev", res)
    print(f"\nfalse alarms: {len(res['false_alarms'])}")
    for fa in res["false_alarms"]:
        obs = "" if fa["obs"] is None else f" obs {fa['obs']}"
        print(f"  {fa['rule']:<22} {fa['path']}:{fa['line']}{obs}  -- {fa['message']}")
    print(f"\nmissed problems: {len(res['missed'])}")
    for miss in res["missed"]:
        first, last = miss["lines"]
        print(f"  {miss['id']:<34} {miss['kind']:<16} {miss['path']}:{first}-{last}  {miss['quote'][:100]!r}")
    print(f"\nnot_problems reported: {', '.join(res['not_problems_reported']) or '-'}")
    print(f"clean files failing: {', '.join(res['clean_files_failing']) or '-'}")


# ----------------------------------------------------------------------------- main
def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description="Score memory-autopsy against hand-labelled real memory files.")
    ap.add_argument("--src", type=Path, default=DEFAULT_SRC,
                    help=f"source tree to measure (default {DEFAULT_SRC})")
    ap.add_argument("--fail-on", choices=SEVERITIES, default="warning", help="lowest failing severity")
    ap.add_argument("--json", action="store_true", help="print machine-readable results")
    ap.add_argument("--engine", choices=("heuristic", "embed"), default="heuristic",
                    help="the engine scanned with (embed: the packaged static model unless OLLAMA_BASE_URL names a server)")
    ap.add_argument("--show", action="store_true",
                    help="list every false alarm and missed problem of the dev part (never the test part)")
    ap.add_argument("--folder", action="append", metavar="NAME",
                    help="scan only this folder (repeatable; for debugging)")
    ap.add_argument("--check", action="store_true", help="validate labels.json and exit; runs no scan")
    ap.add_argument("--labels", type=Path, default=LABELS, help=argparse.SUPPRESS)
    ap.add_argument("--split", type=Path, default=SPLIT, help=argparse.SUPPRESS)
    ap.add_argument("--strict", action="store_true", help="exit 1 when a given threshold is missed")
    ap.add_argument("--min-precision", type=float, metavar="F")
    ap.add_argument("--min-recall", type=float, metavar="F")
    ap.add_argument("--max-unsourced", type=float, metavar="F", help="average unsourced findings per file")
    ap.add_argument("--max-clean-failing", type=int, metavar="N")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per scan (default 300)")
    ap.add_argument("--jobs", type=int, default=4, help="scans run in parallel (default 4)")
    return ap.parse_args(argv)


def option_errors(args: argparse.Namespace) -> list[str]:
    errors = []
    for name in ("min_precision", "min_recall"):
        val = getattr(args, name)
        if val is not None and not 0 <= val <= 1:
            errors.append(f"--{name.replace('_', '-')} must be in [0, 1]")
    if (args.max_unsourced or 0) < 0 or (args.max_clean_failing or 0) < 0:
        errors.append("--max-unsourced and --max-clean-failing must not be negative")
    limits = (args.min_precision, args.min_recall, args.max_unsourced, args.max_clean_failing)
    if args.strict and all(v is None for v in limits):
        errors.append("--strict needs at least one of --min-precision, --min-recall, --max-unsourced, "
                      "--max-clean-failing")
    if args.jobs < 1 or args.timeout <= 0:
        errors.append("--jobs and --timeout must be positive")
    return errors


def pick_folders(wanted: list[str] | None) -> tuple[list[str], list[str]]:
    folders = sorted(p.name for p in FILES_DIR.iterdir() if p.is_dir())
    if not wanted:
        return folders, []
    unknown = sorted(set(wanted) - set(folders))
    return [f for f in folders if f in set(wanted)], [f"unknown folder(s): {unknown}"] if unknown else []


def fail(errors: list[str]) -> int:
    for err in errors:
        print(f"error: {err}", file=sys.stderr)
    return 2


def measure(args: argparse.Namespace, labels: Labels, folders: list[str]) -> dict[str, Any] | None:
    env = build_env(args.src)
    ok, why = package_importable(env, args.src)
    if not ok:
        fail([f"cannot import memory_autopsy from {args.src}: {why}"])
        return None
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        scans = list(pool.map(lambda f: run_scan(f, args.fail_on, env, args.timeout, args.engine), folders))
    res = results(score_run(scans, labels, args.fail_on), labels, args.src, args.fail_on)
    res["folders"] = folders if args.folder else None
    res["parts"] = {}
    for part in PARTS:
        inside = {f for f in folders if args.part_of.get(f) == part}
        if not inside:
            continue
        mine = only_folders(labels, inside)
        scored = results(score_run([s for s in scans if s.folder in inside], mine, args.fail_on), mine,
                         args.src, args.fail_on)
        scored["folders"] = len(inside)
        if part == "test":  # for reporting only: nothing of it is itemised, so nothing is tuned to
            scored = _figures_only(scored)
        res["parts"][part] = scored
    if "test" in res["parts"]:  # the whole run's tables and lists itemise the dev part only
        dev = res["parts"].get("dev") or {}
        res["not_problems_reported_count"] = len(res["not_problems_reported"])
        res["clean_files_failing_count"] = len(res["clean_files_failing"])
        for key in _ITEMISED:
            res[key] = dev.get(key, [])
        res["itemised"] = "dev"
    return res


# What names rules, kinds, files or labels: never shown for the test part, whose figures alone
# are reported (a per-rule table of the test part is as good as its false alarms for tuning).
_ITEMISED = ("rules", "kinds", "false_alarms", "missed", "not_problems_reported", "clean_files_failing")


def _figures_only(scored: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in scored.items() if k not in _ITEMISED}
    out["not_problems_reported_count"] = len(scored["not_problems_reported"])
    out["clean_files_failing_count"] = len(scored["clean_files_failing"])
    return out | {key: [] for key in _ITEMISED}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    args.src = args.src.resolve()
    labels, errors = load_labels(args.labels)
    if labels is None:
        return fail([f"{args.labels}: {len(errors)} problem(s)", *errors])
    args.part_of, split_errors = load_split(args.split, pick_folders(None)[0])
    if split_errors:
        return fail(split_errors)
    if args.check:
        print(f"labels OK: {len(labels.files)} files, {len(labels.problems)} problems, "
              f"{len(labels.not_problems)} not_problems; split OK: "
              + ", ".join(f"{sum(1 for p in args.part_of.values() if p == part)} {part}" for part in PARTS))
        return 0
    folders, bad = pick_folders(args.folder)
    errors = option_errors(args) + bad
    if errors:
        return fail(errors)
    if args.folder:
        labels = only_folders(labels, set(folders))
    res = measure(args, labels, folders)
    if res is None:
        return 2
    missed = threshold_misses(res, args) if args.strict else []
    res["thresholds_missed"] = missed
    if args.json:
        print(json.dumps(res, indent=2))
    else:
        print_tables(res)
        print_parts(res)
        if args.show:
            print_show(res)
        for line in missed:
            print(f"threshold missed: {line}")
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
