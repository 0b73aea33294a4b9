#!/usr/bin/env python3
"""Fit the judges (src/memory_autopsy/lexicon/judges.json) on the dev part of the real eval.

Every dev folder is scanned as `run_real.py` scans it; each comparison finding names its
description (`judge` in the JSON output: rule[/how]/order/place/evidence). A finding is right
when it is the first to name a side of a labelled problem (`run_real.py`'s scoring, in its
order), and wrong otherwise. The counts of right and wrong findings per description and per
coarser level (rule[/how]/order/evidence, rule[/how]/evidence, rule/evidence:
engine/judges.keys_of), and the number of repositories they came from, are written to
judges.json; the engine turns them into severities (engine/judges.py). The grounding layer's
findings are counted on the dev part of the grounding eval (eval/grounding, as
`run_grounding.py` scores them: right when they name a rotted claim), per rule/how/repository
and rule/repository. The counts of first sight (`eval/real/first_sight.json`: each addition's
dev folders as the engine of its commit read them, before any change they prompted;
`first_sight.py` counts them) are summed into judges.json's `first_sight`: a prose description
fails a default run only when it holds there too. The test parts are never scanned here.

    python eval/calibrate.py            # print the counts and what they decide
    python eval/calibrate.py --write    # and write them to judges.json
    python eval/calibrate.py --check    # exit 1 when judges.json is not what is counted now
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import run_grounding as rg
import run_real as rr

from memory_autopsy.engine.judges import REPOSITORY, Judges, as_counts, grounding_keys, keys_of

JUDGES = rr.EVAL_DIR.parent / "src" / "memory_autopsy" / "lexicon" / "judges.json"


def scan(folder: str, env: dict[str, str], timeout: float) -> list[dict[str, Any]]:
    cmd = [sys.executable, "-m", "memory_autopsy", "scan", folder, "--format", "json", "--fail-on", "info", "--no-grounding"]
    report, failure = rr.scan_json(cmd, rr.FILES_DIR, env, timeout)
    if report is None:
        raise SystemExit(f"scan failed: {folder}: {failure}")
    return [item for item in report["findings"] if isinstance(item, dict) and item.get("judge")]


def levels(judge: str) -> tuple[str, ...]:
    """The description and its coarser levels, as engine/judges.keys_of names them."""
    parts = judge.split("/")
    order, place, evidence = parts[-3:]
    return keys_of(parts[0], "/".join(parts[1:-3]), order, place, evidence)


def counts(items: list[dict[str, Any]], labels: rr.Labels) -> dict[str, list[int]]:
    """[right, wrong, repositories] per description; a finding's repository is its folder."""
    judged = sorted(((rr.to_finding(item), item["judge"]) for item in items), key=lambda pair: pair[0].key())
    counted: set[tuple[str, int]] = set()
    out: Counter[tuple[str, bool]] = Counter()
    seen: dict[str, set[str]] = {}
    for finding, judge in judged:
        fresh = [pair for pair in rr.hits(finding, labels.problems) if pair not in counted]
        if fresh:
            counted.add(fresh[0])
        for key in dict.fromkeys(levels(judge)):
            out[key, bool(fresh)] += 1
            seen.setdefault(key, set()).add(finding.loc.path.split("/", 1)[0])
    return {key: [out[key, True], out[key, False], len(seen[key])] for key in sorted(seen)}


def grounding_counts() -> tuple[dict[str, list[int]], int]:
    """Right and wrong grounding findings per description on the grounding eval's dev part."""
    dev = json.loads((rg.DATA / "split.json").read_text("utf-8"))["dev"]
    out: Counter[tuple[str, bool]] = Counter()
    seen: dict[str, set[str]] = {}
    for name in dev:
        result = rg.score(rg.DATA / "repos" / name, rr.DEFAULT_SRC)
        for right, found in ((True, result["right"]), (False, result["wrong"])):
            for item in found:  # type: ignore[attr-defined]
                rule, how, _ = str(item["judge"]).split("/")
                for key in grounding_keys(rule, how):
                    out[key, right] += 1
                    seen.setdefault(key, set()).add(name)
    return {key: [out[key, True], out[key, False], len(seen[key])] for key in sorted(seen)}, len(dev)


def labels_and_split() -> tuple[rr.Labels, dict[str, str]]:
    """The labels and each folder's part (in the order of `files/`), or the reasons they are unusable."""
    labels, errors = rr.load_labels(rr.LABELS)
    if labels is None:
        raise SystemExit("\n".join(errors))
    part_of, errors = rr.load_split(rr.SPLIT, rr.pick_folders(None)[0])
    if errors:
        raise SystemExit("\n".join(errors))
    return labels, part_of


def first_sight() -> dict[str, list[int]]:
    """[right, wrong, repositories] per description, summed over the recorded additions."""
    path = rr.EVAL_DIR / "real" / "first_sight.json"
    total: dict[str, list[int]] = {}
    for addition in json.loads(path.read_text("utf-8"))["additions"]:
        for key, counted in addition["counts"].items():
            total[key] = [a + b for a, b in zip(total.get(key, [0, 0, 0]), counted)]
    return dict(sorted(total.items()))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write", action="store_true", help=f"write the counts to {JUDGES}")
    ap.add_argument("--check", action="store_true", help="exit 1 when judges.json is not what the engine counts now")
    ap.add_argument("--jobs", type=int, default=4)
    ap.add_argument("--timeout", type=float, default=300.0)
    args = ap.parse_args(argv)
    labels, part_of = labels_and_split()
    dev = [f for f, part in part_of.items() if part == "dev"]
    labels = rr.only_folders(labels, set(dev))
    env = rr.build_env(rr.DEFAULT_SRC)
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        items = [i for found in pool.map(lambda f: scan(f, env, args.timeout), dev) for i in found]
    data = json.loads(JUDGES.read_text(encoding="utf-8"))
    fitted = counts(items, labels)
    grounded, repositories = grounding_counts()
    fitted.update(grounded)
    seen = first_sight()
    if args.check:
        stale = [(part, k, was.get(k), now.get(k)) for part, was, now in
                 (("counts", data["counts"], fitted), ("first_sight", data.get("first_sight", {}), seen))
                 for k in sorted(set(was) | set(now)) if was.get(k) != now.get(k)]
        for part, key, was, now in stale:
            print(f"{part} {key}: judges.json {was}, counted now {now}")
        return 1 if stale else 0
    data["counts"] = fitted
    data["first_sight"] = seen
    data["fitted_on"] = (f"the dev part of eval/real ({len(dev)} repositories, "
                         f"{sum(1 for f in labels.files)} files, {len(labels.problems)} problems); grounding "
                         f"findings ({REPOSITORY}) on the dev part of eval/grounding ({repositories} repositories)")
    judges = Judges(as_counts(fitted), float(data["min_precision"]), int(data["min_support"]),
                    int(data["min_repositories"]), as_counts(seen))
    print(f"{'description':<58}{'now':>15}{'first sight':>15}")
    for key, (tp, fp, repositories) in fitted.items():
        decided, keeps = judges.verdict((key,), records=key.endswith("/records"))
        ftp, ffp, frepositories = seen.get(key, [0, 0, 0])
        print(f"{key:<58}{tp:>5}{fp:>5}{repositories:>4}{ftp:>6}{ffp:>5}{frepositories:>4}  "
              f"{'too few' if not decided else 'keeps' if keeps else 'review'}")
    if args.write:
        JUDGES.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
        print(f"written: {JUDGES}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
