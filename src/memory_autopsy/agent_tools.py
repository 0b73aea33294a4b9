"""What an agent can ask of memory-autopsy: lint, admit, as-of, why — as plain dicts.

These functions know nothing of MCP (mcp_server.py maps tools onto them). Every path an agent
names is confined to the allowed roots before anything is opened: it is resolved with
`os.path.realpath` (so `..` and symlinks are followed to where they really lead), and a store
that leads outside every root — or a folder holding a file that does — is refused with
ToolRefused and not read. A check by name alone can be raced (a file swapped for a link after
the check), so each file is then opened once, from its root, without following any link, and
the bytes of that open file are what the engine reads. Nothing here writes a store.
"""

from __future__ import annotations

import enum
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from memory_autopsy.errors import UsageError
from memory_autopsy.ingest.confined import LeadsOutside, Roots, read_inside, real
from memory_autopsy.settings import Settings

if TYPE_CHECKING:
    from memory_autopsy.ingest.loader import Source
    from memory_autopsy.model import Problem, Store
    from memory_autopsy.verdicts.gate import AdmitVerdict
    from memory_autopsy.verdicts.verdict import Weights

ENGINES = ("heuristic", "embed")


class Tool(str, enum.Enum):
    LINT = "memory_lint"
    ADMIT = "memory_admit"
    AS_OF = "memory_as_of"
    WHY = "memory_why"


class ToolRefused(Exception):
    """A request the tools will not serve (a path outside the roots, a bad argument)."""


def confine(given: str, roots: Roots) -> str:
    """The store as a path that stays inside the roots, or ToolRefused (nothing is opened)."""
    if not isinstance(given, str) or not given.strip() or "\x00" in given:
        raise ToolRefused("store must be a non-empty path")
    where = _real(given)
    if not roots.contains(where):
        raise ToolRefused(
            f"refused: {given!r} is outside the allowed roots "
            f"({', '.join(roots.paths)}); start the server with --root to allow it"
        )
    if os.path.isdir(where):
        _check_tree(given, where, roots)
    return _shown(where)


def _check_tree(given: str, where: str, roots: Roots) -> None:
    from memory_autopsy.ingest.loader import expand

    files, _ = expand([where])
    for name in files:
        if not roots.contains(_real(name)):
            raise ToolRefused(
                f"refused: {given!r} holds {os.path.relpath(name, where)!r}, "
                "a link that leads outside the allowed roots"
            )


def _real(path: str) -> str:
    try:
        return real(path)
    except LeadsOutside:
        raise ToolRefused(f"refused: {path!r} changed while being checked") from None


def read_confined(name: str, roots: Roots) -> bytes:
    """The bytes of one file inside the roots, from a single open that follows no link.

    ToolRefused when the file leads outside or a link appeared on the way since the check;
    OSError (its strerror the reason to show) when it cannot be read or is not a regular file.
    """
    from memory_autopsy.ingest.loader import MAX_BYTES

    try:
        return read_inside(name, roots, MAX_BYTES)
    except LeadsOutside as refused:
        if refused.raced:
            raise ToolRefused(f"refused: {name!r} turned into a link while being read") from None
        raise ToolRefused(f"refused: {name!r} leads outside the allowed roots ({', '.join(roots.paths)})") from None


def _shown(real: str) -> str:
    """Relative to the working directory when inside it (as the CLI shows paths), else absolute."""
    cwd = os.path.realpath(os.getcwd())
    if real == cwd:
        return "."
    if real.startswith(cwd.rstrip(os.sep) + os.sep):
        return os.path.relpath(real, cwd)
    return real


def default_settings() -> Settings:
    """The rule file in force for the working directory (defaults when there is none)."""
    from memory_autopsy.config import settings_for

    try:
        return settings_for(None)
    except UsageError as error:
        raise ToolRefused(f"the rule file is invalid: {error}") from error


