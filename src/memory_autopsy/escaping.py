"""Output quoting repository data, made inert for a CI log: no workflow command begins in it.

GitHub's runner reads workflow commands from a step's standard output and standard error
alike, line by line (a line ends at CR, LF or CRLF): a line whose text, after leading
whitespace, starts with `::` (`::error file=…::`, `::add-mask::`, `::stop-commands::`), and
the older form `##[name]` anywhere in a line. Its comparisons are the culture-aware ones of
.NET, which skip code points Unicode calls ignorable (a zero-width space between the two `:`
does not stop them). On a pull request, the keys, fingerprints, paths and values the tool
quotes are the author's.

Annotations escape their data as @actions/core does (`formatters/github.py`: `%`, CR and LF
as `%25`, `%0D`, `%0A`). Every other line the tool writes comes through here, in any format:

- `inert`: a `::` opening a line has its second `:` written `\\u003a`, a `##[` its `[`
  written `\\u005b` (ignorable and control characters between them counted as absent). In
  JSON and SARIF both appear only inside strings, where `\\u` is an escape of the same
  character: the document parses to the same values.
- `one_line`: a message (an error, a warning): control characters shown as the text format
  shows memory text (`\\n`, `\\x1b`, `formatters/visible.py`), so a CR or LF in quoted data
  never starts a line; then `inert`.
"""

from __future__ import annotations

import re

from memory_autopsy import lazyre
from memory_autopsy.formatters.visible import visible

# Unicode's Default_Ignorable_Code_Point, and the C0/C1 controls other than line breaks:
# what a culture-aware comparison may step over between the characters of an opener.
_IGNORED = ("\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5"
            "\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0"
            "\ufff0-\ufff8\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff")
# Every character some reader ends a line at (the runner: CR and LF; Python: these too).
_BREAKS = "\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029"
# A `::` opening a line (after whitespace and ignorables), first at a line break, then at the
# text's start; a `##[` anywhere. Three patterns, each led by a character set or a literal that
# the regex engine scans for: one alternation of them all was four times slower on a report.
_AT_BREAK = lazyre.compile(f"[{_BREAKS}][\\s{_IGNORED}]*:[{_IGNORED}]*:")
_AT_START = lazyre.compile(f"[\\s{_IGNORED}]*:[{_IGNORED}]*:")
_LEGACY = lazyre.compile(f"#[{_IGNORED}]*#[{_IGNORED}]*\\[")


def _escape_last(match: re.Match[str]) -> str:
    found = match.group(0)
    return found[:-1] + ("\\u003a" if found[-1] == ":" else "\\u005b")


def inert(text: str) -> str:
    """The text with no workflow command opening in it (see the module's docstring)."""
    first = _AT_START.match(text)
    if first is not None:
        text = _escape_last(first) + text[first.end():]
    if _AT_BREAK.search(text) is not None:
        text = _AT_BREAK.sub(_escape_last, text)
    if "#" in text and _LEGACY.search(text) is not None:
        text = _LEGACY.sub(_escape_last, text)
    return text


def one_line(text: str) -> str:
    """A message quoting repository data, as one inert line: CR, LF and other control
    characters shown as escapes."""
    return inert(visible(text))
