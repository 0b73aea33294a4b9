"""Misbehaving embedding servers (issue 10, items 4, 5 and 6): each ends fast, as one clean
`degraded` finding, with no byte of the API key in it.

The servers are real ones on 127.0.0.1, started by the tests: they trickle bytes, send bodies
far over the cap or a gzip bomb, echo the key in an error page, or answer numbers no float
holds. Each answer stops by itself (SERVE_AT_MOST seconds, or when the client hangs up), and
the client's cap is set small through its endpoint, so no test sends 256 MiB.
"""

from __future__ import annotations

import json
import socket
import threading
import time
import tracemalloc
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest

from embed_helpers import embed_settings
from memory_autopsy.api import lint, load_store
from memory_autopsy.embed.cache import EmbeddingCache
from memory_autopsy.embed.client import Endpoint, HttpEmbedder, resolve
from memory_autopsy.embed.layer import EmbeddingLayer, degraded
from memory_autopsy.embed.protocol import EmbedError
from memory_autopsy.engine import lint_store
from memory_autopsy.model import Finding

ROOT = Path(__file__).resolve().parents[1]
MEMORY = str(ROOT / "examples" / "memory.md")
SERVE_AT_MOST = 5.0  # seconds a hostile answer may last before the server gives up by itself
KEY = "sk-live/Q7xR2mZp9\\Lk4Vn8Ws3Hd6Jf1Tb5Yc0"  # a slash and a backslash: escaped forms differ
HUGE = "1" + "0" * 399  # a 400-digit number


@dataclass(frozen=True)
class Request:
    head: str
    body: bytes

    def header(self, name: str) -> str:
        lines = self.head.split("\r\n")[1:]
        return next(ln.split(":", 1)[1].strip() for ln in lines if ln.lower().startswith(name + ":"))

    @property
    def inputs(self) -> list[Any]:
        return list(json.loads(self.body)["input"])


Respond = Callable[[socket.socket, Request], None]


class HostileServer:
    """HTTP on 127.0.0.1: reads each request, then lets `respond` misbehave on the socket."""

    def __init__(self, respond: Respond) -> None:
        self.respond = respond
        self.requests: list[Request] = []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.05)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}"

    def __enter__(self) -> HostileServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=SERVE_AT_MOST + 1)
        self._listener.close()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self._listener.accept()
            except (TimeoutError, OSError):
                continue
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn: socket.socket) -> None:
        with conn:
            conn.settimeout(SERVE_AT_MOST)
            try:
                request = _read_request(conn)
                self.requests.append(request)
                self.respond(conn, request)
            except OSError:  # the client hung up (what a deadline or a cap should make it do)
                pass


def _read_request(conn: socket.socket) -> Request:
    data = b""
    while b"\r\n\r\n" not in data:
        data += conn.recv(65536) or b"\r\n\r\n"
    head, _, body = data.partition(b"\r\n\r\n")
    request = Request(head.decode("latin-1"), b"")
    length = int(request.header("content-length") or 0)
    while len(body) < length:
        body += conn.recv(65536) or b" " * length
    return replace(request, body=body)


# ------------------------------------------------------------------ ways to answer
def _trickle(conn: socket.socket, data: bytes, every: float = 0.05) -> None:
    end = time.monotonic() + SERVE_AT_MOST
    for byte in data:
        if time.monotonic() > end:
            return
        conn.sendall(bytes([byte]))
        time.sleep(every)


def trickle_body(conn: socket.socket, request: Request) -> None:
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n")
    _trickle(conn, b'{"embeddings": [' + b" " * 10000)


def trickle_headers(conn: socket.socket, request: Request) -> None:
    _trickle(conn, b"HTTP/1.1 200 OK\r\nX-Slow: " + b"z" * 10000)


def _flood(conn: socket.socket, head: bytes, chunked: bool, limit: int = 64 << 20) -> None:
    conn.sendall(head)
    block = b" " * 65536
    end, sent = time.monotonic() + SERVE_AT_MOST, 0
    while sent < limit and time.monotonic() < end:
        conn.sendall(b"%x\r\n%s\r\n" % (len(block), block) if chunked else block)
        sent += len(block)


