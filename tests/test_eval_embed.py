"""The eval's embed column, measured against the deterministic stand-in embedding server."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def test_eval_embed_column_meets_targets(tmp_path) -> None:  # type: ignore[no-untyped-def]
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "eval" / "embed_server.py"), "--port", "0"],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert server.stdout is not None
        url = server.stdout.readline().strip().split()[-1]
        assert url.startswith("http://127.0.0.1:")
        done = subprocess.run(
            [sys.executable, str(ROOT / "eval" / "run_eval.py"), "--engine", "embed",
             "--embed-url", url, "--strict"],
            capture_output=True, text=True, timeout=900,
        )
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "engine: embed" in done.stdout and "all declared targets met" in done.stdout
