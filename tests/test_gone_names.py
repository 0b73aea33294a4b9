"""A name the store records removed, replaced or renamed away ("Deleted: tests/test_quick.py",
"`OLD_SCALE` consts removed", "renamed from GodRaysPlugin → PostFxPlugin", "Renamed `x` to `y`", "Migrated from
setState to Provider", each name of a list: "Dropped columns: seed, output_size, image_data") and that another line still
describes as there (its subject, its value, a command that runs it, or named anywhere in a
present claim) is `stale`. Every record
phrasing meets every reliance shape; removing a name's uses, a name only discouraged, a line
that itself says it is gone, a narrative and a line dated after the record stay quiet."""

from __future__ import annotations

from itertools import product
from pathlib import Path
from typing import Any

import pytest

from conftest import findings_of, write

NAMES = ["tests/test_quick.py", "sync_worker.py", "GodRaysPlugin", "OLD_SCALE"]
RECORDS = [
    "- Deleted: {name}",
    "- Removed `{name}`",
    "- Removed the legacy {name}",
    "- Removed the quick test script {name}",
    "- Deleted the unused helper `{name}` after the merge",
    "- `{name}` was deleted",
    "- (the old `{name}` consts removed)",
    "- Post-FX host (renamed from {name} → `PostFx`)",
    "- `{name}` → `PostFx` (renamed)",
    "- Renamed `{name}` to `PostFx`",
    "- Renamed the helper {name} to PostFx for clarity",
    "- Root cause: `{name}` was renamed to `PostFx` but imports still point at it",
    "- {name} renamed to PostFx",
    "- Replaced `{name}` with `PostFx`",
    "- Migrated from {name} to PostFx",
    "- Switched away from `{name}` to `PostFx`",
    "- Deleted: `old_helper.py`, {name} and `cleanup.sh`",  # one record's list, the name anywhere in it
    "- Removed `old_helper`, `{name}`, `stale_util`",
    "- Dropped columns: seed, legacy_flag, {name}",  # a list a label opens, plain words among its items
    "- Files deleted: `src/a_helper.py`, `{name}`",
]
RELIANCES = [
    "- `{name}` is constructed with the sky source",  # its subject
    "- **Entry point:** `{name}` with the default config",  # a labelled value
    "- The smoke test uses `{name}` for a quick check",  # a frame word
    "- Support diagnostics ship with `{name}` and the log collector",  # named inside the claim
    "- The nightly job falls back to `{name}` when the cache is empty",  # a verb's object
]


def stale(root: Path) -> list[dict[str, Any]]:
    return findings_of(root, "stale")


def store(root: Path, relying: str, record: str) -> Path:
    write(root / "memory-bank" / "systemPatterns.md", f"# System patterns\n\n## Rendering\n{relying}\n")
    write(root / "memory-bank" / "progress.md", f"# Progress\n\n## Changes\n{record}\n")
    return root


@pytest.mark.parametrize(("name", "record", "relying"), list(product(NAMES, RECORDS, RELIANCES)))
def test_a_line_relying_on_a_gone_name_is_stale(tmp_path: Path, name: str, record: str, relying: str) -> None:
    found = stale(store(tmp_path, relying.format(name=name), record.format(name=name)))
    assert [Path(str(f["path"])).name for f in found] == ["systemPatterns.md"], found
    assert f"relies on {name!r}" in str(found[0]["message"])


@pytest.mark.parametrize(("relying", "record"), [
    ("- The smoke test uses `sync_worker.py` for a quick check", "- Removed `sync_worker.py` from the docs index"),
    ("- The logger uses `console.log` for traces", "- Removed console.log statements"),
    ("- The smoke test uses `sync_worker.py` for a quick check", "- Removed the retry import from `sync_worker.py`"),
    ("- The smoke test uses `sync_worker.py` for a quick check", "- Removed all the logging in sync_worker.py"),
    ("- `sync_worker.py` is constructed with the queue", "- Renamed the queue to jobs"),  # another name
    ("- `sync_worker.py` is constructed with the queue", "- Renamed `old_sync.py` to `sync_worker.py`"),  # where it went
    ("- `sync_worker.py` is constructed with the queue", "- If `sync_worker.py` is renamed to `jobs.py`, update the cron"),
    ("- `sync_worker.py` was deleted in the cleanup", "- Deleted: sync_worker.py"),  # says it is gone itself
    ("- The cleanup plan: delete `sync_worker.py` | None", "- Deleted: sync_worker.py"),  # itself removes it
    ("- Migration 0005 renamed `sync_worker.py` → `jobs.py`", "- Deleted: sync_worker.py"),
    ("- The cleanup is removing `sync_worker.py` from the queue", "- Deleted: sync_worker.py"),
    ("- `GodRaysPlugin` is constructed with the sky source", "- Do not extend GodRaysPlugin for new effects"),
    ("- The search hook lives in `features/stores/`", "- Created `hooks/useSearch.ts` (moved from `features/stores/`)"),
    ("- The logger uses `console.log` for traces", "- Replaced console.log calls with the logger"),
    ("- The smoke test uses `sync_worker.py` for a quick check",  # a list of uses: removed from somewhere
     "- Removed `old_helper.py`, `sync_worker.py` from the docs index"),
    ("- The smoke test uses `sync_worker.py` for a quick check",  # a second clause is no item of the list
     "- Removed `old_helper.py` and added `sync_worker.py`"),
    ("- The smoke test uses `sync_worker.py` for a quick check", "- Dropped columns: seed, sync_worker.py from the form"),
    ("- `sync_worker.py` is constructed with the queue",  # a narrative, not a record
     "- Reasoning: " + "we looked at the queue and the workers at length. " * 10 + "Removed `sync_worker.py`."),
])
def test_look_alikes_stay_quiet(tmp_path: Path, relying: str, record: str) -> None:
    assert stale(store(tmp_path, relying, record)) == []