def memory_lint(
    store: str, engine: str = "heuristic", *, roots: Roots, settings: Settings | None = None
) -> dict[str, Any]:
    """Lint a memory file or folder: every finding, with its rule, severity and location."""
    from memory_autopsy.api import lint_loaded, paused_gc
    from memory_autopsy.formatters.json_format import report_dict

    if engine not in ENGINES:
        raise ToolRefused(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    settings = replace(settings or default_settings(), engine=engine)
    with paused_gc():
        report = lint_loaded(_load(store, settings, roots), settings)
    payload = report_dict(report)
    payload["finding_count"] = len(report.findings)
    return payload


def memory_admit(
    fact: Mapping[str, Any], store: str, *, roots: Roots, settings: Settings | None = None
) -> dict[str, Any]:
    """Gate one incoming fact: accepted, requires_review (ids, resolving edit) or rejected."""
    if not isinstance(fact, Mapping):
        raise ToolRefused(
            "fact must be a JSON object (entity, claim or slot/value, observed_at, source)"
        )
    verdict = _admit(dict(fact), store, settings or default_settings(), roots)
    return dict(verdict.as_dict())


def memory_as_of(
    date: str,
    store: str,
    entity: str | None = None,
    *,
    roots: Roots,
    settings: Settings | None = None,
) -> dict[str, Any]:
    """What the store held to be true on a date (validity windows first, observations second)."""
    from memory_autopsy.dates import day_of, parse_date
    from memory_autopsy.formatters.asof import format_json
    from memory_autopsy.verdicts.asof import as_of, knows_entity

    day = day_of(parse_date(date))
    if day is None:
        raise ToolRefused(f"not a date: {date!r} (use YYYY-MM-DD)")
    settings = settings or default_settings()
    loaded = _load(store, settings, roots)
    if entity and not knows_entity(loaded, entity):
        raise ToolRefused(f"no facts about entity {entity!r} in {store!r}")
    view = as_of(loaded, day, settings, _weights(settings), entity)
    return dict(json.loads(format_json(view, entity)))


def memory_why(
    store: str, id: str, *, roots: Roots, settings: Settings | None = None
) -> dict[str, Any]:
    """One fact's provenance and what corroborates, contradicts and supersedes it."""
    from memory_autopsy.api import lint_loaded
    from memory_autopsy.verdicts.why import explain, format_json

    if not isinstance(id, str) or not id.strip():
        raise ToolRefused(
            "id must be a fact id (16 hex characters, or a unique prefix of 4 or more)"
        )
    settings = settings or default_settings()
    loaded = _load(store, settings, roots)
    try:
        explanation = explain(id, lint_loaded(loaded, settings), _weights(settings))
    except UsageError as error:
        raise ToolRefused(str(error)) from error
    return dict(json.loads(format_json(explanation)))


def _load(store: str, settings: Settings, roots: Roots) -> Store:
    """api.load_store over confined reads (each file opened once, read from that open)."""
    from memory_autopsy.ingest.cache import cache_for
    from memory_autopsy.ingest.loader import load_sources

    files, problems = _files(store, settings, roots)
    read_problems: list[Problem] = []
    cache = cache_for(settings)
    loaded = load_sources(
        _sources(files, roots, read_problems), settings.vocabulary, problems, settings.lexicon, cache
    )
    if cache is not None:
        cache.prune_after_run()
    if not loaded.paths:
        raise ToolRefused(f"no readable memory files in {store!r}")
    return replace(loaded, problems=loaded.problems + tuple(read_problems), roots=roots)


def _files(store: str, settings: Settings, roots: Roots) -> tuple[list[str], list[Problem]]:
    """The store's files as `scan` reads them (scope.memory_files: the scope for the scope root,
    the memory files of another folder, a file as named), so an in-loop check and an offline
    audit read the same files. A path that names nothing is the reader's to report."""
    from memory_autopsy.errors import UsageError
    from memory_autopsy.ingest.loader import expand
    from memory_autopsy.scope import memory_files, scope_root

    path = confine(store, roots)
    if not os.path.lexists(path):
        return expand([path])
    try:
        return memory_files([path], settings, scope_root(None), warn=lambda _: None), []
    except UsageError as refused:
        raise ToolRefused(str(refused)) from None


def _sources(files: list[str], roots: Roots, problems: list[Problem]) -> Iterator[Source]:
    from memory_autopsy.ingest.loader import Source
    from memory_autopsy.model import Problem

    for name in files:
        try:
            yield Source(name, read_confined(name, roots))
        except OSError as error:
            problems.append(Problem(name, 1, error.strerror or str(error)))


def _admit(fact: dict[str, Any], store: str, settings: Settings, roots: Roots) -> AdmitVerdict:
    """gate.admit over confined reads. It mirrors gate.admit after its `_read`, because the gate
    opens the files by name itself; an entry point taking sources would remove the copy."""
    from memory_autopsy.ingest.loader import Source, load_sources
    from memory_autopsy.verdicts import gate

    settings = replace(settings, as_of=None, max_age_days=None)
    problem = gate.fact_problem(fact)
    if problem:
        return gate.rejected(f"the fact cannot be normalized: {problem}")
    files, problems = _files(store, settings, roots)
    sources = list(_sources(files, roots, problems))
    trouble = [f"{p.path}: {p.message}" for p in problems]
    if not sources and not trouble:
        trouble.append("no memory files among: " + confine(store, roots))
    if trouble:
        return gate.rejected("the store cannot be read (the gate never runs blind): " + "; ".join(trouble))
    notes = [f"{s.path} is empty: the fact would be its first" for s in sources if not s.data.strip()]
    candidate = Source(gate.CANDIDATE, json.dumps(fact, default=str, ensure_ascii=False).encode())
    kept = [s for s in sources if s.data.strip()] + [candidate]
    loaded = load_sources(kept, settings.vocabulary, lexicon=settings.lexicon)
    if loaded.problems:
        listed = "; ".join(f"{p.path}:{p.line}: {p.message}" for p in loaded.problems)
        return gate.rejected(f"the store has bad input (the gate never runs blind): {listed}")
    candidates = [f for f in loaded.facts if f.path == gate.CANDIDATE]
    if len(candidates) != 1:
        return gate.rejected(f"the fact cannot be normalized: it reads as {len(candidates)} records, not one")
    return gate._judge(candidates[0], loaded, settings, notes)


def _weights(settings: Settings) -> Weights:
    from memory_autopsy.verdicts.registry import load_weights

    return load_weights(settings, None)
