"""An on-disk embedding cache: a second run over an unchanged store sends no request.

One JSON file per (endpoint, model) under `<cache dir>/embeddings/`; entries are keyed by a
hash of the model and the text, and hold float32 vectors in base64. The cache is best effort:
a missing, corrupt or unwritable file is ignored, never fatal. Writes are atomic (a temp file
in the same folder, then `os.replace`) and merge with whatever another run wrote meanwhile.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import struct
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

FORMAT_VERSION = 1


def default_cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CACHE_HOME/memory-autopsy`, else `~/.cache/memory-autopsy` (Windows: LOCALAPPDATA)."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CACHE_HOME") or (env.get("LOCALAPPDATA") if os.name == "nt" else None)
    root = Path(base) if base else Path.home() / ".cache"
    return root / "memory-autopsy"


def as_float32(vector: Sequence[float]) -> list[float]:
    """The vector as the cache stores it, so a cached run computes exactly what a fresh run did."""
    return list(_unpack(_pack(vector)))


def _pack(vector: Sequence[float]) -> bytes:
    return struct.pack(f"<{len(vector)}f", *vector)


def _unpack(raw: bytes) -> tuple[float, ...]:
    return struct.unpack(f"<{len(raw) // 4}f", raw)


class EmbeddingCache:
    def __init__(self, directory: str | Path, endpoint: str, model: str) -> None:
        name = hashlib.sha256(_utf8(f"{endpoint}\x1f{model}")).hexdigest()[:24]
        self.path = Path(directory) / "embeddings" / f"{name}.json"
        self._endpoint, self._model = endpoint, model
        self._entries: dict[str, str] = self._read()
        self._dirty: dict[str, str] = {}

    def key(self, text: str) -> str:
        return hashlib.sha256(_utf8(f"{self._model}\x1f{text}")).hexdigest()

    def get(self, text: str) -> list[float] | None:
        encoded = self._entries.get(self.key(text))
        if encoded is None:
            return None
        try:
            raw = base64.b64decode(encoded, validate=True)
        except (binascii.Error, ValueError):
            return None
        return list(_unpack(raw)) if raw and len(raw) % 4 == 0 else None

    def put(self, text: str, vector: Sequence[float]) -> None:
        encoded = base64.b64encode(_pack(vector)).decode("ascii")
        key = self.key(text)
        self._entries[key] = encoded
        self._dirty[key] = encoded

    def save(self) -> bool:
        """Merge new entries into the file atomically; False when the cache could not be written."""
        if not self._dirty:
            return True
        merged = self._read()
        merged.update(self._dirty)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".tmp-", suffix=".json")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    json.dump(self._document(merged), handle, separators=(",", ":"), sort_keys=True)
                os.replace(tmp, self.path)
            except BaseException:
                _remove(tmp)
                raise
        except OSError:
            return False
        self._dirty.clear()
        return True

    def _document(self, entries: dict[str, str]) -> dict[str, Any]:
        return {
            "version": FORMAT_VERSION,
            "endpoint": self._endpoint,
            "model": self._model,
            "vectors": entries,
        }

    def _read(self) -> dict[str, str]:
        try:
            with self.path.open(encoding="utf-8") as handle:
                document = json.load(handle)
        except (OSError, ValueError):
            return {}
        if not isinstance(document, dict) or document.get("version") != FORMAT_VERSION:
            return {}
        vectors = document.get("vectors")
        if not isinstance(vectors, dict):
            return {}
        return {k: v for k, v in vectors.items() if isinstance(k, str) and isinstance(v, str)}


def _utf8(text: str) -> bytes:
    """UTF-8 that also takes a lone surrogate (a JSON escape or an undecodable environment
    variable can make one); the key only has to be stable, not valid text."""
    return text.encode("utf-8", "surrogatepass")


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
