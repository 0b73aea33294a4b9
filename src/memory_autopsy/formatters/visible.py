"""Memory text made safe to print: control characters shown, lone surrogates never encoded.

Memory content is untrusted. Raw ESC/OSC bytes reaching a terminal can retitle the window,
hide or rewrite earlier lines, or forge a clean summary, so the human formats (text, markdown)
show every C0/C1 control character as an escape (`\\x1b`). A lone surrogate (legal in a JSON
string, impossible in UTF-8) makes every encoder raise, so no format may carry one raw.
"""

from __future__ import annotations

import re

from memory_autopsy import lazyre

# C0 except tab, DEL, C1, and the surrogate block (lone halves: Python strings from JSON).
_UNSAFE = lazyre.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\ud800-\udfff]")
_UNSAFE_BUT_LINES = lazyre.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")
_SURROGATE = lazyre.compile("[\ud800-\udfff]")
_C1 = lazyre.compile("[\x7f-\x9f]")
_NAMED = {"\n": "\\n", "\r": "\\r"}


def _shown(match: re.Match[str]) -> str:
    char = match.group(0)
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


# Each function returns the text as it is when it holds nothing its patterns replace (control
# characters and DEL are ASCII, C1 and surrogates are not), without a search and without
# compiling the patterns: ~0.7 ms of every hook run, for printing a summary line.


def visible(text: str, *, keep_lines: bool = False) -> str:
    """Human output: control characters and lone surrogates as escapes (CR/LF kept on request,
    for a caller that escapes line breaks its own way)."""
    if text.isascii() and text.isprintable():
        return text
    return (_UNSAFE_BUT_LINES if keep_lines else _UNSAFE).sub(_shown, text)


def scrub(text: str) -> str:
    """Any output: lone surrogates become U+FFFD so the text always encodes as UTF-8."""
    if text.isascii():
        return text
    return _SURROGATE.sub("\ufffd", text)


def json_safe(text: str) -> str:
    """Serialized JSON: lone surrogates replaced, DEL and C1 as `\\u00XX` (C0 json escapes)."""
    if text.isascii() and "\x7f" not in text:
        return text
    text = scrub(text)
    return _C1.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)

