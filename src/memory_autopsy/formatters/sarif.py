"""SARIF 2.1.0 for GitHub code scanning (and any SARIF viewer).

Every rule of the catalogue is in `tool.driver.rules`; results point into it by `ruleIndex`,
carry our versioned `partialFingerprints`, the pair's other side as `relatedLocations`, and
`baselineState` when a baseline was used. URIs are relative to `%SRCROOT%`. GitHub's upload
limits (25,000 results per run, 10 MB gzipped) are kept by truncating, with a notification.
"""

from __future__ import annotations

import gzip
import json
import posixpath
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from memory_autopsy import __version__
from memory_autopsy.engine.findings import FINGERPRINT_VERSION
from memory_autopsy.formatters.visible import json_safe
from memory_autopsy.model import Finding, Location, Report, Severity
from memory_autopsy.rules import HELP_URI, RULES, Rule

SCHEMA_URI = "https://json.schemastore.org/sarif-2.1.0.json"
INFORMATION_URI = "https://github.com/memory-autopsy/memory-autopsy"
FINGERPRINT_KEY = f"memoryAutopsy/{FINGERPRINT_VERSION}"
MAX_RESULTS = 25_000
MAX_GZIP_BYTES = 10 * 1000 * 1000
TRUNCATED_ID = "memory-autopsy/truncated"

LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning",
         Severity.REVIEW: "note", Severity.INFO: "note"}
PROBLEM_SEVERITY = {Severity.ERROR: "error", Severity.WARNING: "warning",
                    Severity.REVIEW: "recommendation", Severity.INFO: "recommendation"}
RULE_INDEX = {rule.id: index for index, rule in enumerate(RULES)}


def rule_descriptor(rule: Rule) -> dict[str, Any]:
    markdown = (f"**{rule.summary}**\n\n{rule.help}\n\nBad:\n\n```text\n{rule.bad}\n```\n\n"
                f"Good:\n\n```text\n{rule.good}\n```\n")
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.help},
        "help": {"text": rule.help, "markdown": markdown},
        "helpUri": HELP_URI.format(id=rule.id),
        "defaultConfiguration": {"level": LEVEL[rule.severity]},
        "properties": {"problem.severity": PROBLEM_SEVERITY[rule.severity],
                       "tags": ["memory", f"layer-{rule.layer}"]},
    }


def artifact(path: str, prefix: str) -> dict[str, Any]:
    if posixpath.isabs(path) or (len(path) > 2 and path[1] == ":"):
        return {"uri": "file://" + _quoted(path if path.startswith("/") else "/" + path, "/:")}
    relative = posixpath.normpath(posixpath.join(prefix, path)) if prefix else path
    return {"uri": _quoted(relative, "/"), "uriBaseId": "%SRCROOT%"}


def _quoted(path: str, safe: str) -> str:
    """Percent-encoded; a file name that is not UTF-8 on disk keeps its original bytes."""
    try:
        return quote(path, safe=safe, errors="surrogateescape")
    except UnicodeEncodeError:  # a surrogate no file name decodes to: replaced, never raised
        return quote(path, safe=safe, errors="replace")


def physical(path: str, line: int, prefix: str) -> dict[str, Any]:
    return {"physicalLocation": {"artifactLocation": artifact(path, prefix),
                                 "region": {"startLine": max(1, line)}}}


def related_location(index: int, where: Location, prefix: str) -> dict[str, Any]:
    location = physical(where.path, where.line, prefix)
    location["id"] = index
    location["message"] = {"text": f"other side ({where.path}:{where.line})"}
    return location


def result(finding: Finding, prefix: str) -> dict[str, Any]:
    data: dict[str, Any] = {
        "ruleId": finding.rule,
        "ruleIndex": RULE_INDEX[finding.rule],
        "level": LEVEL[finding.severity],
        "message": {"text": finding.message or finding.rule},
    }
    if finding.path:
        data["locations"] = [physical(finding.path, finding.line, prefix)]
    related = [related_location(i, r, prefix) for i, r in enumerate(finding.related) if r.path]
    if related:
        data["relatedLocations"] = related
    data["partialFingerprints"] = {FINGERPRINT_KEY: finding.fingerprint}
    if finding.baseline is not None:
        data["baselineState"] = finding.baseline
    data["properties"] = {"severity": finding.severity.value, "layer": finding.layer,
                          "entity": finding.entity, "confidence": finding.confidence,
                          "factIds": list(finding.fact_ids)}
    return data


def _notification(kept: int, total: int) -> dict[str, Any]:
    return {
        "level": "warning",
        "descriptor": {"id": TRUNCATED_ID},
        "message": {"text": f"results truncated: {kept} of {total} kept to stay within GitHub code "
                            f"scanning limits ({MAX_RESULTS} results, 10 MB gzipped); the most "
                            "severe are kept, run `memory-autopsy scan` for the full list"},
    }


def build_log(report: Report, results: Sequence[dict[str, Any]], total: int) -> dict[str, Any]:
    invocation: dict[str, Any] = {"executionSuccessful": True}
    if len(results) < total:
        invocation["toolExecutionNotifications"] = [_notification(len(results), total)]
    driver = {"name": "memory-autopsy", "version": __version__, "semanticVersion": __version__,
              "informationUri": INFORMATION_URI, "rules": [rule_descriptor(r) for r in RULES]}
    run = {"tool": {"driver": driver}, "automationDetails": {"id": "memory-autopsy/"},
           "invocations": [invocation], "columnKind": "unicodeCodePoints",
           "results": list(results), "properties": {"engine": report.engine,
                                                    "facts": len(report.facts)}}
    return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def _by_importance(findings: Sequence[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (-f.severity.rank, f.path, f.line, f.rule))


def dumps(log: dict[str, Any]) -> str:
    return json_safe(json.dumps(log, indent=2, ensure_ascii=False)) + "\n"


def format_report(report: Report, *, prefix: str = "", max_results: int = MAX_RESULTS,
                  max_gzip_bytes: int = MAX_GZIP_BYTES) -> str:
    """The SARIF log; `prefix` re-roots working-directory paths at the repository root."""
    findings = list(report.findings)
    if len(findings) > max_results:
        findings = _by_importance(findings)[:max_results]
    text = dumps(build_log(report, [result(f, prefix) for f in findings], len(report.findings)))
    while len(gzip.compress(text.encode("utf-8"))) > max_gzip_bytes and findings:
        findings = _by_importance(findings)[: len(findings) * 3 // 4]
        text = dumps(build_log(report, [result(f, prefix) for f in findings], len(report.findings)))
    return text


def truncation_note(text: str) -> str | None:
    """The stderr line to print when a SARIF log was truncated (None when it was not)."""
    if f'"id": "{TRUNCATED_ID}"' not in text:
        return None
    log = json.loads(text)
    for invocation in log["runs"][0].get("invocations", []):
        for note in invocation.get("toolExecutionNotifications", []):
            if note.get("descriptor", {}).get("id") == TRUNCATED_ID:
                return f"memory-autopsy: warning: SARIF {note['message']['text']}"
    return None
