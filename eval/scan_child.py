"""Run one `memory-autopsy scan … --json` child and read its report (shared by the evals)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any


def scan_json(
    cmd: list[str], cwd: Path | str, env: dict[str, str], timeout: float
) -> tuple[dict[str, Any] | None, str | None]:
    """(the JSON report, None), or (None, why the scan failed): exit 0 and 1 are both a run."""
    try:
        proc = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return None, f"timeout after {timeout:g}s"
    stdout = proc.stdout.decode("utf-8", "replace")
    stderr = proc.stderr.decode("utf-8", "replace").strip()
    if proc.returncode not in (0, 1):
        return None, f"exit {proc.returncode}: {stderr[-300:] or stdout[-300:] or '(no output)'}"
    try:
        report = json.loads(stdout)
        if not isinstance(report, dict) or not isinstance(report["findings"], list):
            raise TypeError("findings is not a list")
    except (ValueError, KeyError, TypeError) as exc:
        return None, f"non-JSON or malformed output ({exc}): {stdout[:200]!r} {stderr[-200:]!r}"
    return report, None
