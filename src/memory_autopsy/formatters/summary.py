"""The GitHub job summary (markdown appended to $GITHUB_STEP_SUMMARY).

Memory content is untrusted: every cell is escaped so a claim cannot open a link, an HTML tag,
a table cell or a mention in the summary page. GitHub also turns bare `https://…`, `www.…` and
`name@host` into links; a zero-width space after the `:`/`www`/`@` breaks that autolinking
while the text reads the same.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memory_autopsy import lazyre
from memory_autopsy.formatters.visible import visible
from memory_autopsy.model import Finding, Report

MAX_ROWS = 100
CELL_LIMIT = 200
_BACKSLASHED = "\\`*_[]|~#!"
_AUTOLINK = lazyre.compile(r"(?<=:)(?=//)|(?<=\bwww)(?=\.)|(?<=&#64;)", re.IGNORECASE)
ZERO_WIDTH_SPACE = "\u200b"


@dataclass(frozen=True, slots=True)
class RunFacts:
    """What the runner knows beyond the report."""

    baselined: int = 0
    baseline_file: str | None = None
    changed_files: int | None = None
    update_command: str = "memory-autopsy baseline"
    sarif_file: str | None = None
    baseline_changed: str = ""  # how the change altered the baseline ("": it did not)
    baseline_added: tuple[Mapping[str, Any], ...] = ()  # the entries it adds, as in the file


def escape(text: str, limit: int = CELL_LIMIT) -> str:
    text = visible(" ".join(text.split()))
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = "".join("\\" + ch if ch in _BACKSLASHED else ch for ch in text)
    return _AUTOLINK.sub(ZERO_WIDTH_SPACE, text.replace("@", "&#64;"))


def _row(finding: Finding) -> str:
    where = f"{finding.path}:{finding.line}" if finding.path else "(run)"
    cells = [finding.severity.value, f"`{finding.rule}`", escape(where), escape(finding.entity),
             escape(finding.message)]
    return "| " + " | ".join(cells) + " |"


def _scope_line(report: Report, facts: RunFacts) -> str:
    files = len(report.paths)
    scope = f"{len(report.facts)} facts in {files} file(s)"
    if facts.changed_files is None:
        return f"Scope: {scope}; every finding in scope is reported."
    return (f"Scope: {scope}; only findings touching the {facts.changed_files} changed memory "
            "file(s) are reported.")


def baseline_section(sentence: str, added: Sequence[Mapping[str, Any]]) -> list[str]:
    """What a change did to the baseline, beside the counts: the findings its new entries
    accept count as baselined, so "0 new" alone would hide them."""
    lines = ["### Baseline changed", "", escape(sentence, limit=400), ""]
    if not added:
        return lines
    lines += ["| rule | location | entity | message | copies | fingerprint |",
              "|---|---|---|---|---:|---|"]
    lines += ["| " + " | ".join([escape(str(e["rule"])), escape(str(e["path"])), escape(str(e["entity"])),
                                 escape(str(e["message"])), str(e["count"]), escape(str(e["fingerprint"]))])
              + " |" for e in added[:MAX_ROWS]]
    if len(added) > MAX_ROWS:
        lines += ["", f"…and {len(added) - MAX_ROWS} more (see the baseline file's diff)."]
    return lines + [""]


def format_report(report: Report, facts: RunFacts = RunFacts()) -> str:
    new = [f for f in report.findings if f.baseline != "unchanged"]
    lines = ["## memory-autopsy", "", "| new | baselined | fixed |", "|---:|---:|---:|",
             f"| {len(new)} | {facts.baselined} | {len(report.fixed)} |", "",
             _scope_line(report, facts), ""]
    if facts.baseline_changed:
        lines += baseline_section(facts.baseline_changed, facts.baseline_added)
    if new:
        lines += ["### New findings", "", "| severity | rule | location | entity | message |",
                  "|---|---|---|---|---|"]
        lines += [_row(f) for f in new[:MAX_ROWS]]
        if len(new) > MAX_ROWS:
            lines += ["", f"…and {len(new) - MAX_ROWS} more (see the job log or the SARIF file)."]
        lines.append("")
    else:
        lines += ["No new findings.", ""]
    if facts.sarif_file:
        lines += [f"SARIF file: {escape(facts.sarif_file)}", ""]
    lines += ["### Accepting findings", "",
              ("Fix the memory, suppress one line with `<!-- memory-autopsy: ignore RULE -->`, "
               "or record today's findings in the baseline and commit it:"), "", "```sh",
              facts.update_command.replace("`", ""), "```", ""]
    return "\n".join(lines)
