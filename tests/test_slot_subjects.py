"""One slot, two subjects: claims under one heading (or of one graph entity) that each name a
subject of their own before the verb ("The API runs on Node 18" / "The web app runs on Node 20")
are about two things, and their two values are no change of one. Claims whose subjects are one
thing, or that name none besides their entity ("Uses Node 20"), are still compared. Generated:
every pair of subjects × every verb frame × every store shape, in one scan."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run_cli

SUBJECTS = [("The API", "The web app"), ("The frontend", "The backend"), ("The worker", "The scheduler"),
            ("The admin panel", "The storefront"), ("The web app", "The mobile app")]
FRAMES = [("runs on", "Node 18", "Node 20"), ("uses", "Django 4.2", "Django 5.0"),
          ("is hosted on", "Heroku", "Fly.io"), ("is deployed to", "us-east-1", "eu-west-1"),
          ("is written in", "Python 3.11", "Python 3.12")]
# the same subject twice, or a side that names none besides its entity: one thing, two values
SAME = [("The API", "The API"), ("The API", "The API service"), ("", "The API")]


def _claim(subject: str, frame: str, value: str) -> str:
    return f"{subject} {frame} {value}" if subject else f"{frame.capitalize()} {value}"


def _pairs() -> list[tuple[str, str, bool]]:
    """(older claim, newer claim, whether they are one thing's two values). Each pair names its
    own release train, so that no two pairs repeat a claim (a copy is another rule's)."""
    found = [(a, b, frame, old, new, same) for same, subjects in ((False, SUBJECTS), (True, SAME))
             for a, b in subjects for frame, old, new in FRAMES]
    return [(f"{_claim(a, frame, old)} (train {n})", f"{_claim(b, frame, new)} (train {n})", same)
            for n, (a, b, frame, old, new, same) in enumerate(found)]


def _files() -> dict[str, str]:
    """Every pair in every shape: under a heading of its own, in a dated log file of its own, as
    one graph entity's two observations (each shape's entities named apart)."""
    files: dict[str, str] = {"notes/sections.md": "# Services\n\n"}
    graph = []
    for n, (older, newer, _) in enumerate(_pairs()):
        files["notes/sections.md"] += f"## Part {n}\n\n- {older}\n- {newer}\n\n"
        files[f"log/history_{n}.md"] = f"# Log {n}\n\n## 2026-01-10\n\n- {older}\n\n## 2026-03-02\n\n- {newer}\n"
        graph.append(json.dumps({"type": "entity", "name": f"Component {n}", "entityType": "component",
                                 "observations": [older, newer]}))
    files["memory.jsonl"] = "".join(row + "\n" for row in graph)
    return files


def _where(n: int) -> dict[str, tuple[str, int]]:
    """Where the older claim of pair `n` is, per shape."""
    return {"sections": ("notes/sections.md", 3 + 5 * n + 2), "log": (f"log/history_{n}.md", 5),
            "graph": ("memory.jsonl", n + 1)}


def test_two_subjects_of_one_slot_are_two_things_and_one_subject_is_still_compared(tmp_path: Path) -> None:
    for name, text in _files().items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text, encoding="utf-8")
    code, out, err = run_cli("scan", ".", "--json", "--fail-on", "never", "--no-grounding", cwd=tmp_path)
    assert code == 0, err
    compared = {"stale", "contradicted_implicit", "likely_conflict"}
    flagged = {(f["path"], f["line"]) for f in json.loads(out)["findings"] if f["rule"] in compared}
    wrong = []
    for n, (older, newer, same) in enumerate(_pairs()):
        for shape, place in _where(n).items():
            lines = {place} if shape != "sections" else {place, (place[0], place[1] + 1)}
            if bool(lines & flagged) != same:
                wrong.append(f"{shape}: {older!r} / {newer!r} {'missed' if same else 'flagged'}")
    assert wrong == [], "\n".join(wrong)


def test_the_matrix_covers_both_sides() -> None:
    pairs = _pairs()
    assert sum(not same for *_, same in pairs) * 3 >= 60 and sum(same for *_, same in pairs) * 3 >= 45
