"""A task whose words are mostly (seven in ten) in done evidence is that task done, unless the
evidence qualifies a word they share with another word than the task's: "billing tables" and
"invoice tables" are two sub-scopes of one kind of thing, two tasks."""

from __future__ import annotations

from itertools import product
from pathlib import Path

import pytest

from conftest import findings_of, write

# (pending task, done evidence): three of the task's four task words said again
MOSTLY = [
    ("Distributed tracing with OpenTelemetry and Jaeger", "Jaeger tracing through OpenTelemetry running for every service"),
    ("Sentry error monitoring in production", "Production errors reported to Sentry"),
    ("Stripe webhook signature verification", "Verifying Stripe webhook signatures before processing events"),
]
# the shared word qualified otherwise: another sub-scope
REQUALIFIED = [
    ("Migrate the billing tables to Postgres", "Migrated the invoice tables to Postgres"),
    ("Add retry logic to the payment queue", "Added retry logic to the email queue"),
    ("Write unit tests for the search service", "Wrote integration tests for the search service"),
]
SHAPES = {
    "memory bank": ("memory-bank/activeContext.md", "# Active Context\n\n## Next Steps\n- [ ] {task}\n",
                    "memory-bank/progress.md", "# Progress\n\n## What works\n- ✅ {done}\n"),
    "one file": ("CLAUDE.md", "# Project\n\n## Completed\n- {done}\n\n## TODO\n- {task}\n", "", ""),
    "serena": (".serena/memories/task_list.md", "# Tasks\n\n## Pending\n- {task}\n",
               ".serena/memories/current_status.md", "# Status\n\n## Done\n- [x] {done}\n"),
}


def _write(root: Path, shape: str, task: str, done: str) -> None:
    first, first_text, second, second_text = SHAPES[shape]
    write(root / first, first_text.format(task=task, done=done))
    if second:
        write(root / second, second_text.format(task=task, done=done))


@pytest.mark.parametrize(("shape", "pair"), list(product(SHAPES, MOSTLY)))
def test_a_task_mostly_said_in_done_evidence_is_a_status_conflict(tmp_path: Path, shape: str,
                                                                  pair: tuple[str, str]) -> None:
    _write(tmp_path, shape, *pair)
    assert len(findings_of(tmp_path, "status_conflict")) == 1


@pytest.mark.parametrize(("shape", "pair"), list(product(SHAPES, REQUALIFIED)))
def test_a_shared_word_qualified_otherwise_is_another_task(tmp_path: Path, shape: str, pair: tuple[str, str]) -> None:
    _write(tmp_path, shape, *pair)
    assert findings_of(tmp_path, "status_conflict") == []
