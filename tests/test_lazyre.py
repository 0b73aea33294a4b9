"""Patterns compiled on first use (memory_autopsy.lazyre): they match as re.compile's do, the
compiled pattern takes the stand-in's place in its module, and importing the engine and the
readers compiles none of them."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

from memory_autopsy import lazyre

MODULE = '''
import re
from memory_autopsy import lazyre

_WORD = lazyre.compile(r"(?P<w>b[a-z]+)", re.I)


def first(text):
    found = _WORD.search(text)
    return found["w"] if found else None
'''


def _load(tmp_path: Path) -> object:
    path = tmp_path / "lazy_sample.py"
    path.write_text(MODULE, encoding="utf-8")
    spec = importlib.util.spec_from_file_location("lazy_sample", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_first_use_compiles_and_puts_the_pattern_in_its_place(tmp_path: Path) -> None:
    module = _load(tmp_path)
    stand_in = vars(module)["_WORD"]
    assert not isinstance(stand_in, re.Pattern)
    assert module.first("an Apple, a BANANA") == "BANANA"  # type: ignore[attr-defined]
    compiled = vars(module)["_WORD"]
    assert isinstance(compiled, re.Pattern)
    assert (compiled.pattern, compiled.flags) == (r"(?P<w>b[a-z]+)", re.compile(r"x", re.I).flags)
    assert module.first("nothing here") is None  # type: ignore[attr-defined]
    assert stand_in.groupindex == {"w": 1}  # a stand-in held elsewhere still answers


def test_resolved_compiles_a_stand_in_and_passes_a_pattern() -> None:
    stand_in = lazyre.compile(r"\d+")
    assert lazyre.resolved(stand_in) == re.compile(r"\d+")
    plain = re.compile(r"x")
    assert lazyre.resolved(plain) is plain
    assert lazyre.resolved("x") is None


def test_importing_the_engine_and_the_readers_compiles_none_of_their_patterns() -> None:
    """What spares the hook compiling ~80 patterns on every commit: nothing at import reads one."""
    code = (
        "import sys\n"
        "import memory_autopsy.engine, memory_autopsy.ingest.loader, memory_autopsy.ingest.markdown\n"
        "from memory_autopsy.lazyre import _Deferred\n"
        "mods = [m for n, m in list(sys.modules.items()) if n.startswith('memory_autopsy')]\n"
        "values = [v for m in mods for v in vars(m).values() if isinstance(v, _Deferred)]\n"
        "print(len(values), sum(v._compiled is not None for v in values))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    waiting, compiled = map(int, done.stdout.split())
    assert waiting >= 60
    assert compiled == 0
