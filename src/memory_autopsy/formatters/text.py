"""One line per finding and a summary line, like every linter."""

from __future__ import annotations

from collections import Counter

from memory_autopsy.formatters.visible import visible
from memory_autopsy.model import Finding, Report


def finding_line(finding: Finding) -> str:
    """One finding on one line; memory text in it is shown, never sent raw to the terminal."""
    where = location_text(finding.path, finding.line, finding.obs) if finding.path else "memory-autopsy"
    confidence = f" conf={finding.confidence:g}" if finding.rule in _HEDGED else ""
    entity = f" {finding.entity}" if finding.entity else ""
    marker = " [new]" if finding.baseline == "new" else ""
    return visible(
        f"{where}: {finding.severity.value} {finding.rule} L{finding.layer}{confidence}{entity}"
        f" :: {finding.message}{marker}"
    )


def location_text(path: str, line: int, obs: int = -1) -> str:
    """`path:line`, plus `#obs-N` when the location is one observation of a graph line."""
    return f"{path}:{line}#obs-{obs}" if obs >= 0 else f"{path}:{line}"


_HEDGED = frozenset({"likely_conflict", "contradicted_implicit", "near_duplicate", "unresolved_alias"})


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


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


def format_report(report: Report) -> str:
    lines = [finding_line(f) for f in report.findings]
    lines.append(summary(report))
    return "\n".join(lines) + "\n"
