"""The public Python API: the same engine the CLI, the hook, the Action and MCP call."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from memory_autopsy.engine import lint_store
from memory_autopsy.ingest import load
from memory_autopsy.model import Report, Store
from memory_autopsy.settings import Settings


def load_store(paths: Iterable[str], settings: Settings | None = None) -> Store:
    settings = settings or Settings()
    return load(list(paths), settings.vocabulary)


def lint(
    paths: Iterable[str] | str,
    settings: Settings | None = None,
    *,
    today: date | None = None,
) -> Report:
    """Lint memory files (or directories) and return the report."""
    settings = settings or Settings()
    store = load_store([paths] if isinstance(paths, str) else paths, settings)
    return lint_store(store, settings, extra_layer=_extra_layer(settings), today=today)


def _extra_layer(settings: Settings):  # type: ignore[no-untyped-def]
    if settings.engine != "embed":
        return None
    from memory_autopsy.embed.layer import EmbeddingLayer

    return EmbeddingLayer(settings)
