"""Helpers for the embedding-layer tests: the deterministic server of eval/embed_server.py.

The server really listens on 127.0.0.1 and speaks Ollama's and the OpenAI protocol; its
embedder is imported from the eval script by path, so the tests and the eval measure the same
thing. The fixtures live in embed_fixtures.py (a test module names it in `pytest_plugins`).
"""

from __future__ import annotations

import importlib.util
import math
import socket
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

from memory_autopsy.settings import EmbedSettings, Settings

ROOT = Path(__file__).resolve().parents[1]
EMBED_SERVER = ROOT / "eval" / "embed_server.py"


def _load_server_module() -> ModuleType:
    name = "memory_autopsy_eval_embed_server"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, EMBED_SERVER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


server_module = _load_server_module()
embed_text = server_module.embed_text
EmbedServer = server_module.EmbedServer


def embed_settings(url: str, cache: Path | None = None, **embed: Any) -> Settings:
    """Settings for the embed engine against `url` (no cache unless one is given)."""
    values: dict[str, Any] = {
        "url": url,
        "timeout": 2.0,
        "use_cache": cache is not None,
        "cache_dir": str(cache) if cache else None,
    }
    values.update(embed)
    return replace(Settings(), engine="embed", embed=replace(EmbedSettings(), **values))


def closed_port_url() -> str:
    """A loopback URL where nothing listens (the port was just released)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    return f"http://127.0.0.1:{port}"


def cosine(a: str, b: str) -> float:
    va, vb = embed_text(a), embed_text(b)
    return sum(x * y for x, y in zip(va, vb)) / math.sqrt(
        sum(x * x for x in va) * sum(y * y for y in vb)
    )


class FixedEmbedder:
    """A test double of the Embedder protocol: texts map to given vectors, calls are counted."""

    endpoint = "fixed://test"
    model = "fixed"

    def __init__(self, vectors: dict[str, Sequence[float]]) -> None:
        self.vectors = vectors
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        return [list(self.vectors.get(t, (0.0, 0.0, 1.0))) for t in texts]


def at_cosine(c: float) -> tuple[tuple[float, float, float], tuple[float, float, float]]:
    """Two unit vectors whose cosine is exactly `c`."""
    return (1.0, 0.0, 0.0), (c, math.sqrt(1 - c * c), 0.0)
