"""The JSON contract of SPEC section 5, defined once."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

from memory_autopsy import __version__
from memory_autopsy.formatters.visible import json_safe
from memory_autopsy.model import Finding, Location, Report


def finding_dict(finding: Finding) -> dict[str, Any]:
    data: dict[str, Any] = {
        "rule": finding.rule,
        "severity": finding.severity.value,
        "layer": finding.layer,
        "path": finding.path,
        "line": finding.line,
        "entity": finding.entity,
        "fidelity": finding.fidelity,
        "message": finding.message,
        "confidence": finding.confidence,
        "fact_ids": list(finding.fact_ids),
        "related": [_location(r) for r in finding.related],
        "fingerprint": finding.fingerprint,
    }
    if finding.obs >= 0:
        data["obs"] = finding.obs
    if finding.baseline is not None:
        data["baseline"] = finding.baseline
    return data


def _location(where: Location) -> dict[str, Any]:
    data: dict[str, Any] = {"path": where.path, "line": where.line, "fact_id": where.fact_id}
    if where.obs >= 0:
        data["obs"] = where.obs
    return data


def report_dict(report: Report, *, with_findings: bool = True) -> dict[str, Any]:
    counts = Counter(f.rule for f in report.findings)
    data: dict[str, Any] = {
        "tool": "memory-autopsy",
        "version": __version__,
        "engine": report.engine,
        "facts": len(report.facts),
        "counts": dict(sorted(counts.items())),
    }
    if with_findings:
        data["findings"] = [finding_dict(f) for f in report.findings]
    if report.suppressed:
        data["suppressed"] = report.suppressed
    if report.fixed:
        data["baseline_fixed"] = len(report.fixed)
    return data


def format_report(report: Report) -> str:
    return "".join(iter_report(report))


def iter_report(report: Report) -> Iterator[str]:
    """Pretty at the top level, one finding per line: readable, and streamed for huge stores."""
    data = report_dict(report, with_findings=False)
    head = json_safe(json.dumps(data, indent=2, ensure_ascii=False))[:-2]
    if not report.findings:
        yield head + ',\n  "findings": []\n}\n'
        return
    yield head + ',\n  "findings": [\n'
    last = len(report.findings) - 1
    for index, finding in enumerate(report.findings):
        line = json_safe(_ENCODE(finding_dict(finding)))  # returns ASCII without DEL as it is
        yield "    " + line + (",\n" if index < last else "\n")
    yield "  ]\n}\n"


# json.dumps(…, ensure_ascii=False) builds an encoder per call: one, made once, per finding line.
_ENCODE = json.JSONEncoder(ensure_ascii=False).encode