def huge_declared(conn: socket.socket, request: Request) -> None:
    _flood(conn, b"HTTP/1.1 200 OK\r\nContent-Length: 268435456\r\n\r\n", chunked=False)


def huge_chunked(conn: socket.socket, request: Request) -> None:
    _flood(conn, b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", chunked=True)


def gzip_bomb() -> bytes:
    """About 1 MB of gzip that inflates to about 1 GB of zeros (a full flush makes a segment
    repeatable, so it is built in milliseconds; no trailer: nobody should read that far)."""
    squeeze = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = bytes(1 << 20)
    head = squeeze.compress(block) + squeeze.flush(zlib.Z_FULL_FLUSH)
    segment = squeeze.compress(block) + squeeze.flush(zlib.Z_FULL_FLUSH)
    return head + segment * 1000


def _send(conn: socket.socket, status: int, body: bytes, *headers: bytes) -> None:
    extra = b"".join(h + b"\r\n" for h in headers)
    conn.sendall(b"HTTP/1.1 %d X\r\nContent-Length: %d\r\n%s\r\n%s" % (status, len(body), extra, body))


def bomb(conn: socket.socket, request: Request) -> None:
    _send(conn, 200, gzip_bomb(), b"Content-Encoding: gzip")


def answer(status: int, body: str) -> Respond:
    return lambda conn, request: _send(conn, status, body.encode(), b"Content-Type: application/json")


def vectors(conn: socket.socket, request: Request) -> None:
    """An honest answer: one small vector per text sent."""
    rows = [[0.6, 0.8] if i % 2 else [0.8, 0.6] for i in range(len(request.inputs))]
    _send(conn, 200, json.dumps({"embeddings": rows}).encode())


def echo_key(conn: socket.socket, request: Request) -> None:
    """A 401 page that prints the Authorization header it got, in four spellings, after 140 chars."""
    value = request.header("authorization")
    slashed = value.replace("/", "\\/")
    page = "x" * 140 + f" got {value} | {json.dumps(value)} | {value!r} | {slashed}"
    _send(conn, 401, page.encode())


# ------------------------------------------------------------------ the client, the layer
def _endpoint(url: str, **embed: Any) -> Endpoint:
    """The endpoint the rule file would give, with a small cap: 64 KiB + 1 KiB a text."""
    return replace(resolve(embed_settings(url, **embed).embed, {}), max_bytes_per_text=1024)


def _scan(url: str, *, environ: Mapping[str, str] | None = None, **embed: Any) -> tuple[Finding, float]:
    """The one `degraded` finding of a scan of MEMORY against `url`, and the seconds it took."""
    settings = embed_settings(url, **embed)
    env = dict(environ or {})
    started = time.monotonic()
    try:
        embedder = HttpEmbedder(_endpoint(url, **embed), env)
    except EmbedError as error:  # a missing or unusable key, as the layer itself reports it
        return degraded(str(error)), time.monotonic() - started
    layer = EmbeddingLayer(settings, embedder, environ=env)
    report = lint_store(load_store([MEMORY], settings), settings, extra_layer=layer)
    [finding] = [f for f in report.findings if f.rule == "degraded"]
    return finding, time.monotonic() - started


def _embed_error(url: str, **embed: Any) -> str:
    with pytest.raises(EmbedError) as raised:
        HttpEmbedder(resolve(embed_settings(url, **embed).embed, {}), {}).embed(["a", "b"])
    return str(raised.value)


# ------------------------------------------------------------------ item 6: deadline and size cap
@pytest.mark.parametrize("respond", [trickle_body, trickle_headers], ids=["body", "headers"])
def test_a_trickling_server_meets_the_deadline(respond):
    with HostileServer(respond) as server:
        finding, took = _scan(server.url, timeout=0.5)
    assert "timed out after 0.5s" in finding.message
    assert took < 2.0


def test_the_deadline_is_the_rule_file_timeout():
    """End to end from the settings: `timeout` is the budget of the whole request."""
    with HostileServer(trickle_body) as server:
        started = time.monotonic()
        report = lint(MEMORY, embed_settings(server.url, timeout=0.4))
        took = time.monotonic() - started
    [finding] = [f for f in report.findings if f.rule == "degraded"]
    assert "timed out after 0.4s" in finding.message and took < 2.0


@pytest.mark.parametrize(
    "respond", [huge_declared, huge_chunked, bomb], ids=["content-length", "chunked", "gzip-bomb"]
)
def test_an_oversized_body_stops_at_the_cap(respond):
    with HostileServer(respond) as server:
        tracemalloc.start()
        try:
            finding, took = _scan(server.url, timeout=5)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
    assert "larger than" in finding.message
    assert took < 3.0
    assert peak < 16 << 20  # the cap is under 100 KiB; 256 MiB (or 1 GB inflated) never is held


def test_an_unknown_content_encoding_is_refused():
    with HostileServer(lambda conn, r: _send(conn, 200, b"{}", b"Content-Encoding: br")) as server:
        assert "Content-Encoding" in _embed_error(server.url)


def test_honest_gzip_is_still_read():
    packed = zlib.compress(b'{"embeddings": [[0.6, 0.8], [0.8, 0.6]]}', wbits=31)
    with HostileServer(lambda conn, r: _send(conn, 200, packed, b"Content-Encoding: gzip")) as server:
        embedder = HttpEmbedder(_endpoint(server.url), {})
        assert embedder.embed(["a", "b"]) == [[0.6, 0.8], [0.8, 0.6]]
        assert server.requests[0].header("accept-encoding") == "gzip, deflate"


# ------------------------------------------------------------------ item 4: the key never prints
def _pieces(key: str, size: int) -> set[str]:
    return {key[i : i + size] for i in range(len(key) - size + 1)}


def test_a_key_ending_in_a_newline_is_sent_trimmed_and_never_printed():
    with HostileServer(echo_key) as server:
        environ = {"MA_KEY": KEY + "\n"}
        finding, _ = _scan(server.url, environ=environ, provider="openai", api_key_env="MA_KEY")
        assert server.requests[0].header("authorization") == f"Bearer {KEY}"
    assert "HTTP 401" in finding.message
    assert [p for p in _pieces(KEY, 6) if p in finding.message] == [], finding.message


@pytest.mark.parametrize("bad", ["sk-live\x01Q7xR2mZp9", "sk-live Q7xR2mZp9", "sk-live\nQ7xR2mZp9"])
def test_a_key_no_header_can_carry_is_refused_unsent_and_unprinted(bad):
    with HostileServer(vectors) as server:
        environ = {"MA_KEY": bad}
        finding, _ = _scan(server.url, environ=environ, provider="openai", api_key_env="MA_KEY")
        assert server.requests == []
    assert "MA_KEY" in finding.message and "cannot carry" in finding.message
    assert [p for p in _pieces(bad, 6) if p in finding.message] == []


@pytest.mark.parametrize(
    "page",
    ["x" * 150 + KEY + " and more", f"Incorrect API key provided: {KEY[:14]}****{KEY[-4:]}"],
    ids=["cut-through-the-key", "part-of-the-key"],
)
def test_an_error_page_leaves_no_part_of_the_key(page):
    """The old order cut at 160 characters, then looked for the whole key: its prefix stayed."""
    with HostileServer(answer(500, page)) as server:
        environ = {"MA_KEY": KEY}
        finding, _ = _scan(server.url, environ=environ, provider="openai", api_key_env="MA_KEY")
    assert "HTTP 500" in finding.message
    assert [p for p in _pieces(KEY, 8) if p in finding.message] == [], finding.message


# ------------------------------------------------------------------ item 5: numbers, surrogates
def first_bad(provider: str, bad: str) -> Respond:
    """As many vectors as texts sent, the first one `bad` (so only the numbers are wrong)."""
    good, envelope = ("[0.5, 0.5]", "embeddings") if provider == "ollama" else ('{"embedding": [0, 1]}', "data")

    def respond(conn: socket.socket, request: Request) -> None:
        items = ", ".join([bad.replace("H", HUGE)] + [good] * (len(request.inputs) - 1))
        _send(conn, 200, f'{{"{envelope}": [{items}]}}'.encode())

    return respond


@pytest.mark.parametrize(
    "provider, bad, words",
    [
        ("ollama", "[H, 0.5]", "non-numbers"),
        ("ollama", "[H.0, 0.5]", "non-numbers"),
        ("ollama", "[1e300, 0.5]", "float32"),
        ("openai", '{"index": H.0, "embedding": [1, 0]}', "index"),
    ],
    ids=["400-digit-int", "400-digit-float", "beyond-float32", "openai-index"],
)
def test_numbers_no_float_holds_are_malformed_payloads(provider, bad, words):
    with HostileServer(first_bad(provider, bad)) as server:
        message = _embed_error(server.url, provider=provider)
        finding, _ = _scan(server.url, provider=provider)
    assert "malformed" in message and words in message
    assert "malformed" in finding.message and words in finding.message


def test_json_nested_100k_deep_is_a_malformed_payload():
    with HostileServer(answer(200, "[" * 100_000 + "]" * 100_000)) as server:
        assert "not JSON" in _embed_error(server.url)


def test_a_400_digit_integer_index_is_only_an_order():
    payload = '{"data": [{"index": H, "embedding": [0.6, 0.8]}, {"index": 0, "embedding": [0.8, 0.6]}]}'
    with HostileServer(answer(200, payload.replace("H", HUGE))) as server:
        embedder = HttpEmbedder(_endpoint(server.url, provider="openai"), {})
        assert embedder.embed(["a", "b"]) == [[0.8, 0.6], [0.6, 0.8]]


def test_a_lone_surrogate_is_a_cache_key_like_any_text(tmp_path):
    cache = EmbeddingCache(tmp_path, "http://e", "m\udcff")  # an undecodable EMBED_MODEL
    cache.put("uses \ud800 redis", [0.5, 0.25])
    assert cache.save()
    again = EmbeddingCache(tmp_path, "http://e", "m\udcff")
    assert again.get("uses \ud800 redis") == [0.5, 0.25]
    assert again.get("uses \udc00 redis") is None


def test_a_store_with_a_lone_surrogate_scans_with_the_embed_engine(tmp_path):
    store = tmp_path / "store.jsonl"
    lines = [
        {"entity": "svc", "claim": "uses redis 7 \ud800", "observed_at": "2026-01-01"},
        {"entity": "svc", "claim": "keeps sessions in redis \ud800", "observed_at": "2026-01-02"},
    ]
    store.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    with HostileServer(vectors) as server:
        settings = embed_settings(server.url, cache=tmp_path / "cache")
        first = lint(str(store), settings)
        assert [f.message for f in first.findings if f.rule == "degraded"] == []
        assert any("\\ud800" in r.body.decode() for r in server.requests)  # sent, escaped
        sent = len(server.requests)
        lint(str(store), settings)
        assert len(server.requests) == sent  # the second scan came from the cache


def test_the_client_runs_inside_an_event_loop_too():
    """An async host (an SDK calling on its loop thread, a notebook) still gets the deadline."""
    import asyncio

    async def host(url: str) -> tuple[list[list[float]], str]:
        answered = HttpEmbedder(_endpoint(url), {}).embed(["a", "b"])
        with pytest.raises(EmbedError) as raised:
            HttpEmbedder(_endpoint(slow.url, timeout=0.3), {}).embed(["a"])
        return answered, str(raised.value)

    with HostileServer(vectors) as fine, HostileServer(trickle_headers) as slow:
        got, error = asyncio.run(host(fine.url))
    assert got == [[0.8, 0.6], [0.6, 0.8]] and "timed out after 0.3s" in error
