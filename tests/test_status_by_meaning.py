"""A task still pending in one place and done in another, in other words ("Distributed tracing
with OpenTelemetry and Jaeger" still to do, "Jaeger tracing through OpenTelemetry running for
every service" recorded done): the static model proposes the pair and it is a `status_conflict`
at `review`, in every shape a store takes. The words alone do not find it. Left alone: another
task, a task opened again after it was done, and two items of one list (whatever the words
alone make of those)."""

from __future__ import annotations

from itertools import product
from pathlib import Path

import pytest

from memory_autopsy.api import lint
from memory_autopsy.settings import EmbedSettings, Settings

SAID_APART = [
    ("Distributed tracing with OpenTelemetry and Jaeger", "Jaeger spans exported by the OpenTelemetry collector for every service"),
    ("Containerize the API with Docker", "Docker image for the API service published"),
]
# Most of the task's words said again (three of four): the word index finds these itself, and
# the layer of meaning adds nothing.
SAID_CLOSE = [
    ("Distributed tracing with OpenTelemetry and Jaeger", "Jaeger tracing through OpenTelemetry running for every service"),
    ("Stripe webhook signature verification", "Verifying Stripe webhook signatures before processing events"),
    ("Sentry error monitoring in production", "Production errors reported to Sentry"),
    ("Internationalization with French and German translations", "French and German locales translated and shipped"),
]


def _memory_bank(root: Path, pending: str, done: str) -> list[str]:
    (root / "memory-bank").mkdir()
    (root / "memory-bank" / "activeContext.md").write_text(f"# Active Context\n\n## Next Steps\n- [ ] {pending}\n", "utf-8")
    (root / "memory-bank" / "progress.md").write_text(f"# Progress\n\n## What works\n- ✅ {done}\n", "utf-8")
    return [str(root / "memory-bank")]


def _two_headings(root: Path, pending: str, done: str) -> list[str]:
    (root / "CLAUDE.md").write_text(f"# Project\n\n## Completed\n- {done}\n- Keep the changelog current\n\n"
                                    f"## TODO\n- {pending}\n", "utf-8")
    return [str(root / "CLAUDE.md")]


def _serena(root: Path, pending: str, done: str) -> list[str]:
    folder = root / ".serena" / "memories"
    folder.mkdir(parents=True)
    (folder / "task_list.md").write_text(f"# Tasks\n\n## Pending\n- {pending}\n", "utf-8")
    (folder / "current_status.md").write_text(f"# Status\n\n## Done\n- [x] {done}\n", "utf-8")
    return [str(root / ".serena")]


SHAPES = {"memory bank": _memory_bank, "two headings": _two_headings, "Serena memories": _serena}


def _conflicts(root: Path, paths: list[str], engine: str, layer: str = "") -> list[tuple[str, str]]:
    settings = Settings(engine=engine, embed=EmbedSettings(provider="static", cache_dir=str(root / "cache")))
    report = lint(paths, settings)
    assert not [f for f in report.findings if f.rule == "degraded"], report.findings
    return [(f.layer, f.severity.value) for f in report.findings
            if f.rule == "status_conflict" and (not layer or f.layer == layer)]


@pytest.mark.parametrize(("shape", "pair"), list(product(SHAPES, SAID_APART)))
def test_a_task_done_in_other_words_is_found_by_meaning(tmp_path: Path, shape: str, pair: tuple[str, str]) -> None:
    paths = SHAPES[shape](tmp_path, *pair)
    assert _conflicts(tmp_path, paths, "heuristic") == []
    assert _conflicts(tmp_path, paths, "embed") == [("3", "review")]


@pytest.mark.parametrize(("shape", "pair"), list(product(SHAPES, SAID_CLOSE)))
def test_a_task_said_again_in_most_of_its_words_is_found_by_both_engines(tmp_path: Path, shape: str,
                                                                         pair: tuple[str, str]) -> None:
    paths = SHAPES[shape](tmp_path, *pair)
    assert _conflicts(tmp_path, paths, "heuristic") == [("2b", "review")]
    assert _conflicts(tmp_path, paths, "embed") == [("2b", "review")]


LOOK_ALIKES = [
    ("Add dark mode toggle to the settings page", "Added CSV export to the reports page"),
    ("Email notifications for failed payment retries", "Email notifications for new team invitations"),
]


@pytest.mark.parametrize(("shape", "pair"), list(product(SHAPES, LOOK_ALIKES)))
def test_another_task_stays_quiet(tmp_path: Path, shape: str, pair: tuple[str, str]) -> None:
    assert _conflicts(tmp_path, SHAPES[shape](tmp_path, *pair), "embed") == []


@pytest.mark.parametrize("pair", SAID_APART)
def test_a_task_opened_again_or_a_sibling_item_stays_quiet(tmp_path: Path, pair: tuple[str, str]) -> None:
    pending, done = pair
    (tmp_path / "reopened").mkdir()
    (tmp_path / "reopened" / "progress.md").write_text(
        f"# Progress\n\n## 2026-03-01\n- ✅ {done}\n\n## 2026-04-10\n- [ ] {pending}\n", "utf-8")
    assert _conflicts(tmp_path, [str(tmp_path / "reopened")], "embed", layer="3") == []
    (tmp_path / "list").mkdir()
    (tmp_path / "list" / "notes.md").write_text(f"# Notes\n\n## Work\n- [x] {done}\n- [ ] {pending}\n", "utf-8")
    assert _conflicts(tmp_path, [str(tmp_path / "list")], "embed", layer="3") == []


@pytest.mark.parametrize("pair", SAID_APART)
def test_a_heading_that_marks_its_title_pending_is_a_side_too(tmp_path: Path, pair: tuple[str, str]) -> None:
    """"### Distributed tracing with OpenTelemetry and Jaeger" under "## In Progress" is a task as
    an item is."""
    pending, done = pair
    (tmp_path / "memory-bank").mkdir()
    (tmp_path / "memory-bank" / "activeContext.md").write_text(
        f"# Active Context\n\n## In Progress\n\n### {pending}\n\nWork notes follow.\n", "utf-8")
    (tmp_path / "memory-bank" / "progress.md").write_text(f"# Progress\n\n## What works\n- ✅ {done}\n", "utf-8")
    paths = [str(tmp_path / "memory-bank")]
    assert _conflicts(tmp_path, paths, "heuristic") == []
    assert _conflicts(tmp_path, paths, "embed") == [("3", "review")]
