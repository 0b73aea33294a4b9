"""The inline annotations a markdown claim can carry: explicit records, dates, sources."""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory_autopsy import lazyre
from memory_autopsy.dates import DATE_PATTERN, YEAR, parse_date
from memory_autopsy.normalize import holds_any

# Every pattern here runs on memory content, so each is linear in the line: no two unbounded
# quantifiers over the same characters sit side by side (a run of spaces between them is tried
# at every split point), names are bounded, and whitespace the code strips anyway is left to
# the bounded name instead of a second `\s*`.
# The entity is never code (`<button wire:click="x">`). It is the run of its characters up to
# the first `(` or `:` (what the aliases and the slot open with), which it cannot hold: taken
# whole, where a lazy run tried what follows it after each character, it splits the line the
# same way.
_ENTITY = r"(?P<entity>[^:=\"()\n<>`{}]{1,80})"
_AKA = r"(?:\((?:aka|a\.k\.a\.|alias(?:es)?)(?:\s*:)?(?P<aka>[^)]*)\)\s*)?"
_KEY, _MORE_WORDS = r"[A-Za-z_][\w.\-]*", r"(?:\s[\w.\-]+){0,2}?"
_SLOT = rf"(?P<slot>{_KEY}{_MORE_WORDS})"
# After an entity a slot may be namespaced (`env:API_KEY`, `route:/billing`, `skill:.net`), as a
# JSON record's slot key is written. A `:` segment holds no blank, so the entity's colon stays
# first; a bare line keeps the plain slot (`env:API_KEY = "x"` reads as entity `env`).
_NAMESPACED_SLOT = rf"(?P<slot>{_KEY}(?::[\w./@\-]+){{0,3}}{_MORE_WORDS})"
_VALUE = r"\"(?P<value>[^\"]*)\""
EXPLICIT = re.compile(rf"^{_ENTITY}{_AKA}:\s*{_NAMESPACED_SLOT}\s*=\s*{_VALUE}(?P<rest>.*)$")
BARE_SLOT = re.compile(rf"^{_SLOT}\s*=\s*{_VALUE}(?P<rest>.*)$")
# The name and class stop at the first `,` / `)` and are stripped by the reader. Both are bounded,
# and a name never runs into the next `(source:`, so `(source: ` repeated is not rescanned to the
# end of the line from every `(`.
_SOURCE = lazyre.compile(
    r"\(\s*source\s*:(?P<name>(?:[^,()]|\((?!\s*source\s*:)){0,200})"
    r"(?:,\s*class\s*:(?P<cls>[^)]{0,200}))?\)",
    re.I,
)
# A value runs to the next `;`, `--` or `(source`, one character at a time: never backtracks.
_PAIR = lazyre.compile(
    r";\s*(?P<key>[A-Za-z_]{1,40})\s*=(?P<val>(?:[^;\-(]|-(?!-)|\((?!source))*)(?=;|--|\(source|$)", re.I
)
_OBS_DASH = lazyre.compile(rf"\s--\s*(?P<date>{DATE_PATTERN})\s*", re.I)
_OBS_PAREN = lazyre.compile(
    rf"\(\s*(?:(?:observed|seen|as of|updated|verified|on)\s*)?(?::\s*)?(?P<date>{DATE_PATTERN})\s*\)", re.I
)
_LEAD_DATE = lazyre.compile(rf"^\[?\s*(?P<date>{DATE_PATTERN})\s*(?:\]\s*)?(?:[-:–—]\s*)?", re.I)
_YEAR = lazyre.compile(YEAR)
_QUOTED = lazyre.compile(r"\"([^\"]+)\"|'([^']+)'")
_EMPHASIS = lazyre.compile(r"(\*\*|__|`)")
_EMPHASIS_MARKS = ("**", "__", "`")


@dataclass
class Annotations:
    """The dates and source a line or a heading states about its facts."""

    observed_at: str | None = None
    valid_from: str | None = None
    valid_to: str | None = None
    source: str | None = None
    source_class: str | None = None
    bad_dates: tuple[str, ...] = ()


def strip_emphasis(text: str) -> str:
    if not holds_any(text, _EMPHASIS_MARKS):  # what _EMPHASIS matches: nothing to remove
        return text.strip()
    return _EMPHASIS.sub("", text).strip()


def split_aliases(text: str | None) -> tuple[str, ...]:
    if not text:
        return ()
    quoted = [a or b for a, b in _QUOTED.findall(text)]
    names = quoted or [part.strip() for part in text.split(",")]
    return tuple(n.strip() for n in names if n.strip())


def read_rest(rest: str) -> Annotations:
    """Parse `; key=value` pairs, `-- DATE` and `(source: …)` after an explicit value."""
    notes = Annotations()
    text = _read_source(rest, notes)
    bad: list[str] = []
    for match in _PAIR.finditer(text) if ";" in text else ():  # a pair opens with `;`
        key, val = match["key"].lower(), match["val"].strip().strip('"')
        if key in ("valid_from", "valid_at", "from"):
            notes.valid_from = _date_or_bad(val, key, bad)
        elif key in ("valid_to", "invalid_at", "until", "to"):
            notes.valid_to = _date_or_bad(val, key, bad)
        elif key in ("source",):
            notes.source = val or None
        elif key in ("source_class", "class"):
            notes.source_class = val or None
        elif key in ("observed", "observed_at", "date"):
            notes.observed_at = _date_or_bad(val, key, bad)
    dash = _OBS_DASH.search(text + " ") if "--" in text else None
    if dash:
        notes.observed_at = parse_date(dash["date"])
    notes.bad_dates = tuple(bad)
    return notes


def _date_or_bad(text: str, key: str, bad: list[str]) -> str | None:
    parsed = parse_date(text)
    if parsed is None and text:
        bad.append(f"{key}={text}")
    return parsed


def _read_source(text: str, notes: Annotations) -> str:
    match = _SOURCE.search(text) if "(" in text else None
    if not match:
        return text
    notes.source = match["name"].strip() or None
    if match["cls"]:
        notes.source_class = match["cls"].strip()
    return text[: match.start()] + text[match.end() :]


def read_prose(text: str) -> tuple[str, Annotations]:
    """Strip date and source annotations off a prose claim; return the bare claim."""
    notes = Annotations()
    text = _read_source(text, notes)
    if _YEAR.search(text) is None:  # every date pattern holds a four-digit year
        return text.strip().rstrip(" -–—").strip(), notes
    lead = _LEAD_DATE.match(text)
    if lead and parse_date(lead["date"]):
        notes.observed_at = parse_date(lead["date"])
        text = text[lead.end() :]
    for pattern, mark in ((_OBS_PAREN, "("), (_OBS_DASH, "--")):
        if mark not in text:  # what each pattern opens with
            continue
        matches = list(pattern.finditer(text + " "))
        match = matches[-1] if matches else None
        if match and parse_date(match["date"]):
            notes.observed_at = notes.observed_at or parse_date(match["date"])
            text = (text + " ")[: match.start()] + (text + " ")[match.end() :]
    return text.strip().rstrip(" -–—").strip(), notes
