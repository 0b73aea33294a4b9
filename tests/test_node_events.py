"""Two graph nodes of one store holding one piece of work twice, told with another verb of doing
it ("Updated test_utils.py to test methods on PageGenerator instance" on one node, "Refactored
test_utils.py to test …" on another) are one claim stored twice (`near_duplicate`): the
participle's object is a named thing of code, so the observation is about that thing, not a
description of the node it sits on. Quiet: a participle with no named object ("Updated to use the
Alert component" on two components: each node was updated), two named things ("Updated
test_utils.py" / "Updated test_views.py …") and a node description each node fits."""

from __future__ import annotations

import json
from itertools import product
from pathlib import Path

import pytest

from conftest import findings_of, write

OBJECTS = ["test_utils.py", "src/lib/session.ts", "PageGenerator", "page_generator", "`renderMesh`"]
TAILS = ["to test methods on the generator instance", "to read the cached layout before each render"]
VERBS = [("Updated", "Refactored"), ("Modified", "Updated"), ("Refactored", "Improved")]
ENTITIES = [("First1KGreek Test Updates", "Test Suite Architecture Updates"), ("Render Fixes", "Editor Session")]


def _graph(root: Path, first: str, second: str, names: tuple[str, str]) -> list[dict]:
    rows = [{"type": "entity", "name": names[0], "entityType": "testing", "observations": ["Reviewed in March", first]},
            {"type": "entity", "name": names[1], "entityType": "testing", "observations": [second, "Written in Python"]}]
    write(root / "memory.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    return [f for f in findings_of(root, "near_duplicate") if "in other words" in f["message"]]


@pytest.mark.parametrize(("obj", "tail", "verbs", "names"), list(product(OBJECTS, TAILS, VERBS, ENTITIES)))
def test_one_piece_of_work_on_two_nodes_is_stored_twice(
    tmp_path: Path, obj: str, tail: str, verbs: tuple[str, str], names: tuple[str, str],
) -> None:
    found = _graph(tmp_path, f"{verbs[0]} {obj} {tail}", f"{verbs[1]} {obj} {tail}", names)
    assert len(found) == 1 and found[0]["related"], found


QUIET = [
    ("Updated to use the Alert component for the dialog actions", "Updated to use the Alert component for the dialog actions now"),
    ("Updated test_utils.py to test methods on the generator instance",
     "Updated test_views.py to test methods on the generator instance"),
    ("Located in src/components with its own translation files", "Located in src/components with its own translations"),
]


@pytest.mark.parametrize(("pair", "names"), list(product(QUIET, ENTITIES)))
def test_a_description_each_node_fits_stays_quiet(tmp_path: Path, pair: tuple[str, str], names: tuple[str, str]) -> None:
    assert _graph(tmp_path, *pair, names) == []
