"""One line per finding and a summary line, like every linter.

Each line names both sides of a finding: when the message does not already name the other
side, it follows as `(other side: path:line)`. Given the changed files (the hook), a finding
whose flagged side is untouched leads with the side the author changed; its message is then
said from there: the "here" that meant the flagged side names it (`at path:line`), and the
printed location, where the message names it, becomes "here". A line reads as a sentence: the
layer, the confidence and the entity are kept for `verbose` (and in JSON and SARIF).
Colour is an option of the caller (the CLI decides from the TTY and NO_COLOR).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from memory_autopsy import lazyre
from memory_autopsy.formatters.visible import visible
from memory_autopsy.model import Finding, Location, Report
from memory_autopsy.rules import BY_ID

OTHER_SIDES_SHOWN = 3
# The flagged side, as the rules' messages say it, or a quote opening memory text.
_HERE_OR_QUOTE = lazyre.compile(r" here\b|(?:^|(?<=[\s(\[:,]))['\"]")
_RANGE_END = lazyre.compile(r"-\d+")  # `path:12-14`: a copied block's lines
_STYLE = {"error": "31;1", "warning": "33", "review": "35", "info": "36", "where": "1", "summary": "1"}


def paint(text: str, style: str, color: bool) -> str:
    return f"\x1b[{_STYLE[style]}m{text}\x1b[0m" if color and text else text


def code_of(rule: str) -> str:
    spec = BY_ID.get(rule)
    return spec.code if spec is not None else ""


def finding_line(finding: Finding, *, changed: frozenset[str] | None = None, color: bool = False,
                 verbose: bool = False) -> str:
    """One finding on one line; memory text in it is shown, never sent raw to the terminal."""
    lead, message, sides = _sides(finding, changed)
    where = location_text(lead.path, lead.line, lead.obs) if lead.path else "memory-autopsy"
    marker = " [new]" if finding.baseline == "new" else ""
    code = code_of(finding.rule)
    head = f"{finding.rule} {code}" if code else finding.rule
    if verbose:
        confidence = f" conf={finding.confidence:g}" if finding.rule in _HEDGED else ""
        entity = f" {finding.entity}" if finding.entity else ""
        tail = visible(f" L{finding.layer}{confidence}{entity} :: {message}{sides}{marker}")
    else:
        tail = visible(f": {message}{sides}{marker}")
    return (f"{paint(visible(where), 'where', color)}: {paint(finding.severity.value, finding.severity.value, color)}"
            f" {head}{tail}")


def _sides(finding: Finding, changed: frozenset[str] | None) -> tuple[Location, str, str]:
    """The location the line leads with, the message said from there, and the note naming the
    sides the message does not."""
    lead = _lead(finding, changed)
    flagged = Location(finding.path, finding.line, obs=finding.obs)
    if lead is None:
        return flagged, finding.message, _other_sides(finding.related, finding.message, " (other side: ")
    message = said_from(finding.message, lead, flagged)
    others = [r for r in finding.related if r is not lead]
    if _mentions(message, flagged):
        return lead, message, _other_sides(others, message, " (other side: ")
    rest = _other_sides(others, message, "; other side: ")
    return lead, message, f" (flagged side: {_where(flagged)}{rest or ')'}"


def said_from(message: str, lead: Location, flagged: Location) -> str:
    """The message of a finding flagged at `flagged`, said from `lead`: its own "here" (the
    flagged side; one inside quoted memory text is the memory's) becomes `at <flagged>`, and
    where it names `lead` ("done at <lead>", "copied from <lead>-14"), that becomes "here"."""
    here = _unquoted_here(message)
    edits = [] if here < 0 else [(here, here + len(" here"), f" at {_where(flagged)}")]
    at = _named(message, lead)
    if at >= 0:
        end = at + len(_where(lead))
        span = _RANGE_END.match(message, end)
        end = span.end() if span else end
        after_at = message.endswith(" at ", 0, at) or message[:at] == "at "
        edits.append((at - 3 if after_at else at, end, "here"))
    for begin, end, text in sorted(edits, reverse=True):
        message = message[:begin] + text + message[end:]
    return message


def _unquoted_here(message: str) -> int:
    """Where the message's own " here" is: the first outside the memory text it quotes (as
    `repr` quotes it: 'x', or "x" when x holds an apostrophe); -1 when it has none."""
    at = 0
    while True:
        found = _HERE_OR_QUOTE.search(message, at)
        if found is None:
            return -1
        if found.group() == " here":
            return found.start()
        mark = found.group()[-1]
        close = _closing(message, found.end(), mark)
        if close < 0:
            return -1
        at = close + 1


def _closing(message: str, start: int, mark: str) -> int:
    """The quote that ends a quoted span opened before `start`: `mark` not escaped and not
    followed by a letter or digit (an apostrophe inside a word is the span's text)."""
    at = message.find(mark, start)
    while at >= 0:
        if message[at - 1] != "\\" and (at + 1 == len(message) or not message[at + 1].isalnum()):
            return at
        at = message.find(mark, at + 1)
    return -1


def _lead(finding: Finding, changed: frozenset[str] | None) -> Location | None:
    """The changed side a line leads with when the flagged side is not changed (None: the
    flagged side leads)."""
    if changed is None or finding.path in changed:
        return None
    return next((r for r in finding.related if r.path in changed), None)


def _other_sides(others: Sequence[Location], message: str, opening: str) -> str:
    """The related sides, unless the message already names one of them (it then reads whole)."""
    shown = [r for r in others if r.path]
    if not shown or any(_mentions(message, r) for r in shown):
        return ""
    listed = ", ".join(_where(r) for r in shown[:OTHER_SIDES_SHOWN])
    if len(shown) > OTHER_SIDES_SHOWN:
        listed += f", +{len(shown) - OTHER_SIDES_SHOWN} more"
    return f"{opening}{listed})"


def _mentions(message: str, side: Location) -> bool:
    return _named(message, side) >= 0


def _named(message: str, side: Location) -> int:
    """Where the message names `path:line` (and not a longer line number that begins so); -1
    when it does not. Searched for as text: a pattern made per finding was compiled per finding
    (re's cache holds 512): half the time of a hook printing 20,000 findings."""
    needle = f"{side.path}:{side.line}"
    at = message.find(needle)
    while at != -1:
        after = at + len(needle)
        if after == len(message) or not message[after].isdecimal():  # `\d` is a decimal digit
            return at
        at = message.find(needle, at + 1)
    return -1


def _where(location: Location) -> str:
    return location_text(location.path, location.line, location.obs)


def location_text(path: str, line: int, obs: int = -1) -> str:
    """`path:line`, plus `#obs-N` when the location is one observation of a graph line."""
    return f"{path}:{line}#obs-{obs}" if obs >= 0 else f"{path}:{line}"


_HEDGED = frozenset({"likely_conflict", "contradicted_implicit", "near_duplicate", "unresolved_alias"})


def plural(count: int, noun: str, many: str | None = None) -> str:
    """"1 finding", "2 findings"; `many` for a noun whose plural is not noun + s ("entries")."""
    return f"{count} {noun}" if count == 1 else f"{count} {many or noun + 's'}"


def summary(report: Report) -> str:
    if not report.findings:
        extra = f", {report.suppressed} suppressed" if report.suppressed else ""
        extra += "".join(f", {note}" for note in report.notes)
        if report.fixed:
            extra += f", {len(report.fixed)} baselined finding(s) gone"
        kind = "no new findings" if report.notes else "0 findings"
        return f"clean: {len(report.facts)} facts, {kind} (engine={report.engine}){extra}"
    counts = Counter(f.rule for f in report.findings)
    detail = ", ".join(f"{rule}={count}" for rule, count in sorted(counts.items()))
    parts = [f"== {plural(len(report.findings), 'finding')} ({detail})", f"{len(report.facts)} facts",
             f"engine={report.engine}"]
    if report.suppressed:
        parts.append(f"{report.suppressed} suppressed")
    parts += list(report.notes)
    if report.fixed:
        parts.append(f"{len(report.fixed)} baselined finding(s) gone")
    return " | ".join(parts)


PRUNE_COMMAND = "memory-autopsy baseline --prune-only"


def gone_lines(fixed: Sequence[Mapping[str, Any]], prune: str = "") -> list[str]:
    """Baselined findings no longer found, each named as its baseline entry names it (rule,
    path, entity, copies, fingerprint, message: entries keep no line numbers), after the command
    that drops them (`prune`, else the bare one). A count alone says neither which findings
    went nor what to do about it. The entries are the baseline's text: shown, never sent raw."""
    if not fixed:
        return []
    lines = [f"{plural(len(fixed), 'baselined finding')} gone (no longer found): "
             f"`{prune or PRUNE_COMMAND}` drops {'it' if len(fixed) == 1 else 'them'} from the baseline"]
    for entry in fixed:
        count = f" x{entry['count']}" if entry.get("count", 1) != 1 else ""
        entity = f" {entry['entity']}" if entry.get("entity") else ""
        lines.append(f"  - {entry['rule']} {entry['path']}{entity}{count} [{entry['fingerprint']}] "
                     f":: {entry['message']}")
    return [visible(line) for line in lines]


def format_report(report: Report, *, changed: frozenset[str] | None = None, color: bool = False,
                  quiet: bool = False, statistics: bool = False, verbose: bool = False,
                  prune: str = "") -> str:
    """The finding lines (or, with `statistics`, the per-rule counts), the baselined findings
    gone (see `gone_lines`) and the summary line; `quiet` leaves out the last two, so a clean
    run prints nothing."""
    if statistics:
        lines = statistics_table(report)
    else:
        findings = report.findings
        if changed is not None:  # sorted by the location each line leads with
            findings = tuple(sorted(findings, key=lambda f: _lead_key(f, changed)))
        lines = [finding_line(f, changed=changed, color=color, verbose=verbose) for f in findings]
    if not quiet:
        lines += gone_lines(report.fixed, prune)
        lines.append(paint(summary(report), "summary", color))
    return "".join(line + "\n" for line in lines)


def baseline_changed(sentence: str, added: Sequence[Mapping[str, Any]]) -> str:
    """The lines that say a change altered the baseline: the sentence, then one line per entry
    it adds (rule, path, entity, copies, fingerprint, message), so a reviewer sees what a
    "0 new" accepts. The entries are the change's own text: shown, never sent raw."""
    lines = [sentence]
    for entry in added:
        copies = f" x{entry['count']}" if entry["count"] != 1 else ""
        lines.append(f"  + {entry['rule']} {entry['path']} {entry['entity']}{copies} "
                     f"[{entry['fingerprint']}] :: {entry['message']}")
    return "".join(visible(line) + "\n" for line in lines)


def _lead_key(finding: Finding, changed: frozenset[str]) -> tuple[str, int, str]:
    lead = _lead(finding, changed)
    return (finding.path, finding.line, finding.rule) if lead is None else (lead.path, lead.line, finding.rule)


def statistics_table(report: Report) -> list[str]:
    """Per-rule counts, most frequent first (`ruff --statistics`): count, code, rule, severity."""
    counts = Counter((f.rule, f.severity.value) for f in report.findings)
    rows = sorted(counts.items(), key=lambda item: (-item[1], code_of(item[0][0]), item[0]))
    width = max((len(str(n)) for n in counts.values()), default=1)
    name_width = max((len(rule) for rule, _ in counts), default=0)
    return [f"{n:>{width}}  {code_of(rule):<5}  {rule:<{name_width}}  {severity}"
            for (rule, severity), n in rows]
