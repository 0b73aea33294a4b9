"""One bounded POST: a wall-clock deadline over every phase, a cap on the decoded body.

httpx's timeouts are per network operation, so a server trickling one byte per second never
trips them, in the headers or the body. The request therefore runs on httpx's async client under
`asyncio.wait_for`, the total timeout httpx's authors point to (encode/httpx#776): cancellation
reaches connect, send, headers and body alike and closes the socket. The body is streamed raw
and inflated here with zlib's `max_length`, so neither a large body nor a gzip bomb is held past
the cap. Every failure is an EmbedError.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from memory_autopsy.embed.protocol import EmbedError

T = TypeVar("T")
Inflate = Callable[[bytes, int], bytes]
ACCEPT_ENCODING = "gzip, deflate"  # what _inflater decodes; httpx would add br/zstd if installed


@dataclass(frozen=True, slots=True)
class Limits:
    """What one embedding request may take: its time and its body's size."""

    deadline: float  # seconds for the whole request, first connect to last byte
    max_bytes: int  # of the decoded body


@dataclass(frozen=True, slots=True)
class Answer:
    """An embedding server's answer: its status and its decoded body."""

    status: int
    body: bytes


def post(url: str, body: bytes, headers: Mapping[str, str], limits: Limits, trust_env: bool) -> Answer:
    """POST `body`; the answer, or EmbedError once the deadline passes or the body tops the cap."""
    import asyncio

    import httpx

    async def bounded() -> Answer:
        return await asyncio.wait_for(_fetch(url, body, headers, limits, trust_env), limits.deadline)

    try:
        return _run(bounded)
    except (asyncio.TimeoutError, httpx.TimeoutException):
        raise EmbedError(f"timed out after {limits.deadline:g}s") from None
    except httpx.HTTPError as error:
        raise EmbedError(f"unreachable ({type(error).__name__}: {error})") from None
    except EmbedError:
        raise
    except Exception as error:  # noqa: BLE001 (a bad URL or proxy setting: still never a crash)
        raise EmbedError(f"request failed ({type(error).__name__}: {error})") from None


def _run(make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    """Run a coroutine to the end from synchronous code, inside a running event loop or not."""
    import asyncio
    from concurrent.futures import ThreadPoolExecutor

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())
    # an async host (an SDK on its loop thread, a notebook): asyncio.run refuses there
    with ThreadPoolExecutor(1, thread_name_prefix="memory-autopsy-embed") as pool:
        return pool.submit(lambda: asyncio.run(make())).result()


async def _fetch(
    url: str, body: bytes, headers: Mapping[str, str], limits: Limits, trust_env: bool
) -> Answer:
    import httpx

    sent = {**headers, "Accept-Encoding": ACCEPT_ENCODING}
    async with httpx.AsyncClient(timeout=limits.deadline, trust_env=trust_env) as client:
        async with client.stream("POST", url, content=body, headers=sent) as response:
            _check_declared_size(response.headers.get("content-length"), limits.max_bytes)
            inflate = _inflater(response.headers.get("content-encoding", ""))
            data = bytearray()
            async for chunk in response.aiter_raw():
                data += inflate(chunk, limits.max_bytes - len(data))
                if len(data) > limits.max_bytes:
                    raise _too_large(limits.max_bytes)
            return Answer(response.status_code, bytes(data))


def _check_declared_size(declared: str | None, cap: int) -> None:
    """Refuse before reading when the server says up front that the body is over the cap."""
    if declared is not None and declared.strip().isdigit() and int(declared) > cap:
        raise _too_large(cap)


def _too_large(cap: int) -> EmbedError:
    return EmbedError(f"response larger than {cap} bytes (the cap; a smaller batch-size if it is real)")


def _inflater(encoding: str) -> Inflate:
    """Decoded bytes for a raw chunk, never more than `room + 1` (one more shows the cap is hit)."""
    coding = encoding.strip().lower()
    if coding in ("", "identity"):
        return lambda chunk, room: chunk
    if coding not in ("gzip", "x-gzip", "deflate"):
        raise EmbedError(f"unsupported Content-Encoding {encoding[:40]!r}")
    inflater = zlib.decompressobj(zlib.MAX_WBITS | 32)  # | 32: a gzip or a zlib header

    def inflate(chunk: bytes, room: int) -> bytes:
        try:
            out = inflater.decompress(chunk, room + 1)
            while inflater.unconsumed_tail and len(out) <= room:
                out += inflater.decompress(inflater.unconsumed_tail, room + 1 - len(out))
        except zlib.error:
            raise EmbedError(f"malformed payload (bad {coding} body)") from None
        return out

    return inflate
