"""GitHub Actions workflow commands: annotations, then the plain listing fenced off.

Annotation data escapes `%`, CR and LF; properties also `:` and `,` (the escaping of
@actions/core), so memory text can never end a command line and start another. GitHub shows
10 annotations per level and step: new findings in changed files go first, and one notice says
how many more there are. The plain listing echoes memory text verbatim, so it is wrapped in
`::stop-commands::TOKEN` ... `::TOKEN::` with a random token: nothing inside runs as a command.
`file=` is relative to the repository root the caller names, as SARIF URIs are (`locations`).
`scan --format github` and `ci` both come here, so both keep the same per-level cap.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence

from memory_autopsy.formatters.locations import Roots, named_at
from memory_autopsy.formatters.text import finding_line, gone_lines, summary
from memory_autopsy.formatters.visible import scrub, visible
from memory_autopsy.model import Finding, Report, Severity

PER_LEVEL = 10
LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning",
         Severity.REVIEW: "notice", Severity.INFO: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(finding: Finding, roots: Roots) -> str:
    properties = []
    if finding.path:
        where = roots(finding.path) or finding.path  # outside the root: as given
        properties += [f"file={escape_property(where)}",
                       f"line={max(1, finding.line)}"]
        if finding.end_line > max(1, finding.line):  # a copied block: the annotation spans it
            properties.append(f"endLine={finding.end_line}")
    properties.append(f"title={escape_property(f'memory-autopsy {finding.rule}')}")
    message, others = finding.message, []
    for side in (r for r in finding.related if r.path):
        named, shown = f"{side.path}:{side.line}", f"{roots(side.path) or side.path}:{side.line}"
        at = named_at(message, named)
        if at >= 0:  # said once, spelled from the repository root
            message = message[:at] + shown + message[at + len(named):]
        else:
            others.append(shown)
    if others:
        message += " (other side: " + ", ".join(others) + ")"
    message = visible(message, keep_lines=True)  # escape_data turns CR/LF into %0D/%0A
    return f"::{LEVEL[finding.severity]} {','.join(properties)}::{escape_data(message)}"


def priority(finding: Finding, changed: frozenset[str] | None) -> tuple[int, int, int, str, int]:
    sides = (finding.path, *(r.path for r in finding.related))
    outside = changed is not None and not any(p in changed for p in sides)
    return (int(outside), int(finding.baseline == "unchanged"), -finding.severity.rank,
            finding.path, finding.line)


def select(findings: Sequence[Finding], changed: frozenset[str] | None) -> tuple[list[Finding], int]:
    """The findings to annotate within GitHub's per-level limits, and how many are left out."""
    ordered = sorted(findings, key=lambda f: priority(f, changed))
    chosen = _take(ordered, PER_LEVEL)
    if len(chosen) < len(ordered):
        chosen = _take(ordered, PER_LEVEL - 1)  # room for the notice that counts the rest
    return chosen, len(ordered) - len(chosen)


def _take(ordered: Sequence[Finding], notice_cap: int) -> list[Finding]:
    caps = {"error": PER_LEVEL, "warning": PER_LEVEL, "notice": notice_cap}
    chosen: list[Finding] = []
    for finding in ordered:
        level = LEVEL[finding.severity]
        if caps[level] > 0:
            caps[level] -= 1
            chosen.append(finding)
    return chosen


def fenced(lines: Sequence[str], token: str) -> list[str]:
    while any(token in line for line in lines):
        token = secrets.token_hex(16)
    return [f"::stop-commands::{token}", *lines, f"::{token}::"]


def format_report(report: Report, *, changed: frozenset[str] | None = None,
                  root: str | None = None, token: str | None = None, prune: str = "") -> str:
    """Annotations within the per-level cap, then the fenced listing (as the text format's,
    `prune` naming the command there); `root`: see `locations`."""
    chosen, left_out = select(report.findings, changed)
    roots = Roots(root)
    lines = [annotation(f, roots) for f in chosen]
    if left_out:
        lines.append(f"::notice title=memory-autopsy::{left_out} more finding(s) not annotated "
                     "(GitHub shows 10 per level); all are listed in the log and the job summary")
    listing = [finding_line(f) for f in report.findings] + gone_lines(report.fixed, prune) + [summary(report)]
    lines.append("::group::memory-autopsy findings")
    lines += fenced(listing, token or secrets.token_hex(16))
    lines.append("::endgroup::")
    return scrub("\n".join(lines)) + "\n"
