"""Detection quality is gated by the eval: every declared target must hold."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def test_eval_strict_passes() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "eval" / "run_eval.py"), "--strict"],
        capture_output=True, text=True, timeout=900,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "all declared targets met" in done.stdout
