"""Fixtures for the embedding-layer tests (load with `pytest_plugins = ("embed_fixtures",)`)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from embed_helpers import EmbedServer


@pytest.fixture
def embed_server() -> Iterator[Any]:
    server = EmbedServer(0).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private cache (and XDG_CACHE_HOME), so no test touches the user's cache."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("OLLAMA_BASE_URL", raising=False)
    monkeypatch.delenv("EMBED_MODEL", raising=False)
    return tmp_path / "cache"
