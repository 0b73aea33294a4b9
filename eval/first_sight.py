#!/usr/bin/env python3
"""First sight: how the judges fared on memory the engine had not yet been fitted to.

`calibrate.py` counts the judges on the dev part as the engine reads it now. Those counts are
fitted: a false alarm read on a dev store is fixed as a class, and the store then counts the
judge right. Each addition to the real eval was committed, labels included, before any change
it measured, so the engine at that commit had never been changed for its stores. Scanning the
addition's dev folders with that engine (its `src/` taken from git) and scoring the judged
findings against today's labels gives each description's precision on unseen memory.
`eval/real/first_sight.json` keeps those counts per addition; `calibrate.py` writes their sum
to judges.json, where a prose description fails a default run only if it was right on first
sight as well (engine/judges.py). The test part is never scanned.

    python eval/first_sight.py COMMIT...   # record these additions (the commits that added them)
    python eval/first_sight.py             # count every recorded addition again
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tarfile
import tempfile
from concurrent.futures import ThreadPoolExecutor
from io import BytesIO
from pathlib import Path
from typing import Any

import calibrate as cal
import run_real as rr

FIRST_SIGHT = rr.EVAL_DIR / "real" / "first_sight.json"
REPO = rr.EVAL_DIR.parent


def git(*args: str) -> bytes:
    result = subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, check=False)
    if result.returncode:
        raise SystemExit(f"git {' '.join(args)}: {result.stderr.decode(errors='replace').strip()}")
    return result.stdout


def folders_at(rev: str) -> set[str]:
    doc = json.loads(git("show", f"{rev}:eval/real/labels.json"))
    return {str(item["path"] if isinstance(item, dict) else item).split("/", 1)[0] for item in doc["files"]}


def addition(commit: str, part_of: dict[str, str], labels: rr.Labels, jobs: int, timeout: float) -> dict[str, Any]:
    """The dev folders `commit` added, scanned by the engine of that commit, and its judges' counts."""
    sha = git("rev-parse", "--verify", f"{commit}^{{commit}}").decode().strip()
    added = sorted((folders_at(sha) - folders_at(f"{sha}^")) & set(part_of))
    dev = [folder for folder in added if part_of[folder] == "dev"]
    with tempfile.TemporaryDirectory(prefix="first-sight-") as tmp:
        with tarfile.open(fileobj=BytesIO(git("archive", "--format=tar", sha, "src")), mode="r:") as tar:
            if hasattr(tarfile, "data_filter"):
                tar.extractall(tmp, filter="data")
            else:  # Python before 3.10.12: the archive is this repository's own history
                tar.extractall(tmp)
        env = rr.build_env(Path(tmp) / "src")
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            items = [i for found in pool.map(lambda f: cal.scan(f, env, timeout), dev) for i in found]
    return {"commit": sha, "folders": dev, "counts": cal.counts(items, rr.only_folders(labels, set(dev)))}


def dump(additions: list[dict[str, Any]]) -> str:
    """One line per folder list and per description, so that a recount reads as a small diff."""
    parts = []
    for a in additions:
        counts = ",\n".join(f"    {json.dumps(key)}: {json.dumps(value)}" for key, value in sorted(a["counts"].items()))
        parts.append(f'  {{\n   "commit": {json.dumps(a["commit"])},\n   "folders": {json.dumps(a["folders"])},\n'
                     f'   "counts": {{\n{counts}\n   }}\n  }}')
    text = '{\n "additions": [\n' + ",\n".join(parts) + "\n ]\n}\n"
    assert json.loads(text) == {"additions": additions}
    return text


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("commits", nargs="*", help="commits that added stores to the eval (default: every recorded one)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=300.0)
    args = ap.parse_args(argv)
    labels, part_of = cal.labels_and_split()
    recorded = json.loads(FIRST_SIGHT.read_text("utf-8"))["additions"] if FIRST_SIGHT.exists() else []
    wanted = args.commits or [a["commit"] for a in recorded]
    done = {a["commit"]: a for a in recorded}
    for commit in wanted:
        counted = addition(commit, part_of, labels, args.jobs, args.timeout)
        done[counted["commit"]] = counted
        print(f"{counted['commit'][:10]}: {len(counted['folders'])} dev folders, "
              f"{sum(r + w for k, (r, w, _) in counted['counts'].items() if k.count('/') == 1)} judged findings")
    order = [line.decode() for line in git("rev-list", "--reverse", "HEAD").splitlines()]
    additions = sorted(done.values(), key=lambda a: order.index(a["commit"]) if a["commit"] in order else len(order))
    FIRST_SIGHT.write_text(dump(additions), encoding="utf-8")
    print(f"written: {FIRST_SIGHT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
