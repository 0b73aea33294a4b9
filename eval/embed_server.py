#!/usr/bin/env python3
"""A deterministic stand-in for an embedding server, for the eval and the tests (stdlib only).

It speaks both protocols the embedding engine uses:

    POST /api/embed       {"model", "input": [..]} -> {"model", "embeddings": [[..], ..]}   (Ollama)
    POST /v1/embeddings   {"model", "input": [..]} -> {"data": [{"embedding", "index"}]}  (OpenAI)

The embedder is a hashed bag of words plus character trigrams, with a small concept table so
that claims naming different tools of one kind (postgres / mysql, redis / memcached) in a
shared frame land around 0.6-0.7 cosine, as they do with bge-m3. It is NOT a language model:
numbers measured against it say how the layer-3 recheck behaves, not how bge-m3 would score.

    python eval/embed_server.py --port 0        # prints its base URL, serves until killed
    python eval/run_eval.py --engine embed --embed-url URL

Tests import `embed_text` and `EmbedServer` from this file (by path) and flip the server's
failure modes: `mode` = ok | error | sleep | malformed | wrong_size, `delay` seconds for
`sleep`, and `requests` counts every POST.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DIM = 256
WORD_WEIGHT = 1.0
CONCEPT_WEIGHT = 1.8
TRIGRAM_WEIGHT = 0.15
STOP_WEIGHT = 0.1

STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "for",
        "to",
        "in",
        "on",
        "at",
        "by",
        "with",
        "and",
        "or",
        "is",
        "are",
        "was",
        "were",
        "be",
        "it",
        "its",
        "this",
        "that",
        "our",
        "we",
        "what",
        "now",
        "these",
        "those",
    ]
)
# Words of one kind share a concept dimension: this is what makes "postgres" and "mysql"
# claims similar without making them the same.
CONCEPTS = {
    **dict.fromkeys(
        ["postgres", "postgresql", "pg", "mysql", "mariadb", "aurora", "sqlite", "oracle", "mssql"],
        "sql-db",
    ),
    **dict.fromkeys(["redis", "memcached", "valkey", "dragonfly"], "kv-cache"),
    **dict.fromkeys(["kafka", "rabbitmq", "nats", "sqs", "pulsar"], "queue"),
    **dict.fromkeys(
        ["heroku", "fly.io", "fly", "render", "vercel", "netlify", "aws", "gcp", "azure"], "host"
    ),
    **dict.fromkeys(
        [
            "sits",
            "sit",
            "lives",
            "live",
            "kept",
            "stored",
            "stores",
            "backs",
            "runs",
            "resides",
            "held",
        ],
        "locate",
    ),
    **dict.fromkeys(["ledger", "data", "records", "invoices"], "records"),
    **dict.fromkeys(["days", "today", "currently", "nowadays"], "time"),
}
_WORD = re.compile(r"[a-z0-9]+(?:\.[a-z0-9]+)*")


def _slot(feature: str) -> tuple[int, float]:
    digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
    return int.from_bytes(digest[:4], "little") % DIM, (1.0 if digest[4] & 1 else -1.0)


def embed_text(text: str) -> list[float]:
    """A unit vector for a text: same text, same vector, on every machine and Python."""
    vector = [0.0] * DIM
    folded = " ".join(text.casefold().split())

    def add(feature: str, weight: float) -> None:
        index, sign = _slot(feature)
        vector[index] += sign * weight

    for word in _WORD.findall(folded):
        add("w:" + word, STOP_WEIGHT if word in STOPWORDS else WORD_WEIGHT)
        if word in CONCEPTS:
            add("c:" + CONCEPTS[word], CONCEPT_WEIGHT)
    padded = f"  {folded} "
    for i in range(len(padded) - 2):
        add("t:" + padded[i : i + 3], TRIGRAM_WEIGHT)
    norm = math.sqrt(sum(x * x for x in vector)) or 1.0
    return [round(x / norm, 6) for x in vector]


class _Handler(BaseHTTPRequestHandler):
    server: EmbedServer

    def do_POST(self) -> None:
        srv = self.server
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        with srv.lock:
            srv.requests += 1
            srv.seen.append(
                {
                    "path": self.path,
                    "headers": dict(self.headers.items()),
                    "body": raw.decode("utf-8", "replace"),
                }
            )
        if self.path.rstrip("/") not in ("/api/embed", "/v1/embeddings"):
            return self._send(404, {"error": f"no route {self.path}"})
        if srv.mode == "sleep":
            time.sleep(srv.delay)
        if srv.mode == "error":
            return self._send(500, {"error": "model runner crashed"})
        if srv.mode == "malformed":
            return self._send_raw(200, b'{"embeddings": [[0.1, 0.2], ')
        try:
            body = json.loads(raw)
            texts = body["input"]
            texts = [texts] if isinstance(texts, str) else list(texts)
        except (ValueError, KeyError, TypeError):
            return self._send(400, {"error": 'expected {"model": ..., "input": [...]}'})
        vectors = [embed_text(str(t)) for t in texts]
        if srv.mode == "wrong_size" and vectors:
            vectors[-1] = vectors[-1][: DIM // 2]
        if self.path.startswith("/v1"):
            data = [
                {"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)
            ]
            self._send(200, {"object": "list", "model": body.get("model"), "data": data})
        else:
            self._send(200, {"model": body.get("model"), "embeddings": vectors})

    def _send(self, status: int, payload: dict[str, Any]) -> None:
        self._send_raw(status, json.dumps(payload).encode("utf-8"))

    def _send_raw(self, status: int, data: bytes) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test): nothing to answer

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.verbose:
            sys.stderr.write("embed-server: " + format % args + "\n")


class EmbedServer(ThreadingHTTPServer):
    """The deterministic server on 127.0.0.1; `start()` serves from a daemon thread."""

    daemon_threads = True

    def __init__(self, port: int = 0, *, verbose: bool = False) -> None:
        super().__init__(("127.0.0.1", port), _Handler)
        self.mode = "ok"
        self.delay = 0.0
        self.requests = 0
        self.seen: list[dict[str, Any]] = []
        self.lock = threading.Lock()
        self.verbose = verbose
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def start(self) -> EmbedServer:
        self._thread = threading.Thread(
            target=self.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="embed-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--port", type=int, default=0, help="port on 127.0.0.1 (0 picks a free one)"
    )
    parser.add_argument("--verbose", action="store_true", help="log every request on stderr")
    args = parser.parse_args(argv)
    server = EmbedServer(args.port, verbose=args.verbose)
    print(server.url, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
