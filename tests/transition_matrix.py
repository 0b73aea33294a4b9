"""The transition matrix: an older state and a newer note that retracts it, in the phrasings
people write (verb families x voice x object shapes x input shapes, one of them two files of a memory bank), and look-alikes that must
stay silent (another thing retracted, a plan, a question, a negation, another subject).

Data only: tests/test_transition_matrix.py scans each case and scores it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import NamedTuple

# (old tool, the subject that uses it, the new tool)
TOOLS = (("Redis", "The job queue", "pg-boss"), ("RabbitMQ", "The event bus", "NATS"))
OLD_DATE, NEW_DATE = "2024-03-01", "2025-02-10"

# {x}: the retracted object as written, {y}: the new one, {s}: the subject, {q}: the subject as
# a verb's object ("moved the job queue off X")
ACTIVE = (
    "moved off {x} to {y}", "moved {q} off {x} to {y}", "migrated off {x} to {y}",
    "migrated {q} off {x} to {y}", "migrated from {x} to {y}", "switched from {x} to {y}",
    "switched {q} from {x} to {y}", "stopped using {x}", "dropped {x} in favour of {y}",
    "dropped {x} in favor of {y}", "replaced {x} with {y}", "sunset {x}", "retired {x}",
    "left {x} for {y}", "ditched {x} for {y}", "phased out {x}", "removed {x}", "deprecated {x}",
    "decommissioned {x}", "swapped {x} for {y}", "swapped out {x} for {y}", "got rid of {x}",
    "abandoned {x}", "moved away from {x} to {y}", "transitioned from {x} to {y}",
    "renamed {x} to {y}", "renamed from {x} to {y}", "deleted {x}", "discontinued {x}",
    "uninstalled {x}", "purged {x}", "swapped {x} out for {y}", "ripped {x} out",
)
SUBJECTS = ("We {v}", "{s} {v}", "We have {v}")
SUBJECT_ONLY = ("{s} no longer uses {x}", "{s} no longer relies on {x}", "{s} stopped relying on {x}")
PASSIVE = (
    "{x} was replaced by {y}", "{x} has been replaced with {y}", "{x} was retired",
    "{x} was sunset", "{x} was dropped in favour of {y}", "{x} is deprecated", "{x} was removed",
    "{x} has been phased out", "{x} is no longer used", "{x} was decommissioned",
    "{x} got replaced with {y}", "{x} was swapped out for {y}", "{x} was renamed to {y}",
    "{s} was renamed from {x} to {y}", "{y} (formerly {x}) holds it now", "{y}, previously known as {x}, holds it now",
    # a participle with no "be" after what it retracts, "gone", the new thing as the subject
    "{x} removed", "{x} removed from the stack", "{x} deprecated in favor of {y}", "{x} dropped in favour of {y}",
    "{x} is gone", "{y} supersedes {x}", "{y} replaces {x}", "{y} has replaced {x}", "{y} has superseded {x}",
    # what the subject was before, no more, and a label with an arrow to the new thing
    "{s} switched to {y} (was {x})", "{s} runs on {y} (previously {x})", "{y} (previously known as {x}) holds it now",
    "No more {x}",
    "Replaced: {x} \u2192 {y}", "Deprecated: {x} -> {y}",
)
# How the retracted object is written in the newer note, and what follows the note
OBJECTS = (("{x}", ""), ("the {x} instance", ""), ("{x}", ", because it kept losing jobs"))

# Look-alikes: the older state stands; nothing may be flagged.
SILENT = (
    "We moved off Memcached to {x}", "We replaced Memcached with {x}", "We switched from Memcached to {x}",
    "We plan to move off {x} to {y}", "We are considering replacing {x} with {y}",
    "We might migrate off {x} later", "We should stop using {x} eventually",
    "Should we move off {x} to {y}?", "Do we still need {x}?",
    "We did not move off {x}", "We never replaced {x}", "{x} was not replaced",
    "The search index moved off Elasticsearch to {y}", "The billing service moved off {x} to {y}",
    "The metrics pipeline stopped using {x}", "The old worker was replaced by {y}",
    "We evaluated {y} and kept {x}", "{x} was upgraded to the latest release",
    "We left {x} alone", "We are leaving {x} intact for now", "The upgrade left {x} unchanged",
    "We leave {x} in place", "We left {x} as is", "The fix leaves {x}, or the fallback queue, untouched",
    "We renamed Memcached to {x}", "We plan to rename {x} to {y}", "{y} (formerly Memcached) holds it now",
    "We did not rename {x}",
    "No more than two {x} connections per worker", "Old logs deleted from {x} nightly",
    "Memcached is gone", "We switched the cache to {x} (was Memcached)", "{x} supersedes Memcached",
    "Cleanup runs when {x} jobs are deleted", "Once {x} is removed, drop the adapter", "Is {x} gone?",
    "We plan to swap {x} out for {y}", "{x} has replaced Memcached", "{x} has superseded Memcached",
)


class Case(NamedTuple):
    name: str  # what the case is, for a failure message
    shape: str  # "bullets", "headings", "jsonl" or "bank"
    file: str
    text: str
    old_line: int  # the line of the older state (what must be flagged)
    expect: bool  # flagged (a retraction) or silent (a look-alike)
    others: tuple[tuple[str, str], ...] = ()  # other files of the store: (name, text)


def newer_notes() -> Iterator[tuple[str, str, bool]]:
    """(name, newer note, whether it retracts the older state) for each tool pair."""
    for x, s, y in TOOLS:
        for obj, tail in OBJECTS:
            shown = obj.format(x=x)
            for verb in ACTIVE:
                for subject in SUBJECTS:
                    note = subject.format(v=verb.format(x=shown, y=y, q=s.lower()), s=s) + tail
                    yield f"{verb}|{subject}|{obj}{tail}", note, True
            for form in SUBJECT_ONLY + PASSIVE:
                note = form.format(x=shown, y=y, s=s) + tail
                yield f"{form}|{obj}{tail}", note[0].upper() + note[1:], True
        for form in SILENT:
            yield f"silent: {form}", form.format(x=x, y=y), False


def _bullets(state: str, note: str) -> tuple[str, int]:
    return f"# Notes\n\n- {OLD_DATE}: {state}.\n- {NEW_DATE}: {note}.\n", 3


def _headings(state: str, note: str) -> tuple[str, int]:
    return f"# Notes\n\n## {OLD_DATE}\n\n- {state}.\n\n## {NEW_DATE}\n\n- {note}.\n", 5


def _jsonl(state: str, note: str, entity: str) -> tuple[str, int]:
    rows = [{"entity": entity, "claim": state, "observed_at": OLD_DATE},
            {"entity": entity, "claim": note, "observed_at": NEW_DATE}]
    return "".join(json.dumps(r) + "\n" for r in rows), 1


def _bank(state: str, note: str) -> tuple[str, int, tuple[tuple[str, str], ...]]:
    """A memory bank: the state in the tech context, the note in a dated entry of the decision log."""
    return f"# Tech Context\n\n## Stack\n\n- {state}.\n", 5, (("decisionLog.md", f"# Decision Log\n\n## {NEW_DATE}\n\n- {note}.\n"),)


SHAPES = ("bullets", "headings", "jsonl", "bank")


class Shaped(NamedTuple):
    file: str
    text: str
    old_line: int
    others: tuple[tuple[str, str], ...] = ()


def _shaped(shape: str, state: str, note: str, entity: str) -> Shaped:
    """The older state and the newer note in one input shape."""
    if shape == "jsonl":
        return Shaped("memory.jsonl", *_jsonl(state, note, entity))
    if shape == "bank":
        text, line, others = _bank(state, note)
        return Shaped("techContext.md", text, line, others)
    return Shaped("notes.md", *(_bullets if shape == "bullets" else _headings)(state, note))


def _case(name: str, shape: str, shaped: Shaped, expect: bool) -> Case:
    return Case(name, shape, shaped.file, shaped.text, shaped.old_line, expect, shaped.others)


def cases() -> Iterator[Case]:
    for x, s, y in TOOLS:
        state = f"{s} uses {x}"
        entity = s.removeprefix("The ").lower()
        for name, note, expect in newer_notes():
            if x not in note and not name.startswith("silent"):
                continue  # another tool pair's note
            if name.startswith("silent") and x not in note and y not in note:
                continue
            for shape in SHAPES:
                yield _case(f"{shape}: {name} ({x})", shape, _shaped(shape, state, note, entity), expect)
    yield from ideograph_cases()


# The same question in Chinese and Japanese: the older state uses {x}; the newer note retracts it
# in the lexicon's written-without-spaces phrasings, with or without blanks around the names.
IDEOGRAPH_STATES = {"zh": "后台任务队列使用 {x}", "ja": "ジョブキューは {x} を使用している"}
IDEOGRAPH_NOTES = {
    "zh": ("后台任务队列从 {x} 迁移到 {y}", "后台任务队列从{x}切换到{y}", "用 {y} 替换了 {x}", "{x} 被 {y} 取代",
           "后台任务队列不再使用 {x}", "弃用了 {x}", "{x} 已移除", "停止使用 {x}", "以 {y} 取代 {x}"),
    "ja": ("ジョブキューを {x} から {y} に移行した", "{x}から{y}へ切り替えた", "{x} を {y} に置き換えた",
           "{x} を廃止した", "{x} は削除した", "{y}: {x} の後継", "{x} の代わりに {y} を採用した"),
}
IDEOGRAPH_SILENT = {
    "zh": ("计划从 {x} 迁移到 {y}", "是否从 {x} 迁移到 {y}？", "从 Memcached 迁移到 {x}", "用 {x} 替换了 Memcached",
           "后台任务队列从 {x} 迁移到 {y} 的工作仍在进行中"),
    "ja": ("{x} から {y} への移行を検討中", "Memcached から {x} に移行した", "{x} から {y} に移行する予定",
           "{x} から トークンを取得するように変更"),
}


def ideograph_cases() -> Iterator[Case]:
    for x, _, y in TOOLS:
        for language, state in IDEOGRAPH_STATES.items():
            older = state.format(x=x)
            notes = [(n, True) for n in IDEOGRAPH_NOTES[language]] + [(n, False) for n in IDEOGRAPH_SILENT[language]]
            for form, expect in notes:
                note = form.format(x=x, y=y)
                for shape in SHAPES:
                    name = f"{shape}: {language}: {'' if expect else 'silent: '}{form} ({x})"
                    yield _case(name, shape, _shaped(shape, older, note, "queue"), expect)
