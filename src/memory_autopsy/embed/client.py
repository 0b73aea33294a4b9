"""HTTP embedders: Ollama's `/api/embed` and any OpenAI-compatible `/v1/embeddings`.

httpx is imported here only, and only when a request is sent. Every failure (nothing
listening, HTTP error, timeout, malformed payload, vectors of the wrong shape) becomes an
EmbedError; its message never carries the API key (the layer adds the endpoint).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from memory_autopsy.embed.protocol import EmbedError
from memory_autopsy.settings import EmbedSettings

DEFAULT_BASE_URL = "http://localhost:11434"
DEFAULT_MODEL = "bge-m3"
OPENAI_PROVIDERS = frozenset(
    {
        "openai",
        "openai-compatible",
        "openai_compatible",
        "lmstudio",
        "lm-studio",
        "vllm",
        "llamacpp",
        "llama.cpp",
        "llama-cpp",
    }
)
PROVIDERS = frozenset({"ollama"}) | OPENAI_PROVIDERS
_LOOPBACK = ("localhost", "::1")


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A resolved embedding endpoint: settings first, then the environment, then defaults."""

    provider: str
    url: str
    model: str
    timeout: float
    api_key_env: str | None = None

    @property
    def openai(self) -> bool:
        return self.provider in OPENAI_PROVIDERS


def resolve(embed: EmbedSettings, environ: Mapping[str, str] | None = None) -> Endpoint:
    env = os.environ if environ is None else environ
    provider = (embed.provider or "ollama").strip().lower()
    if provider not in PROVIDERS:
        raise EmbedError(f"unknown embedding provider {embed.provider!r} (use ollama or openai)")
    base = embed.url or env.get("OLLAMA_BASE_URL") or DEFAULT_BASE_URL
    model = embed.model or env.get("EMBED_MODEL") or DEFAULT_MODEL
    return Endpoint(
        provider,
        request_url(base, provider in OPENAI_PROVIDERS),
        model,
        float(embed.timeout),
        embed.api_key_env,
    )


def request_url(base: str, openai: bool) -> str:
    """The full request URL from a base URL (a full endpoint URL is kept as given)."""
    url = base.strip().rstrip("/")
    if "://" not in url:
        url = "http://" + url
    if openai:
        if url.endswith("/embeddings"):
            return url
        return url + ("/embeddings" if url.endswith("/v1") else "/v1/embeddings")
    return url if url.endswith("/api/embed") else url + "/api/embed"


class HttpEmbedder:
    """One POST per call; the caller batches. Implements the Embedder protocol."""

    def __init__(self, endpoint: Endpoint, environ: Mapping[str, str] | None = None) -> None:
        self._endpoint = endpoint
        self._key = _api_key(endpoint, os.environ if environ is None else environ)

    @property
    def endpoint(self) -> str:
        return self._endpoint.url

    @property
    def model(self) -> str:
        return self._endpoint.model

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        try:
            payload = self._post({"model": self.model, "input": list(texts)})
            vectors = (
                _openai_vectors(payload) if self._endpoint.openai else _ollama_vectors(payload)
            )
            return check_vectors(vectors, len(texts))
        except EmbedError as error:
            raise EmbedError(self._scrub(str(error))) from None

    def _post(self, body: dict[str, Any]) -> Any:
        try:
            import httpx
        except ImportError:
            raise EmbedError(
                "httpx is not installed (pip install 'memory-autopsy[embed]')"
            ) from None
        headers = {"Content-Type": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        timeout = self._endpoint.timeout
        try:
            with httpx.Client(timeout=timeout, trust_env=not _is_loopback(self.endpoint)) as client:
                response = client.post(self.endpoint, json=body, headers=headers)
        except httpx.TimeoutException:
            raise EmbedError(f"timed out after {timeout:g}s") from None
        except httpx.HTTPError as error:
            raise EmbedError(f"unreachable ({type(error).__name__}: {error})") from None
        except Exception as error:  # noqa: BLE001 (a bad URL or proxy setting: still never a crash)
            raise EmbedError(f"request failed ({type(error).__name__}: {error})") from None
        if response.status_code >= 400:
            snippet = " ".join(response.text.split())[:160]
            raise EmbedError(f"HTTP {response.status_code}" + (f": {snippet}" if snippet else ""))
        try:
            return response.json()
        except ValueError:
            raise EmbedError("malformed payload (not JSON)") from None

    def _scrub(self, message: str) -> str:
        return message.replace(self._key, "***") if self._key else message


def _api_key(endpoint: Endpoint, environ: Mapping[str, str]) -> str:
    if not endpoint.api_key_env:
        return ""
    key = environ.get(endpoint.api_key_env, "")
    if not key:
        raise EmbedError(f"environment variable {endpoint.api_key_env} (api_key_env) is not set")
    return key


def _is_loopback(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    return host in _LOOPBACK or host.startswith("127.")


def _ollama_vectors(payload: Any) -> Any:
    if not isinstance(payload, dict) or "embeddings" not in payload:
        raise EmbedError("malformed payload (no 'embeddings' list)")
    return payload["embeddings"]


def _openai_vectors(payload: Any) -> Any:
    data = payload.get("data") if isinstance(payload, dict) else None
    if not isinstance(data, list) or not all(isinstance(item, dict) for item in data):
        raise EmbedError("malformed payload (no 'data' list)")
    try:
        ordered = sorted(data, key=lambda item: int(item.get("index", 0)))
    except (TypeError, ValueError):
        raise EmbedError("malformed payload (bad 'index')") from None
    return [item.get("embedding") for item in ordered]


def check_vectors(vectors: Any, count: int, dim: int | None = None) -> list[list[float]]:
    """Vectors as lists of finite floats, `count` of them, all of one (expected) size."""
    if not isinstance(vectors, list) or len(vectors) != count:
        got = len(vectors) if isinstance(vectors, list) else type(vectors).__name__
        raise EmbedError(f"malformed payload (expected {count} vectors, got {got})")
    checked: list[list[float]] = []
    for vector in vectors:
        if not isinstance(vector, list) or not vector:
            raise EmbedError("malformed payload (a vector is not a non-empty list of numbers)")
        if dim is None:
            dim = len(vector)
        if len(vector) != dim:
            raise EmbedError(f"vectors of the wrong size ({len(vector)} values, expected {dim})")
        try:
            values = [float(x) for x in vector if not isinstance(x, (bool, str))]
        except (TypeError, ValueError):
            raise EmbedError("malformed payload (a vector holds non-numbers)") from None
        if len(values) != dim or not all(math.isfinite(x) for x in values):
            raise EmbedError("malformed payload (a vector holds non-numbers)")
        checked.append(values)
    return checked
