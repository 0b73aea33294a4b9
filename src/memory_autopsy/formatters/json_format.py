"""The JSON contract of SPEC section 5, defined once."""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Iterator
from json.encoder import encode_basestring
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
    if finding.end_line > finding.line:
        data["end_line"] = finding.end_line
    if finding.end_obs is not None:
        data["end_obs"] = finding.end_obs
    if finding.baseline is not None:
        data["baseline"] = finding.baseline
    judge = finding.get("judge")
    if judge is not None:
        data["judge"] = judge
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
        "files": sorted(report.paths),  # what the run read: every entry point reads one scope
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
        line = json_safe(finding_line(finding))  # returns ASCII without DEL as it is
        yield "    " + line + (",\n" if index < last else "\n")
    yield "  ]\n}\n"


# json.dumps(…, ensure_ascii=False) builds an encoder per call: one, made once, per finding line.
_ENCODE = json.JSONEncoder(ensure_ascii=False).encode


def finding_line(finding: Finding) -> str:
    """`_ENCODE(finding_dict(finding))`, the same characters, written out: a large store's report
    holds tens of thousands of lines, and building each one's dict and encoder was most of
    writing it. Strings go through the encoder's own escaping (in C; it refuses anything but a
    str), numbers as the encoder writes them; a value of any other type (a bool for a line, a
    NaN) takes the encoder's path."""
    (rule, severity, layer, path, line, entity, fidelity, message, confidence, fact_ids, related,
     fingerprint, baseline, _, obs) = finding
    judge = finding.get("judge")
    end_line, end_obs = finding.end_line, finding.end_obs
    if not (type(line) is type(obs) is int and (type(confidence) is int or type(confidence) is float
                                                 and math.isfinite(confidence))):
        return _ENCODE(finding_dict(finding))
    try:
        return "".join((
            '{"rule": ', encode_basestring(rule), ', "severity": ', encode_basestring(severity.value),
            ', "layer": ', encode_basestring(layer), ', "path": ', encode_basestring(path),
            ', "line": ', int.__repr__(line), ', "entity": ', encode_basestring(entity),
            ', "fidelity": ', encode_basestring(fidelity), ', "message": ', encode_basestring(message),
            ', "confidence": ', repr(confidence), ', "fact_ids": [', ", ".join(map(encode_basestring, fact_ids)),
            '], "related": [', ", ".join(map(_location_line, related)) if related else "",
            '], "fingerprint": ', encode_basestring(fingerprint),
            f', "obs": {int.__repr__(obs)}' if obs >= 0 else "",
            f', "end_line": {int.__repr__(end_line)}' if end_line > line else "",
            f', "end_obs": {int.__repr__(end_obs)}' if end_obs is not None else "",
            f', "baseline": {encode_basestring(baseline)}' if baseline is not None else "",
            f', "judge": {encode_basestring(judge)}' if judge is not None else "",
            "}",
        ))
    except (TypeError, ValueError, AttributeError):
        return _ENCODE(finding_dict(finding))


def _location_line(where: Location) -> str:
    path, line, fact_id, obs = where
    if type(line) is not int or type(obs) is not int:
        raise TypeError("not the encoder's int")
    return "".join((
        '{"path": ', encode_basestring(path), ', "line": ', int.__repr__(line),
        ', "fact_id": ', "null" if fact_id is None else encode_basestring(fact_id),
        f', "obs": {int.__repr__(obs)}}}' if obs >= 0 else "}",
    ))
