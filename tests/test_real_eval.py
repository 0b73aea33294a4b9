"""The real-memory eval gates the engine: labels stay valid, scans succeed, figures hold the gate."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from conftest import ROOT

EVAL = ROOT / "eval"
GATE = EVAL / "real" / "gate.json"


def run_script(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(EVAL / name), *args],
                          capture_output=True, text=True, timeout=900)


def run_json(name: str) -> dict[str, Any]:
    done = run_script(name, "--json")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_labels_are_valid() -> None:
    done = run_script("run_real.py", "--check")
    assert done.returncode == 0, done.stdout + done.stderr


def test_real_eval_holds_the_gate() -> None:
    """Each part holds its floor; the test part's misses are never listed (nothing to tune to)."""
    gate = json.loads(GATE.read_text(encoding="utf-8"))
    res = run_json("run_real.py")
    assert res["scan_failures"] == []
    for part in ("dev", "test"):
        got, floor = res["parts"][part], gate[part]
        # A part that fails no finding has no precision to fall: its false alarms are the guard.
        assert (1.0 if got["precision"] is None else got["precision"]) >= floor["min_precision"], (part, got["precision"])
        assert got["recall"] is not None and got["recall"] >= floor["min_recall"], (part, got["recall"])
        assert got["fp"] <= floor["max_false_alarms"], (part, got["fp"])
    assert res["unsourced_avg"] <= gate["max_unsourced"], res["unsourced_avg"]
    assert res["clean_files_failing_count"] <= gate["max_clean_files_failing"], res["clean_files_failing"]


def test_the_test_part_is_never_itemised() -> None:
    """No rule table, false alarm, miss, label id or file name of the test part, in the part or
    in the whole run's lists: its figures alone are reported, so nothing can be tuned to it."""
    res = run_json("run_real.py")
    test = res["parts"]["test"]
    for key in ("rules", "kinds", "false_alarms", "missed", "not_problems_reported", "clean_files_failing"):
        assert test[key] == [], key
    split = json.loads((GATE.parent / "split.json").read_text(encoding="utf-8"))
    hidden = tuple(f"{folder}/" for folder in split["test"])
    listed = [item["path"] for key in ("false_alarms", "missed") for item in res[key]]
    listed += res["clean_files_failing"] + [i for i in res["not_problems_reported"] if i.startswith(hidden)]
    assert not [p for p in listed if p.startswith(hidden)], listed
    assert res["failing"] > res["parts"]["dev"]["failing"]  # the figures still cover both parts


def test_dated_logs_are_read_with_their_dates() -> None:
    gate = json.loads(GATE.read_text(encoding="utf-8"))
    res = run_json("reading.py")
    assert res["load_failures"] == []
    share = res["weighted_share"]
    assert share is not None and share >= gate["min_dated_share"], share
