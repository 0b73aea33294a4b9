"""Two claims of one memory store in the three shapes a pair rule must read alike: two files of
a memory bank, two headings of one file, two observations of one graph entity (or, for a rule
that compares a store's subjects, two entities). Each builder
writes the store under `folder` and returns the paths to scan."""

from __future__ import annotations

import json
from pathlib import Path


def two_files(folder: Path, a: str, b: str) -> list[str]:
    (folder / "memory-bank").mkdir()
    (folder / "memory-bank" / "techContext.md").write_text(f"# Tech\n\n## Stack\n- {a}\n", encoding="utf-8")
    (folder / "memory-bank" / "systemPatterns.md").write_text(f"# Patterns\n\n## Conventions\n- {b}\n", encoding="utf-8")
    return [str(folder / "memory-bank")]


def two_headings(folder: Path, a: str, b: str) -> list[str]:
    path = folder / "CLAUDE.md"
    path.write_text(f"# Notes\n\n## Decisions\n- {a}\n- Keep the changelog current\n\n## Conventions\n- {b}\n",
                    encoding="utf-8")
    return [str(path)]


def one_entity(folder: Path, a: str, b: str) -> list[str]:
    path = folder / "memory.jsonl"
    entity = {"type": "entity", "name": "WebApp", "entityType": "project", "observations": [a, "Owned by the web team", b]}
    path.write_text(json.dumps(entity) + "\n", encoding="utf-8")
    return [str(path)]


def two_entities(folder: Path, a: str, b: str) -> list[str]:
    """One store's claims on two subjects of a graph: a tool the backend and the deployment name."""
    path = folder / "memory.jsonl"
    entities = [{"type": "entity", "name": name, "entityType": "component", "observations": [text]}
                for name, text in (("Backend", a), ("Deployment", b))]
    path.write_text("".join(json.dumps(e) + "\n" for e in entities), encoding="utf-8")
    return [str(path)]


SHAPES = {"two files of one store": two_files, "two headings of one file": two_headings,
          "one graph entity": one_entity}
