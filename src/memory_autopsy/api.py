"""The public Python API: the same engine the CLI, the hook, the Action and MCP call."""

from __future__ import annotations

from collections.abc import Iterable
from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from memory_autopsy.settings import Settings

from memory_autopsy.pipeline import extra_layer, lint, lint_loaded, load_store, paused_gc

__all__ = ["admit", "extra_layer", "lint", "lint_loaded", "load_store", "paused_gc"]

# The engine and the readers load on first use: the CLI imports this module for paused_gc on
# every run, and the hook, which often has nothing to lint, starts on every commit.
_LAZY = {
    "lint_store": "memory_autopsy.engine", "Layer": "memory_autopsy.engine.run",
    "ParseCache": "memory_autopsy.ingest.cache", "Source": "memory_autopsy.ingest.loader",
    "expand": "memory_autopsy.ingest.loader", "load_sources": "memory_autopsy.ingest.loader",
    "read_sources": "memory_autopsy.ingest.loader", "Problem": "memory_autopsy.model",
    "Report": "memory_autopsy.model", "Store": "memory_autopsy.model",
    "filter_paths": "memory_autopsy.selection", "Settings": "memory_autopsy.settings",
}


def __getattr__(name: str) -> Any:
    """The names this module used to import eagerly (`api.Source`, `api.read_sources`)."""
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(_LAZY[name]), name)


def admit(fact: dict[str, Any], store: str | Iterable[str], settings: Settings | None = None) -> Any:
    """Gate one incoming fact against a store before an agent persists it (see verdicts/gate.py)."""
    from memory_autopsy.verdicts.gate import admit as gate_admit

    return gate_admit(fact, store, settings)
