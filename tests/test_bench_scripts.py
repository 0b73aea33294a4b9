"""Smoke tests of the benchmark scripts on tiny sizes: they run, their output has the expected
shape, the generators are deterministic. No timing is asserted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
sys.path.insert(0, str(BENCH))

import generate  # noqa: E402

from conftest import run_cli  # noqa: E402


@pytest.mark.parametrize("shape", sorted(generate.SHAPES))
def test_every_shape_is_deterministic(shape: str, tmp_path: Path) -> None:
    a = generate.generate_shape(shape, 120, tmp_path / f"a{generate.SHAPES[shape][1]}", seed=3)
    b = generate.generate_shape(shape, 120, tmp_path / f"b{generate.SHAPES[shape][1]}", seed=3)
    assert a.read_bytes() == b.read_bytes()
    assert a.stat().st_size > 0


def test_json_document_is_memlints_shape(tmp_path: Path) -> None:
    path = generate.generate_shape("json", 200, tmp_path / "facts.json")
    items = json.loads(path.read_text(encoding="utf-8"))
    assert isinstance(items, list) and len(items) == 200
    for item in items:
        assert set(item) <= {"id", "content", "created_at"} and {"id", "content"} <= set(item)


def test_markdown_holds_the_jsonl_facts(tmp_path: Path) -> None:
    text = generate.generate_shape("md", 200, tmp_path / "memory.md").read_text(encoding="utf-8")
    assert sum(line.startswith("- ") for line in text.splitlines()) == 200
    assert "\n## 2025-" in text
    rows = generate.generate_shape("table", 200, tmp_path / "tables.md").read_text(encoding="utf-8")
    assert sum(line.startswith("| ") and not line.startswith("| entity |")
               for line in rows.splitlines()) == 200


def test_degenerate_shapes(tmp_path: Path) -> None:
    graph = generate.generate_shape("graph", 300, tmp_path / "graph.jsonl").read_text(encoding="utf-8")
    first = json.loads(graph.splitlines()[0])
    assert first["name"] == generate.HOT_ENTITY and len(first["observations"]) == 300
    slot = [json.loads(x) for x in generate.generate_shape("slot", 300, tmp_path / "s.jsonl").read_text().splitlines()]
    assert {(r["entity"], r["slot"]) for r in slot} == {(generate.HOT_ENTITY, "release")}
    assert len({r["value"] for r in slot}) == 300
    one = [json.loads(x) for x in generate.generate_shape("entity", 300, tmp_path / "e.jsonl").read_text().splitlines()]
    assert {r["entity"] for r in one} == {generate.HOT_ENTITY}


def _run(script: str, *args: str) -> dict:
    done = subprocess.run([sys.executable, str(BENCH / script), *args, "--json"], capture_output=True,
                          text=True, timeout=600, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


def test_run_bench_tiny(tmp_path: Path) -> None:
    doc = _run("run_bench.py", "--sizes", "150", "--repeat", "1", "--hook-facts", "200",
               "--no-startup", "--no-peer-install", "--cache-dir", str(tmp_path))
    assert doc["scan_problem"] is None
    shapes = {(s["shape"], s["facts"]): s for s in doc["shapes"]}
    assert set(shapes) == {("jsonl", 150), ("json", 150), ("md", 150)}
    for s in shapes.values():
        assert s["error"] is None and s["scan_facts"] and s["scan_cpu_s"] and s["cold_s"] and s["warm_s"]
    # the peer is not in the fresh cache folder and may not be installed: n/a, never a failure
    assert doc["peer"]["script"] is None and "not installed" in doc["peer"]["note"]
    assert shapes[("json", 150)]["peer_note"].startswith("n/a (peer not installable")
    assert [h["layout"] for h in doc["hook"]] == ["one file", "100 files"]
    assert all(h["ratio"] is not None for h in doc["hook"])
    # the driver times the package's read of the store (its ingest column)
    assert all(h["cold_ingest_s"] and h["warm_changed_ingest_s"] for h in doc["hook"])
    statuses = {t["name"]: t["status"] for t in doc["targets"]}
    assert all(status in ("met", "NOT met", "n/a") for status in statuses.values())
    assert statuses["100k JSONL scan within 6x the json.loads floor"] == "n/a"


def test_doubling_tiny(tmp_path: Path) -> None:
    doc = _run("doubling.py", "--shapes", "graph,slot", "--scale", "0.005", "--repeat", "1",
               "--cache-dir", str(tmp_path))
    assert [r["shape"] for r in doc["results"]] == ["graph", "slot"]
    for r in doc["results"]:
        assert r["error"] is None and r["ratio"] is not None and r["status"] in ("met", "NOT met")


def test_doubling_of_the_commands_tiny(tmp_path: Path) -> None:
    doc = _run("doubling.py", "--shapes", "as-of,apply-md,apply-json,sarif,prose,continued", "--scale", "0.005",
               "--repeat", "1", "--cache-dir", str(tmp_path))
    assert [r["shape"] for r in doc["results"]] == ["as-of", "apply-md", "apply-json", "sarif", "prose", "continued"]
    for r in doc["results"]:
        assert r["error"] is None and r["ratio"] is not None and r["status"] in ("met", "NOT met")


def test_the_copies_shapes_give_one_delete_per_copy(tmp_path: Path) -> None:
    """`report --apply` on the copies shapes deletes exactly the second writing of each fact."""
    for shape in ("copies", "copiesjson"):
        store = generate.generate_shape(shape, 40, tmp_path / shape / f"store{'.md' if shape == 'copies' else '.json'}")
        result = run_cli("report", store.name, "--apply", "--yes-i-know", "--isolated", cwd=store.parent)
        assert result.code in (0, 1), result.err
        again = run_cli("scan", store.name, "--json", "--isolated", cwd=store.parent)
        report = json.loads(again.out)
        assert report["facts"] == 40 and "duplicate" not in report["counts"]


def test_a_runs_processor_time_counts_the_children_it_waited_for(tmp_path: Path) -> None:
    """A scan of a large store runs in more than one process: its CPU column counts them all."""
    from common import Runner

    burn = "import time\nstart = time.process_time()\nwhile time.process_time() - start < 0.3:\n    pass\n"
    code = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {burn!r}], check=True)"
    run = Runner(tmp_path, timeout=60, mem_limit_gib=0).run(["-c", code])
    assert run.code == 0 and run.cpu >= 0.3


def test_the_hooks_standard_modules_import_on_their_own(tmp_path: Path) -> None:
    """The start-up floor: the modules a hook run loads that are not the package's own, which a
    bare `python -c "import ..."` must be able to import (the floor times exactly that)."""
    import run_bench
    from common import Runner

    runner = Runner(tmp_path, timeout=60, mem_limit_gib=0)
    modules = run_bench.hook_modules(runner, run_bench.startup_dir(runner))
    assert {"argparse", "json", "re"} <= set(modules)
    assert not [m for m in modules if m.split(".")[0] == "memory_autopsy"]
    done = subprocess.run([sys.executable, "-c", "import " + ", ".join(modules)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_the_commit_case_takes_turns_with_an_unchanged_file(tmp_path: Path) -> None:
    """The start-up table's commit case: the hook's runs on three.md as it is and on three.md
    with a line it never held take turns, and every edited run sees a text of its own (the
    parse cache cannot answer for it)."""
    import run_bench
    from common import Runner

    runner = Runner(tmp_path, timeout=60, mem_limit_gib=0)
    folder = run_bench.startup_dir(runner)
    seen = tmp_path / "seen.txt"
    record = (f"text = open({run_bench.THREE!r}).read()\n"
              f"open({str(seen)!r}, 'a').write(text.splitlines()[-1] + '\\n')\n")
    restore = lambda _: (folder / run_bench.THREE).write_text(run_bench.THREE_FACTS)  # noqa: E731
    edit = lambda k: run_bench._edit_three(folder, k)  # noqa: E731
    same, edited = run_bench._bests(runner, ["-c", record], folder, (0,), [restore, edit])
    assert same > 0 and edited > 0
    lines = seen.read_text().splitlines()
    assert len(lines) == 2 * (run_bench.STARTUP_RUNS + 1)
    original = run_bench.THREE_FACTS.splitlines()[-1]
    assert lines[0::2] == [original] * (run_bench.STARTUP_RUNS + 1)  # turns: as it is, then edited
    assert len(set(lines[1::2])) == run_bench.STARTUP_RUNS + 1 and original not in lines[1::2]


def test_the_shapes_take_turns_round_by_round(tmp_path: Path) -> None:
    """At one size, round 1 of every shape runs before round 2 of any: the markdown and JSONL
    scans whose ratio is a target are minutes apart at most, not a shape's whole runs apart."""
    import run_bench
    from common import Runner

    class Recording(Runner):
        def run(self, args: list[str], *rest: Any, **named: Any) -> Any:
            if args[:3] == ["-m", "memory_autopsy", "scan"]:
                # the static-model scan of markdown (a rule file names the model) follows its round's
                scanned.append(Path(args[3]).suffix + ("+static" if "--config" in args else ""))
            return super().run(args, *rest, **named)

    scanned: list[str] = []
    runner = Recording(tmp_path, timeout=120, mem_limit_gib=0)
    results = run_bench.measure_size(["jsonl", "md"], 200, runner, 0, 2, True, None)
    assert scanned == [".jsonl", ".md", ".md+static", ".jsonl", ".md", ".md+static"]
    assert results["jsonl"].facts == results["md"].facts == 200
    assert results["md"].scan_s is not None and results["jsonl"].scan_s is not None
    assert results["jsonl"].scan_facts == results["md"].scan_facts == 200
