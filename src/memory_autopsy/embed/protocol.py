"""What the embedding layer needs from an embedding backend, and how a backend fails."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol


class EmbedError(Exception):
    """The endpoint could not give usable vectors; the message names the endpoint, never a key."""


class Embedder(Protocol):
    """Anything that turns texts into vectors (an HTTP client, a test double)."""

    @property
    def endpoint(self) -> str:
        """Where the vectors come from (shown in `degraded` findings and part of the cache key)."""
        ...

    @property
    def model(self) -> str: ...

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per text, in order; raises EmbedError on any failure."""
        ...
