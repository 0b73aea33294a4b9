"""HTTP embedders: Ollama's `/api/embed` and any OpenAI-compatible `/v1/embeddings`.

httpx is imported only when a request is sent (embed/transport.py). Every failure (nothing
listening, HTTP error, timeout, an oversized body, malformed payload, vectors of the wrong
shape) becomes an EmbedError; its message never carries the API key (the layer adds the
endpoint). A key goes only over https:// or to this machine: `clear_text_key` refuses plain
http:// to another host before anything connects.
"""

from __future__ import annotations

import ipaddress
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from memory_autopsy import install_hint
from memory_autopsy.embed.protocol import EmbedError
from memory_autopsy.embed.transport import Answer, Limits, post
from memory_autopsy.errors import ConfigError
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
# The runner's own settings: the endpoint, the model, and the key itself (the rule file names
# a variable instead, with api-key-env; `ci` reads only these unless told to trust the rule file)
URL_VARIABLE = "OLLAMA_BASE_URL"
MODEL_VARIABLE = "EMBED_MODEL"
KEY_VARIABLE = "EMBED_API_KEY"
# The decoded body a request may bring back: 8,192 dimensions at 32 characters a number for
# each text sent, plus room for the envelope or an error page. Far above any real model.
MAX_BYTES_PER_TEXT = 256 * 1024
MAX_BYTES_BASE = 64 * 1024
FLOAT32_MAX = 3.4028234663852886e38  # the cache stores float32: a larger value cannot be packed
ERROR_SNIPPET = 160
KEY_RUN = 8  # characters of the key in a row that count as part of it


@dataclass(frozen=True, slots=True)
class Endpoint:
    """A resolved embedding endpoint: settings first, then the environment, then defaults."""

    provider: str
    url: str
    model: str
    timeout: float  # seconds for a whole request (a deadline, not a per-read timeout)
    api_key_env: str | None = None
    max_bytes_per_text: int = MAX_BYTES_PER_TEXT

    @property
    def openai(self) -> bool:
        return self.provider in OPENAI_PROVIDERS

    def limits(self, count: int) -> Limits:
        return Limits(self.timeout, MAX_BYTES_BASE + count * self.max_bytes_per_text)


def resolve(embed: EmbedSettings, environ: Mapping[str, str] | None = None) -> Endpoint:
    env = os.environ if environ is None else environ
    provider = (embed.provider or "ollama").strip().lower()
    if provider not in PROVIDERS:
        raise EmbedError(f"unknown embedding provider {embed.provider!r} (use static, ollama or openai)")
    model = embed.model or env.get(MODEL_VARIABLE) or DEFAULT_MODEL
    return Endpoint(
        provider,
        request_url(_base_url(embed, env), provider in OPENAI_PROVIDERS),
        model,
        float(embed.timeout),
        key_variable(embed, env),
    )


def is_static(embed: EmbedSettings, environ: Mapping[str, str] | None = None) -> bool:
    """Whether the packaged model embeds: asked for (`provider = "static"`), or nothing names a
    server (no provider, `url` or OLLAMA_BASE_URL)."""
    env = os.environ if environ is None else environ
    provider = (embed.provider or "").strip().lower()
    return provider == "static" or not (provider or embed.url or env.get(URL_VARIABLE))


def _base_url(embed: EmbedSettings, env: Mapping[str, str]) -> str:
    return embed.url or env.get(URL_VARIABLE) or DEFAULT_BASE_URL


def key_variable(embed: EmbedSettings, env: Mapping[str, str]) -> str | None:
    """The variable the key is read from: the one api-key-env names, else EMBED_API_KEY when
    it holds one, else None (no key)."""
    if embed.api_key_env:
        return embed.api_key_env
    return KEY_VARIABLE if env.get(KEY_VARIABLE, "").strip() else None


def clear_text_key(embed: EmbedSettings, environ: Mapping[str, str] | None = None) -> None:
    """A ConfigError when a key would go over plain http:// (or any scheme but https) to a host
    that is not this machine: anyone on the way could read it. Asked before the run connects."""
    env = os.environ if environ is None else environ
    variable = key_variable(embed, env)
    if variable is None:
        return
    openai = (embed.provider or "").strip().lower() in OPENAI_PROVIDERS
    if key_may_go(request_url(_base_url(embed, env), openai)):
        return
    # the URL is not quoted: from a rule file, it is the repository's text
    source = "[embed] url" if embed.url else URL_VARIABLE
    raise ConfigError(
        f"the embedding endpoint ({source}) is not https:// and not this machine: the API key "
        f"({variable}) would cross the network in clear text; use https://, or a loopback "
        "address (127.0.0.1, ::1, localhost)")


