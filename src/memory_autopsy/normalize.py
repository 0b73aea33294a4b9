"""Text normalization shared by ingest and engine: claims, entity forms, ids, tokens."""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache
from json.encoder import encode_basestring_ascii as _json_str
from typing import Any

from memory_autopsy import lazyre

# A dot is punctuation unless it sits between two digits (`7.2`). The dot is matched first and
# what is around it asserted after: opened by a lookbehind, the search tried both branches at
# every place of the claim (3.4 µs on a 100-character claim, 0.6 opened by the dot).
_LONE_DOT_PATTERN = r"\.(?:(?<!\d\.)|(?!\d))"
_PUNCT = lazyre.compile(rf"[^\w\s.]|{_LONE_DOT_PATTERN}|_", re.UNICODE)
# ASCII punctuation but the dot, as bytes: bytes.translate reads a 256-byte table, where
# str.translate looks each character up in a dict. The printable characters that are neither
# letters, digits nor blanks are `string.punctuation`: spelled out, a run on a small file does
# not import `string` (which compiles its Template pattern on import) for one constant.
_PUNCT_BUT_DOT = bytes(c for c in range(33, 127) if not chr(c).isalnum() and c != ord("."))
_ASCII_PUNCT = bytes.maketrans(_PUNCT_BUT_DOT, b" " * len(_PUNCT_BUT_DOT))
_LONE_DOT = lazyre.compile(_LONE_DOT_PATTERN)
_TOKEN = lazyre.compile(r"[a-z0-9]+(?:\.[0-9]+)*", re.UNICODE)
_ENTITY_PUNCT = lazyre.compile(r"[\W_]+", re.UNICODE)

LEGAL_SUFFIXES = frozenset(
    "ltd inc corp corporation company co llc gmbh ag sa plc limited incorporated".split()
)

STOPWORDS = frozenset(
    """a an the of for to in on at by with and or but is are was were be been being it its this that
    these those as from into onto our we they he she i you their his her them us now still also
    then than there here has have had do does did not no so very just all any some more most
    which who whom what when where while about over under via per after before since until
    using use""".split()
)


def fold(text: str) -> str:
    """Unicode-normalize and lowercase."""
    if text.isascii():
        return text.lower()
    return unicodedata.normalize("NFKC", text).casefold()


@lru_cache(maxsize=65536)
def normalize_claim(text: str) -> str:
    """Case, whitespace and punctuation collapsed; version dots kept (`7.2`)."""
    folded = fold(text)
    if folded.isascii():  # the same result as the regex, by a translate table
        cleaned = folded.encode("ascii").translate(_ASCII_PUNCT).decode("ascii")
        if "." in cleaned:
            cleaned = _LONE_DOT.sub(" ", cleaned)
        return " ".join(cleaned.split())
    return " ".join(_PUNCT.sub(" ", folded).split())


# A word of any script: letters and digits, no underscore ("tâche", "статистика", "R3").
WORD = lazyre.compile(r"[^\W_]+")

_SUFFIXES = ("ations", "ation", "ing", "ed", "es", "s")


@lru_cache(maxsize=131072)
def stem(word: str) -> str:
    """A light suffix strip, enough to match "updates" with "updated" and "implementation"
    with "implement"; never below three letters."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


# Up to this many words, `holds_any` costs less than one search of a pattern over a line: a
# layer that would search every line for a few names tests them first (`few_words`).
FEW_WORDS = 16


def few_words(words: Iterable[str]) -> tuple[str, ...] | None:
    """The words for `holds_any` when there are few enough to test before a search; else None."""
    held = tuple(words)
    return held if len(held) <= FEW_WORDS else None


def holds_any(text: str, words: tuple[str, ...]) -> bool:
    """Whether any of `words` occurs in `text`, as a search of their alternation says: a
    substring test each, in C, where the regular expression tried every branch at every place
    (about three times as long on a claim)."""
    for word in words:  # a loop: a generator costs more than the tests on a short claim
        if word in text:
            return True
    return False


def tokens(text: str) -> list[str]:
    return _TOKEN.findall(fold(text))


def folded_tokens(folded: str) -> list[str]:
    """tokens() of a text already folded."""
    return _TOKEN.findall(folded)



@lru_cache(maxsize=131072)
def entity_form(name: str) -> str:
    """The conservative normal form of SPEC section 6."""
    words = _ENTITY_PUNCT.sub(" ", fold(name)).split()
    while len(words) > 1 and words[-1] in LEGAL_SUFFIXES:
        words.pop()
    return " ".join(words)


def content_id(parts: Iterable[object]) -> str:
    """16 hex chars of SHA-256 over a canonical JSON rendering of normalized content."""
    items: list[Any] = list(parts)
    try:  # strings and nulls (every fact id): what json.dumps writes, without its per-call setup
        payload = "[" + ",".join(["null" if p is None else _json_str(p) for p in items]) + "]"
    except TypeError:  # a number or a container: json.dumps itself
        payload = json.dumps(items, ensure_ascii=True, separators=(",", ":"), sort_keys=True)
    return hashlib.sha256(payload.encode("ascii")).hexdigest()[:16]


def short_hash(*parts: str) -> str:
    return hashlib.sha256("\x1f".join(parts).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def trigrams(text: str) -> frozenset[str]:
    padded = f"  {text} "
    return frozenset(map("".join, zip(padded, padded[1:], padded[2:])))


def edit_distance(a: str, b: str, limit: int = 3) -> int:
    """Levenshtein distance when it is at most `limit`, else limit + 1. Only the cells within
    `limit` of the diagonal are computed: a path through any other costs more than `limit`."""
    over = limit + 1
    if abs(len(a) - len(b)) > limit:
        return over
    width = len(b)
    previous = [j if j <= limit else over for j in range(width + 1)]
    for i, ca in enumerate(a, 1):
        low, high = max(1, i - limit), min(width, i + limit)
        current = [over] * (width + 1)
        if i <= limit:
            current[0] = i
        best = current[low - 1]
        for j in range(low, high + 1):
            cost = previous[j - 1] + (ca != b[j - 1])
            if previous[j] < cost:
                cost = previous[j] + 1
            if current[j - 1] < cost:
                cost = current[j - 1] + 1
            current[j] = cost = cost if cost < over else over
            if cost < best:
                best = cost
        if best >= over:
            return over
        previous = current
    return previous[width] if previous[width] < over else over
