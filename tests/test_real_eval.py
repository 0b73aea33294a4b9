"""The real-memory eval gates the engine: labels stay valid, scans succeed, figures hold the gate."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from conftest import ROOT

EVAL = ROOT / "eval"
GATE = EVAL / "real" / "gate.json"
MIN_DATED_SHARE = 0.80


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
    gate = json.loads(GATE.read_text(encoding="utf-8"))
    res = run_json("run_real.py")
    assert res["scan_failures"] == []
    assert res["precision"] is not None and res["precision"] >= gate["min_precision"], res["precision"]
    assert res["recall"] is not None and res["recall"] >= gate["min_recall"], res["recall"]
    assert res["unsourced_avg"] <= gate["max_unsourced"], res["unsourced_avg"]
    assert res["clean_files_failing"] == [], res["clean_files_failing"]  # no labelled problem, no failure


def test_dated_logs_are_read_with_their_dates() -> None:
    res = run_json("reading.py")
    assert res["load_failures"] == []
    share = res["weighted_share"]
    assert share is not None and share >= MIN_DATED_SHARE, share
