"""The API reads one path as one path: a string or a pathlib.Path names a file or a folder, never
a list of its characters ("/tmp/x" read as "/", "t", "m", … would walk the whole disk)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import write
from memory_autopsy import api

STATE = "# Active Context\n\n## Current\n- The job queue runs on Redis\n- The API is served by FastAPI\n"


@pytest.fixture()
def store(tmp_path: Path) -> Path:
    write(tmp_path / "memory-bank" / "activeContext.md", STATE)
    return tmp_path / "memory-bank"


@pytest.mark.parametrize("shape", ["str", "path", "list of str", "list of path", "tuple"])
def test_load_store_takes_one_path_or_several(store: Path, shape: str) -> None:
    given = {"str": str(store), "path": store, "list of str": [str(store)], "list of path": [store],
             "tuple": (str(store),)}[shape]
    loaded = api.load_store(given)
    assert sorted({fact.path for fact in loaded.facts}) == [str(store / "activeContext.md")]
    assert {fact.claim for fact in loaded.facts} >= {"The job queue runs on Redis", "The API is served by FastAPI"}


@pytest.mark.parametrize("shape", ["str", "path", "list of path"])
def test_lint_takes_one_path_or_several(store: Path, shape: str) -> None:
    given = {"str": str(store), "path": store, "list of path": [store]}[shape]
    report = api.lint(given)
    assert report.paths == (str(store / "activeContext.md"),)
    assert "The job queue runs on Redis" in {fact.claim for fact in report.facts}


def test_a_missing_path_given_as_a_string_is_one_problem(tmp_path: Path) -> None:
    loaded = api.load_store(str(tmp_path / "nowhere"))
    assert not loaded.facts
    assert len(loaded.problems) == 1 and "nowhere" in str(loaded.problems[0])
