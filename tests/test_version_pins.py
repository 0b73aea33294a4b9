"""A thing pinned to a version with no verb frame written ("The cache runs Redis 6", "Node
version 18", "pydantic v1 for the models") is a slot like "We use Django
4.2": a later version of the same thing is `stale`, in a section, a dated log and a graph
entity. Generated: every phrasing in every shape. The value is typed, a name and its version,
so look-alikes stay silent: two subjects, two qualifiers, a schedule ("runs every 5 minutes"),
a unit of work ("runs step 3"), a name that is the subject of another verb ("Spec v1
describes the sync"), a range, a matrix, a plan, a question, a negation."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import run_cli, write

BUMPS = {
    "runs": ("The cache runs Redis {v}", ("6", "7")),
    "runs with v": ("The worker runs Celery v{v}", ("4", "5")),
    "version word": ("Node version {v}", ("18", "20")),
    "v prefix": ("pydantic v{v} for the models", ("1", "2")),
    "v prefix, dotted": ("Tailwind v{v} for styling", ("3.3", "4.0")),
    "uses": ("We use Django {v}", ("4.2", "5.0")),
}
LOOK_ALIKES = {
    "two subjects": ("The cache runs Redis 6", "The queue runs Redis 7"),
    "two qualifiers": ("pydantic v1 for the models", "pydantic v2 for the CLI"),
    "a trailing word": ("Node version 18 in CI", "Node version 20 locally"),
    "a schedule": ("The backup runs every 5 minutes", "The backup runs every 10 minutes"),
    "a unit of work": ("The job runs step 3 after the build", "The job runs step 4 after the tests"),
    "another verb": ("Spec v1 describes the sync", "Spec v2 describes the export"),
    "a range": ("Supports Python 3.10 to 3.12", "Python 3.12 in CI"),
    "a matrix": ("Tested on Python 3.10", "Tested on Python 3.12"),
    "a plan": ("The cache runs Redis 6", "Plan to upgrade the cache to Redis 7 next quarter"),
    "a question": ("The cache runs Redis 6", "Should we move the cache to Redis 7?"),
    "a negation": ("The cache runs Redis 6", "The cache does not run Redis 7 yet"),
    "two names": ("Uses Vue 3 for the admin", "Uses Vite 5 for builds"),
}


def _bullets(a: str, b: str) -> dict[str, str]:
    return {"memory-bank/techContext.md": f"# Tech Context\n\n## Stack\n\n- {a}\n- {b}\n"}


def _dated(a: str, b: str) -> dict[str, str]:
    return {"memory-bank/progress.md": f"# Progress\n\n## 2026-01-10\n\n- {a}\n\n## 2026-03-02\n\n- {b}\n"}


def _graph(a: str, b: str) -> dict[str, str]:
    node = {"type": "entity", "name": "Stack", "entityType": "system", "observations": [a, b]}
    return {"memory.jsonl": json.dumps(node) + "\n"}


SHAPES: dict[str, Callable[[str, str], dict[str, str]]] = {"bullets": _bullets, "dated log": _dated, "graph": _graph}


def stale(root: Path, a: str, b: str, shape: str) -> list[dict[str, object]]:
    for name, text in SHAPES[shape](a, b).items():
        write(root / name, text)
    result = run_cli("scan", str(root), "--json", "--fail-on", "never", "--no-grounding")
    return [f for f in json.loads(result.out)["findings"]
            if f["rule"] == "stale" or f["rule"] in ("contradicted_implicit", "likely_conflict")]


@pytest.mark.parametrize(("phrasing", "shape"), list(itertools.product(BUMPS, SHAPES)))
def test_a_later_version_of_a_pinned_thing_is_stale(tmp_path: Path, phrasing: str, shape: str) -> None:
    template, (old, new) = BUMPS[phrasing]
    found = stale(tmp_path, template.format(v=old), template.format(v=new), shape)
    assert [f["rule"] for f in found] == ["stale"], found
    assert found[0]["line"] in (5, 6, 1) and old in str(found[0]["message"])


@pytest.mark.parametrize(("case", "shape"), list(itertools.product(LOOK_ALIKES, SHAPES)))
def test_look_alikes_of_a_pin_stay_silent(tmp_path: Path, case: str, shape: str) -> None:
    assert stale(tmp_path, *LOOK_ALIKES[case], shape) == []
