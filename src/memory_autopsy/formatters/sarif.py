"""SARIF 2.1.0 for GitHub code scanning (and any SARIF viewer).

Every rule of the catalogue is in `tool.driver.rules`, its `defaultConfiguration` as the rule
file sets it (a rule turned off is `enabled: false`); results point into it by `ruleIndex`,
carry our versioned `partialFingerprints`, the pair's other side as `relatedLocations` linked
from the message (`[path:line](id)`, which GitHub renders as a link), and `baselineState` when
a baseline was used. URIs are relative to `%SRCROOT%`, the root the caller names (absolute
paths are re-rooted there; a file outside it keeps a `file://` URI). GitHub's upload limits
(25,000 results per run, 10 MB gzipped) are kept by truncating, with a notification.

`superseded` at its default severity is left out of the results: it is resolved history, not a
problem, and code scanning turns every uploaded result into an alert (a `note` too) and ignores
`kind`, so `kind: informational` would still be a permanent alert. The run counts what was left
out (`properties.omitted`); a rule file that raises `superseded` above info uploads it again.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from memory_autopsy import __version__
from memory_autopsy.engine.findings import FINGERPRINT_VERSION
from memory_autopsy.formatters.locations import Roots, absolute_posix, named_at
from memory_autopsy.formatters.visible import json_safe
from memory_autopsy.model import Finding, Location, Report, Severity
from memory_autopsy.rules import HELP_URI, RULES, Rule
from memory_autopsy.settings import Settings

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
HISTORY = frozenset({"superseded"})  # resolved history: uploaded only when raised above info


def configured(rule: Rule, settings: Settings | None) -> Severity | None:
    """The rule's severity under the rule file (None: turned off)."""
    return rule.severity if settings is None else settings.severity_of(rule.id, rule.severity)


def rule_descriptor(rule: Rule, settings: Settings | None = None) -> dict[str, Any]:
    markdown = (f"**{rule.summary}**\n\n{rule.help}\n\nBad:\n\n```text\n{rule.bad}\n```\n\n"
                f"Good:\n\n```text\n{rule.good}\n```\n")
    severity = configured(rule, settings)
    return {
        "id": rule.id,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.help},
        "help": {"text": rule.help, "markdown": markdown},
        "helpUri": HELP_URI.format(id=rule.id),
        "defaultConfiguration": _configuration(severity or rule.severity, severity is not None),
        "properties": {"problem.severity": PROBLEM_SEVERITY[severity or rule.severity],
                       "tags": ["memory", f"layer-{rule.layer}"]},
    }


def _configuration(severity: Severity, enabled: bool) -> dict[str, Any]:
    """A rule the rule file turns off keeps its default level and says it is off."""
    return {"level": LEVEL[severity]} if enabled else {"enabled": False, "level": LEVEL[severity]}


def artifact(path: str, roots: Roots) -> dict[str, Any]:
    relative = roots(path)
    if relative is None:  # outside the repository: GitHub cannot place it, a viewer still can
        return {"uri": "file://" + _quoted(absolute_posix(path), "/:")}
    return {"uri": _quoted(relative, "/"), "uriBaseId": "%SRCROOT%"}


def _quoted(path: str, safe: str) -> str:
    """Percent-encoded; a file name that is not UTF-8 on disk keeps its original bytes."""
    try:
        return quote(path, safe=safe, errors="surrogateescape")
    except UnicodeEncodeError:  # a surrogate no file name decodes to: replaced, never raised
        return quote(path, safe=safe, errors="replace")


def physical(path: str, line: int, roots: Roots, end_line: int = 0) -> dict[str, Any]:
    region = {"startLine": max(1, line)}
    if end_line > region["startLine"]:
        region["endLine"] = end_line
    return {"physicalLocation": {"artifactLocation": artifact(path, roots), "region": region}}


def related_location(index: int, where: Location, roots: Roots) -> dict[str, Any]:
    location = physical(where.path, where.line, roots)
    location["id"] = index
    location["message"] = {"text": f"other side ({_shown(where, roots)})"}
    return location


def escape_brackets(text: str) -> str:
    """Literal square brackets escaped, so only our links read as embedded links (SARIF 3.11.6)."""
    return text.replace("[", "\\[").replace("]", "\\]")


def linked_message(message: str, sides: Sequence[Location], roots: Roots) -> str:
    """The message with each other side's `path:line` as an embedded link to related location
    N (`[path:line](N)`, the path re-rooted as its URI is); a side the message does not name
    is appended as a link."""
    text = escape_brackets(message)
    appended: list[str] = []
    seen: set[str] = set()
    for index, where in enumerate(sides):
        named = escape_brackets(f"{where.path}:{where.line}")
        if named in seen:
            continue
        seen.add(named)
        link = f"[{escape_brackets(_shown(where, roots))}]({index})"
        at = named_at(text, named)
        if at < 0:
            appended.append(link)
        else:
            text = text[:at] + link + text[at + len(named):]
    if appended:
        text += " (other side: " + ", ".join(appended) + ")"
    return text


