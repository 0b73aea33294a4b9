"""Score the grounding layer against hand-labelled claims of real repositories (eval/grounding).

Each repository is rebuilt as a git work tree in a temporary folder: every path of its listing
as an empty file, its manifests and memory files as they are, one commit. Its memory files are
scanned there; the grounding findings (missing_path, missing_command, and stale or
status_conflict drawn from the repository) are matched to the labels by file, line and the
text they name. A finding that matches a rotted label is right; any other is a false alarm.
Precision is of the findings that fail a default run (warning or error: the judges let them
fail, engine/judges.py), beside that of every finding reported; recall counts the rotted labels
any finding names. The dev part is itemised; the test part is
reported by its figures alone (it is for reporting, never for tuning).

    python eval/run_grounding.py            # figures per part and rule; dev false alarms and misses
    python eval/run_grounding.py --json
    python eval/run_grounding.py --strict   # exit 1 below the gate (gate.json)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "grounding"
ROOT = HERE.parent
RULES = ("missing_path", "missing_command", "stale", "status_conflict")
KIND_OF = {"missing_path": "path", "status_conflict": "path", "missing_command": "command", "stale": "version"}
FAILING = frozenset({"warning", "error"})  # the severities a default run fails on
GIT = ["git", "-c", "user.name=eval", "-c", "user.email=eval@localhost", "-c", "commit.gpgsign=false"]


def build(folder: Path, into: Path) -> None:
    for name in (folder / "ls-files.txt").read_text("utf-8").splitlines():
        if not name or name.startswith("/") or ".." in name.split("/"):
            continue
        target = into / name
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.touch()
        except OSError:
            continue  # a name this file system cannot hold (a file and a folder of one name)
    tree = folder / "tree"
    for path in tree.rglob("*"):
        if path.is_file():
            target = into / path.relative_to(tree)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
    ignores = folder / "gitignores.json"  # kept apart: a `.gitignore` in this tree would steer this repository's git
    if ignores.is_file():
        for name, text in json.loads(ignores.read_text("utf-8")).items():
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            (into / name).write_text(text, encoding="utf-8", newline="")
    subprocess.run([*GIT, "init", "-q"], cwd=into, check=True)
    subprocess.run([*GIT, "add", "-A", "-f"], cwd=into, check=True, capture_output=True)
    subprocess.run([*GIT, "commit", "-q", "-m", "tree", "--no-verify"], cwd=into, check=True, capture_output=True)


def scan(into: Path, memory: list[str], src: Path) -> list[dict[str, object]]:
    env = dict(os.environ, PYTHONPATH=str(src))
    done = subprocess.run([sys.executable, "-m", "memory_autopsy", "scan", *memory, "--json", "--isolated",
                           "--no-cache", "--jobs", "1"], cwd=into, env=env, capture_output=True, text=True,
                          timeout=300)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{into.name}: scan exited {done.returncode}: {done.stderr[-500:]}")
    found = json.loads(done.stdout)["findings"]
    return [f for f in found if f["rule"] in RULES and _grounded(f)]


def _grounded(finding: dict[str, object]) -> bool:
    """A finding of the grounding layer: its own rules, or stale / status_conflict naming the
    repository (a related side with no fact: a manifest line, a listed file)."""
    if finding["rule"] in ("missing_path", "missing_command"):
        return True
    related = finding.get("related") or []
    assert isinstance(related, list)
    return bool(related) and all(not r.get("fact_id") for r in related)


def _key(text: str) -> str:
    return re.sub(r"(?::\d[\d:-]*)$", "", text.strip().strip("`*").rstrip("/"))


def _matches(finding: dict[str, object], label: dict[str, object]) -> bool:
    if finding["path"] != label["file"] or finding["line"] != label["line"]:
        return False
    if KIND_OF[str(finding["rule"])] != label["kind"]:
        return False
    message = str(finding["message"])
    text = _key(str(label["text"]))
    if label["kind"] == "version":
        numbers = re.findall(r"\d+(?:\.\d+)*", text)
        return bool(numbers) and numbers[-1] in message
    if label["kind"] == "command":
        return text.split()[-1] in message
    return f"`{text}`" in message.replace("/`", "`")


def score(folder: Path, src: Path) -> dict[str, object]:
    meta = json.loads((folder / "meta.json").read_text("utf-8"))
    labels = json.loads((folder / "labels.json").read_text("utf-8"))["claims"]
    with tempfile.TemporaryDirectory(prefix="grounding-") as temp:
        into = Path(temp) / folder.name
        into.mkdir()
        build(folder, into)
        found = scan(into, [m for m in meta["memory"] if (into / m).is_file()], src)
    right, wrong = [], []
    hit: set[int] = set()
    for finding in found:
        match = [i for i, label in enumerate(labels) if _matches(finding, label)]
        rotted = [i for i in match if labels[i]["label"] == "rotted"]
        (right if rotted else wrong).append({"rule": finding["rule"], "at": f"{finding['path']}:{finding['line']}",
                                             "message": finding["message"], "judge": finding.get("judge", ""),
                                             "failing": finding["severity"] in FAILING,
                                             "label": labels[match[0]]["label"] if match else "unlabelled"})
        hit.update(rotted)
    missed = [label for i, label in enumerate(labels) if label["label"] == "rotted" and i not in hit]
    rotted = [label for label in labels if label["label"] == "rotted"]
    return {"folder": folder.name, "right": right, "wrong": wrong, "missed": missed,
            "rotted": {k: sum(1 for r in rotted if r["kind"] == k) for k in ("path", "version", "command")},
            "found": {k: sum(1 for i in hit if labels[i]["kind"] == k) for k in ("path", "version", "command")}}


def summary(results: list[dict[str, object]]) -> dict[str, object]:
    def total(key: str, kind: str | None = None) -> int:
        out = 0
        for result in results:
            value = result[key]
            if isinstance(value, dict):
                out += value[kind] if kind else sum(value.values())
            else:
                assert isinstance(value, list)
                out += len(value)
        return out

    rules = {}
    for rule in RULES:
        right = sum(1 for r in results for f in r["right"] if f["rule"] == rule)  # type: ignore[attr-defined]
        wrong = sum(1 for r in results for f in r["wrong"] if f["rule"] == rule)  # type: ignore[attr-defined]
        rules[rule] = {"right": right, "wrong": wrong,
                       "precision": round(right / (right + wrong), 3) if right + wrong else None}
    right, wrong = total("right"), total("wrong")
    failing_right = sum(1 for r in results for f in r["right"] if f["failing"])  # type: ignore[attr-defined]
    failing_wrong = sum(1 for r in results for f in r["wrong"] if f["failing"])  # type: ignore[attr-defined]
    recall = {kind: {"found": total("found", kind), "rotted": total("rotted", kind),
                     "recall": round(total("found", kind) / total("rotted", kind), 3) if total("rotted", kind) else None}
              for kind in ("path", "version", "command")}
    return {"repositories": len(results), "right": failing_right, "wrong": failing_wrong,
            "precision": _share(failing_right, failing_wrong),
            "reported": {"right": right, "wrong": wrong, "precision": _share(right, wrong)},
            "recall": recall, "rules": rules}


def _share(right: int, wrong: int) -> float | None:
    return round(right / (right + wrong), 3) if right + wrong else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--src", default=str(ROOT / "src"), help="source tree to measure")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--strict", action="store_true", help="exit 1 when a gate threshold is missed")
    args = parser.parse_args(argv)
    split = json.loads((DATA / "split.json").read_text("utf-8"))
    parts: dict[str, list[dict[str, object]]] = {}
    for part in ("dev", "test"):
        parts[part] = [score(DATA / "repos" / name, Path(args.src)) for name in split[part]]
    figures = {part: summary(results) for part, results in parts.items()}
    dev_items = {"false_alarms": [dict(f, folder=r["folder"]) for r in parts["dev"] for f in r["wrong"]],  # type: ignore[attr-defined]
                 "missed": [dict(m, folder=r["folder"]) for r in parts["dev"] for m in r["missed"]]}  # type: ignore[attr-defined]
    gate = json.loads((DATA / "gate.json").read_text("utf-8"))
    failed = _gate(figures, gate)
    if args.json:
        print(json.dumps({"parts": figures, "dev": dev_items, "gate": gate, "thresholds_missed": failed}, indent=1))
    else:
        for part, numbers in figures.items():
            recall = numbers["recall"]
            assert isinstance(recall, dict)
            rec = "   ".join(f"{k} {v['found']}/{v['rotted']}" for k, v in recall.items())
            reported = numbers["reported"]
            assert isinstance(reported, dict)
            print(f"{part:5} ({numbers['repositories']} repositories): precision {numbers['precision']} "
                  f"({numbers['right']}/{numbers['right'] + numbers['wrong']} failing; "  # type: ignore[operator]
                  f"{reported['precision']} of all {reported['right'] + reported['wrong']} reported)   rotted found: {rec}")
        print("\nrules (dev):")
        for rule, value in figures["dev"]["rules"].items():  # type: ignore[attr-defined]
            print(f"  {rule:16} right {value['right']:3}  wrong {value['wrong']:3}  precision {value['precision']}")
        print("\nfalse alarms (dev):")
        for item in dev_items["false_alarms"]:
            state = "fails" if item["failing"] else "review"
            print(f"  {item['folder']:34} {item['at']:48} [{item['label']}] {state:6} {item['message'][:110]}")
        print("\nmissed rotted claims (dev):")
        for item in dev_items["missed"]:
            print(f"  {item['folder']:34} {item['file']}:{item['line']} {item['kind']:8} {item['text']!r}")
        for line in failed:
            print(f"gate: {line}")
    return 1 if args.strict and failed else 0


def _gate(figures: dict[str, dict[str, object]], gate: dict[str, dict[str, float]]) -> list[str]:
    failed = []
    for part, limits in gate.items():
        numbers = figures[part]
        precision = numbers["precision"]
        if precision is not None and precision < limits["min_precision"]:  # type: ignore[operator]
            failed.append(f"{part} precision {precision} < {limits['min_precision']}")
        recall = numbers["recall"]["path"]["recall"]  # type: ignore[index]
        if recall is not None and recall < limits["min_path_recall"]:
            failed.append(f"{part} rotted-path recall {recall} < {limits['min_path_recall']}")
    return failed


if __name__ == "__main__":
    sys.exit(main())