def key_may_go(url: str) -> bool:
    """Whether a key may be sent to `url`: over https://, or over http:// to this machine."""
    try:
        scheme = urlsplit(url).scheme
    except ValueError:
        return False
    return scheme == "https" or (scheme == "http" and _is_loopback(url))


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
        if self._key and not key_may_go(endpoint.url):  # a caller that skipped clear_text_key
            raise EmbedError(f"the API key ({endpoint.api_key_env}) is never sent in clear text "
                             "to another host (use https://)")

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
            raise EmbedError(_mask_runs(self._scrub(str(error)), self._key)) from None

    def _post(self, body: dict[str, Any]) -> Any:
        try:
            import httpx  # noqa: F401 (only to say what to install)
        except ImportError:
            raise EmbedError(
                f"httpx is not installed ({install_hint('embed')})"
            ) from None
        headers = {"Content-Type": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        # ASCII JSON: a lone surrogate in a claim is escaped, never an encoding crash
        content = json.dumps(body, allow_nan=False).encode("ascii")
        limits = self._endpoint.limits(len(body["input"]))
        answer = post(self.endpoint, content, headers, limits, not _is_loopback(self.endpoint))
        if answer.status >= 400:
            raise EmbedError(self._http_error(answer))
        try:
            return json.loads(answer.body)
        except (ValueError, RecursionError):
            raise EmbedError("malformed payload (not JSON)") from None

    def _http_error(self, answer: Answer) -> str:
        # scrubbed before it is cut: a cut through the key would leave a prefix no scrub finds
        text = " ".join(self._scrub(answer.body.decode("utf-8", "replace")).split())
        snippet = text[:ERROR_SNIPPET]
        return f"HTTP {answer.status}" + (f": {snippet}" if snippet else "")

    def _scrub(self, message: str) -> str:
        for form in _written_forms(self._key):
            message = message.replace(form, "***")
        return message


def _written_forms(key: str) -> list[str]:
    """The key as error texts may spell it: raw, JSON- or repr-escaped, with escaped slashes."""
    if not key:
        return []
    forms = {key, json.dumps(key)[1:-1], repr(key)[1:-1], key.replace("/", "\\/")}
    return sorted(forms, key=len, reverse=True)


def _mask_runs(message: str, key: str, size: int = KEY_RUN) -> str:
    """Mask any run of `size` characters of the key: a server that echoes part of it (a prefix
    to say which key failed) must not print that part through us. For short messages only."""
    if len(key) < size:
        return message
    pieces = {key[i : i + size] for i in range(len(key) - size + 1)}
    masked = [False] * len(message)
    for start in range(len(message) - size + 1):
        if message[start : start + size] in pieces:
            masked[start : start + size] = [True] * size
    return "".join("*" if hide else char for char, hide in zip(message, masked))


def _api_key(endpoint: Endpoint, environ: Mapping[str, str]) -> str:
    if not endpoint.api_key_env:
        return ""
    # a key read from a file keeps its newline; the header would refuse it and print it back
    key = environ.get(endpoint.api_key_env, "").strip()
    if not key:
        raise EmbedError(f"environment variable {endpoint.api_key_env} (api_key_env) is not set")
    if not all("!" <= char <= "~" for char in key):
        raise EmbedError(
            f"environment variable {endpoint.api_key_env} (api_key_env) holds a character "
            "an HTTP header cannot carry (a space or a control or non-ASCII character)"
        )
    return key


def _is_loopback(url: str) -> bool:
    """127.0.0.0/8, ::1 (also as ::ffff:127.x.y.z) or localhost; a name that only begins with
    "127." (127.attacker.example) is another host."""
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:
        return False
    if host == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    mapped = getattr(address, "ipv4_mapped", None)
    return address.is_loopback or (mapped is not None and mapped.is_loopback)


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
    except (TypeError, ValueError, OverflowError):  # OverflowError: an index of 1e400 (inf)
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
        except (TypeError, ValueError, OverflowError):  # OverflowError: a 400-digit integer
            raise EmbedError("malformed payload (a vector holds non-numbers)") from None
        if len(values) != dim or not all(math.isfinite(x) for x in values):
            raise EmbedError("malformed payload (a vector holds non-numbers)")
        if any(abs(x) > FLOAT32_MAX for x in values):
            raise EmbedError("malformed payload (a vector value is out of float32 range)")
        checked.append(values)
    return checked