def test_a_line_dated_after_the_record_may_have_brought_the_name_back(tmp_path: Path) -> None:
    write(tmp_path / "memory-bank" / "decisionLog.md", (
        "# Decision log\n\n"
        "## 2025-03-01\n- Deleted: sync_worker.py\n\n"
        "## 2025-04-01\n- `sync_worker.py` is constructed with the new queue\n"
    ))
    assert stale(tmp_path) == []


VERBS = ["dropped", "removed", "deleted"]
CLAUSES = ["before reaching {name}", "after calling `{name}`", "when passing through {name}", "by calling `{name}`",
           "until {name} restarts", "once {name} has run", "via {name}", "during {name} start-up"]


@pytest.mark.parametrize(("name", "verb", "clause"), list(product(NAMES, VERBS, CLAUSES)))
def test_a_removal_of_another_thing_before_or_by_the_name_is_no_record(
        tmp_path: Path, name: str, verb: str, clause: str) -> None:
    """What the verb removes came before it ("detections outside the frame dropped before
    reaching `BallTracker`"): a clause of time, means or cause after it names no removal."""
    record = f"- Detections outside the frame {verb} {clause.format(name=name)}"
    assert stale(store(tmp_path, RELIANCES[2].format(name=name), record)) == []


COPIES = ["- Removed duplicate {name} and state logic", "- Removed the duplicated `{name}`",
          "- Deleted repeated {name} setup", "- Removed a second copied `{name}` from the page"]


@pytest.mark.parametrize(("name", "record"), list(product(NAMES, COPIES)))
def test_a_removed_copy_of_the_name_leaves_the_name(tmp_path: Path, name: str, record: str) -> None:
    """"Removed duplicate localStorage and state logic": a copy went, the name is still there."""
    assert stale(store(tmp_path, RELIANCES[2].format(name=name), record.format(name=name))) == []


# "`X` <word> removed": a word of the name's own kind ("consts", "file", "helper") removes the
# name; any other word names a thing built on it ("gate", "check", "fallback"), which went
# while the name stays (the constant a removed gate read is still there).
OWN_KINDS = ["file", "consts", "helper", "module", "function", "class", "setting", "pipeline"]
BUILT_ON = ["gate", "check", "fallback", "guard", "workaround", "retry loop"]


@pytest.mark.parametrize(("name", "kind", "relying"), list(product(NAMES, OWN_KINDS, RELIANCES)))
def test_a_name_removed_with_its_kind_is_gone(tmp_path: Path, name: str, kind: str, relying: str) -> None:
    found = stale(store(tmp_path, relying.format(name=name), f"- `{name}` {kind} removed"))
    assert [Path(str(f["path"])).name for f in found] == ["systemPatterns.md"], found


@pytest.mark.parametrize(("name", "thing", "relying"), list(product(NAMES, BUILT_ON, RELIANCES)))
def test_a_thing_built_on_a_name_removed_leaves_the_name(tmp_path: Path, name: str, thing: str, relying: str) -> None:
    assert stale(store(tmp_path, relying.format(name=name), f"- `{name}` {thing} removed (self-validating now)")) == []


# Constants joined by slashes are alternatives, not a path: each is a name of its own, in the
# record and in the line that relies on it.
SLASHED_RECORDS = ["- (old fixed `CORE_SCALE`/`CORONA_SCALE` consts removed)", "- Deleted: CORE_SCALE/CORONA_SCALE",
                   "- Removed `CORONA_SCALE`"]
SLASHED_RELIANCES = ["- Tunables: SUNRISE/SUNSET/MAX_ELEVATION/CORE_SCALE/ CORONA_SCALE.",
                     "- Tunables: `SUNRISE`/`CORONA_SCALE`/`SUNSET`", "- The sky reads CORONA_SCALE/CORE_SCALE at start"]


@pytest.mark.parametrize(("record", "relying"), list(product(SLASHED_RECORDS, SLASHED_RELIANCES)))
def test_each_of_slashed_constants_is_a_name(tmp_path: Path, record: str, relying: str) -> None:
    found = stale(store(tmp_path, relying, record))
    assert [Path(str(f["path"])).name for f in found] == ["systemPatterns.md"], found


@pytest.mark.parametrize("relying", ["- Tunables: SUNRISE/SUNSET/CORONA_SCALE_MAX", "- Config lives in `src/CORONA_SCALE/`"])
def test_a_longer_name_or_a_folder_of_that_name_is_another_name(tmp_path: Path, relying: str) -> None:
    assert stale(store(tmp_path, relying, "- Removed `CORONA_SCALE`")) == []
