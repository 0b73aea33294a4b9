"""The markdown report: counts, findings with both sides, and the fix plan (a dry run)."""

from __future__ import annotations

from collections import Counter

from memory_autopsy.fixes.plan import fix_lines, plan
from memory_autopsy.formatters.text import gone_lines
from memory_autopsy.formatters.visible import visible
from memory_autopsy.model import Fact, Report
from memory_autopsy.rules import BY_ID


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _side(label: str, fact: Fact | None) -> str:
    if fact is None:
        return ""
    when = f" (observed {fact.observed_at})" if fact.observed_at else " (undated)"
    return f"  - {label}: \"{_cell(fact.claim)}\"{when}"


def format_report(report: Report, *, applied: bool = False, prune: str = "") -> str:
    counts = Counter(f.rule for f in report.findings)
    at = {(f.path, f.line): f for f in report.facts}
    by_id = {f.id: f for f in report.facts}
    lines = [
        "# memory-autopsy report",
        "",
        f"Engine: `{report.engine}` | Facts scanned: {len(report.facts)} | "
        f"Findings: {len(report.findings)}",
        "",
    ]
    if counts:
        lines += ["| Class | Count | Severity |", "|---|---|---|"]
        lines += [f"| `{rule}` | {n} | {BY_ID[rule].severity.value} |" for rule, n in sorted(counts.items())]
        lines += ["", "## Findings", ""]
    for finding in report.findings:
        entity = f" — entity `{finding.entity}`" if finding.entity else ""
        where = f" `{finding.path}`:{finding.line}" if finding.path else ""
        lines.append(f"- **{finding.rule}**{entity}{where}: {_cell(finding.message)}")
        flagged = at.get((finding.path, finding.line))
        if flagged is not None and finding.related:
            lines.append(_side("flagged", flagged))
            lines.append(_side("survivor", by_id.get(finding.related[0].fact_id)))
    if report.fixed:  # named, with the command that drops them (text.gone_lines)
        head, *entries = gone_lines(report.fixed, prune)
        lines += ["", "## Baselined findings gone", "", _cell(head), "", *(_cell(e.strip()) for e in entries)]
    fixes = plan(report)
    title = "## Fix plan (applied)" if applied else (
        "## Fix plan (dry-run — pass --apply --yes-i-know to execute)"
    )
    lines += ["", title, ""]
    lines += fix_lines(fixes) or ["- nothing to fix automatically"]
    return "\n".join(visible(line) for line in lines).rstrip() + "\n"