def _shown(where: Location, roots: Roots) -> str:
    return f"{roots(where.path) or where.path}:{where.line}"


def result(finding: Finding, roots: Roots) -> dict[str, Any]:
    sides = [r for r in finding.related if r.path]
    data: dict[str, Any] = {
        "ruleId": finding.rule,
        "ruleIndex": RULE_INDEX[finding.rule],
        "level": LEVEL[finding.severity],
        "message": {"text": linked_message(finding.message or finding.rule, sides, roots)},
    }
    if finding.path:
        data["locations"] = [physical(finding.path, finding.line, roots, finding.end_line)]
    if sides:
        data["relatedLocations"] = [related_location(i, r, roots) for i, r in enumerate(sides)]
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


class Upload:
    """What one SARIF log holds: the rule catalogue as configured and the results to upload."""

    def __init__(self, report: Report, settings: Settings | None, root: str | None) -> None:
        self.report = report
        self.roots = Roots(root)
        self.rules = [rule_descriptor(r, settings) for r in RULES]
        self.findings = [f for f in report.findings if not is_history(f)]
        self.omitted = len(report.findings) - len(self.findings)

    def log(self, findings: Sequence[Finding]) -> dict[str, Any]:
        invocation: dict[str, Any] = {"executionSuccessful": True}
        if len(findings) < len(self.findings):
            invocation["toolExecutionNotifications"] = [_notification(len(findings),
                                                                      len(self.findings))]
        driver = {"name": "memory-autopsy", "version": __version__,
                  "semanticVersion": __version__, "informationUri": INFORMATION_URI,
                  "rules": self.rules}
        properties: dict[str, Any] = {"engine": self.report.engine, "facts": len(self.report.facts)}
        if self.omitted:
            properties["omitted"] = {"superseded": self.omitted}
        run = {"tool": {"driver": driver}, "automationDetails": {"id": "memory-autopsy/"},
               "invocations": [invocation], "columnKind": "unicodeCodePoints",
               "results": [result(f, self.roots) for f in findings], "properties": properties}
        return {"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}


def is_history(finding: Finding) -> bool:
    return finding.rule in HISTORY and finding.severity is Severity.INFO


def _by_importance(findings: Sequence[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (-f.severity.rank, f.path, f.line, f.rule))


_PLACEHOLDER = "\0results\0"  # never a result: the skeleton holds no memory text
_RESULT = json.JSONEncoder(ensure_ascii=False, separators=(", ", ": ")).encode


def dumps(log: dict[str, Any]) -> str:
    """The log indented by two spaces, each result on a line of its own. `json.dumps` indents
    in Python (the C encoder takes no indent): 1.2 s of a run reporting 20,000 results, a
    quarter of it; each result now goes through the C encoder, and only the skeleton (the
    rules, the invocation, the properties) is indented."""
    runs = log.get("runs") or [{}]
    results = runs[0].get("results")
    if not results:
        return json_safe(json.dumps(log, indent=2, ensure_ascii=False)) + "\n"
    skeleton = {**log, "runs": [{**runs[0], "results": [_PLACEHOLDER]}, *runs[1:]]}
    text = json.dumps(skeleton, indent=2, ensure_ascii=False)
    quoted = json.dumps(_PLACEHOLDER)
    at = text.index(quoted)
    indent = text[text.rindex("\n", 0, at) + 1 : at]
    body = (",\n" + indent).join(map(_RESULT, results))
    return json_safe(text[:at] + body + text[at + len(quoted) :]) + "\n"


def upload_bytes(log: dict[str, Any]) -> int:
    """The log's size as code scanning receives it, which its limit is on: the upload action
    serializes the log again without indentation (`JSON.stringify`) and gzips it at zlib's
    default level. Measured on the indented text at gzip's highest level, the size was another
    one (about 5% under, at 20,000 results) and cost 0.4 s more."""
    text = json_safe(json.dumps(log, ensure_ascii=False, separators=(",", ":")))
    return len(gzip.compress(text.encode("utf-8"), compresslevel=6))


def format_report(report: Report, *, root: str | None = None, settings: Settings | None = None,
                  max_results: int = MAX_RESULTS, max_gzip_bytes: int = MAX_GZIP_BYTES) -> str:
    """The SARIF log. `root`: the folder URIs are relative to (None: paths are taken as
    root-relative already); `settings`: the rule file, for the rules' configured levels."""
    upload = Upload(report, settings, root)
    findings = upload.findings
    if len(findings) > max_results:
        findings = _by_importance(findings)[:max_results]
    log = upload.log(findings)
    while upload_bytes(log) > max_gzip_bytes and findings:
        findings = _by_importance(findings)[: len(findings) * 3 // 4]
        log = upload.log(findings)
    return dumps(log)


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
