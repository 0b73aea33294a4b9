"""The repository holds itself to its own style: ruff and strict mypy stay clean."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

from conftest import ROOT, SRC


@pytest.mark.skipif(importlib.util.find_spec("ruff") is None, reason="ruff is in the test extra")
def test_ruff_is_clean() -> None:
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "src", "tests", "bench", "eval"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None, reason="mypy is in the test extra")
def test_mypy_strict_is_clean() -> None:
    done = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]


def test_the_layers_keep_their_imports() -> None:
    """import-linter contracts in pyproject.toml: the engine and the readers never import front
    ends or formatters; the verdict and CI layers never import the public API (no api <-> gate
    cycle) or the agent front ends."""
    code = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"
    done = subprocess.run([sys.executable, "-c", code, "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
                          cwd=ROOT, env={**os.environ, "PYTHONPATH": str(SRC)}, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "3 kept, 0 broken" in done.stdout
