"""What an agent can ask of memory-autopsy: lint, admit, as-of, why — as plain dicts.

These functions know nothing of MCP (mcp_server.py maps tools onto them). Every path an agent
names is confined to the allowed roots before anything is opened: it is resolved with
`os.path.realpath` (so `..` and symlinks are followed to where they really lead), and a store
that leads outside every root — or a folder holding a file that does — is refused with
ToolRefused and not read. Nothing here writes a store.
"""

from __future__ import annotations

import enum
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from memory_autopsy.errors import UsageError
from memory_autopsy.settings import Settings

if TYPE_CHECKING:
    from memory_autopsy.model import Store
    from memory_autopsy.verdict import Weights

ENGINES = ("heuristic", "embed")


class Tool(str, enum.Enum):
    LINT = "memory_lint"
    ADMIT = "memory_admit"
    AS_OF = "memory_as_of"
    WHY = "memory_why"


class ToolRefused(Exception):
    """A request the tools will not serve (a path outside the roots, a bad argument)."""


@dataclass(frozen=True)
class Roots:
    """The folders the tools may read, as real paths."""

    paths: tuple[str, ...]

    @classmethod
    def of(cls, folders: Iterable[str] = ()) -> Roots:
        real = [os.path.realpath(os.getcwd())] + [os.path.realpath(f) for f in folders]
        return cls(tuple(dict.fromkeys(real)))

    def contains(self, real: str) -> bool:
        return any(
            real == root or real.startswith(root.rstrip(os.sep) + os.sep) for root in self.paths
        )

    def confine(self, given: str) -> str:
        """The store as a path that stays inside the roots, or ToolRefused (nothing is opened)."""
        if not isinstance(given, str) or not given.strip() or "\x00" in given:
            raise ToolRefused("store must be a non-empty path")
        real = os.path.realpath(given)
        if not self.contains(real):
            raise ToolRefused(
                f"refused: {given!r} is outside the allowed roots "
                f"({', '.join(self.paths)}); start the server with --root to allow it"
            )
        if os.path.isdir(real):
            self._check_tree(given, real)
        return _shown(real)

    def _check_tree(self, given: str, real: str) -> None:
        from memory_autopsy.ingest.loader import expand

        files, _ = expand([real])
        for name in files:
            if not self.contains(os.path.realpath(name)):
                raise ToolRefused(
                    f"refused: {given!r} holds {os.path.relpath(name, real)!r}, "
                    "a link that leads outside the allowed roots"
                )


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
    from memory_autopsy.api import lint
    from memory_autopsy.formatters.json_format import report_dict

    if engine not in ENGINES:
        raise ToolRefused(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    path = roots.confine(store)
    base = settings or default_settings()
    report = lint([path], replace(base, engine=engine))
    if not report.paths:
        raise ToolRefused(f"no readable memory files in {store!r}")
    payload = report_dict(report)
    payload["finding_count"] = len(report.findings)
    return payload


def memory_admit(
    fact: Mapping[str, Any], store: str, *, roots: Roots, settings: Settings | None = None
) -> dict[str, Any]:
    """Gate one incoming fact: accepted, requires_review (ids, resolving edit) or rejected."""
    from memory_autopsy.api import admit

    if not isinstance(fact, Mapping):
        raise ToolRefused(
            "fact must be a JSON object (entity, claim or slot/value, observed_at, source)"
        )
    path = roots.confine(store)
    verdict = admit(dict(fact), [path], settings or default_settings())
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
    from memory_autopsy.temporal import as_of, knows_entity

    day = day_of(parse_date(date))
    if day is None:
        raise ToolRefused(f"not a date: {date!r} (use YYYY-MM-DD)")
    settings = settings or default_settings()
    loaded = _load([roots.confine(store)], settings)
    if entity and not knows_entity(loaded, entity):
        raise ToolRefused(f"no facts about entity {entity!r} in {store!r}")
    view = as_of(loaded, day, settings, _weights(settings), entity)
    return dict(json.loads(format_json(view, entity)))


def memory_why(
    store: str, id: str, *, roots: Roots, settings: Settings | None = None
) -> dict[str, Any]:
    """One fact's provenance and what corroborates, contradicts and supersedes it."""
    from memory_autopsy.api import lint_loaded
    from memory_autopsy.why import explain, format_json

    if not isinstance(id, str) or not id.strip():
        raise ToolRefused(
            "id must be a fact id (16 hex characters, or a unique prefix of 4 or more)"
        )
    settings = settings or default_settings()
    loaded = _load([roots.confine(store)], settings)
    try:
        explanation = explain(id, lint_loaded(loaded, settings), _weights(settings))
    except UsageError as error:
        raise ToolRefused(str(error)) from error
    return dict(json.loads(format_json(explanation)))


def _load(paths: Sequence[str], settings: Settings) -> Store:
    from memory_autopsy.api import load_store

    loaded = load_store(paths, settings)
    if not loaded.paths:
        raise ToolRefused("no readable memory files in " + ", ".join(paths))
    return loaded


def _weights(settings: Settings) -> Weights:
    from memory_autopsy.registry import load_weights

    return load_weights(settings, None)
