"""The hook's second run: a run whose every input is unchanged prints the first run's output.

A commit retried after another hook failed, `pre-commit run --all-files` run twice, a CI job
run again: the hook is asked the same question about the same files. Its first run (exit 0 or
1, parse cache on) writes a record to `.memory-autopsy-cache/runs/`: the run's output and exit
code, and everything that decided them, as the run observed it:

- the key: this record's format, the tool's version, where the package is installed and the
  size and time of each of its files, the interpreter, the arguments, the working directory,
  the date (relative dates and `aged` follow it), whether standard output and error are
  terminals, the environment variables the run reads or that decide how text is decoded
  (ENVIRONMENT, `MEMORY_AUTOPSY_*`), and the libraries it loaded (size and times of their files);
- every file it opened to read (the memory files, the rule file, the baseline, word lists):
  its size, times, inode and device, and the bytes of a file up to SMALL (STORED in all). A
  file changed in the last RACY seconds is matched by its bytes only (one changed twice within
  the file system's clock tick keeps its times, which git guards against alike for an index
  entry as new as the index); such a file larger than SMALL, and the run is not recorded. A
  small file written again with the same bytes (pre-commit stashing and restoring the changes
  it does not commit) still matches;
- every path it asked about (`stat`: does a rule file exist here, is this a file, how large):
  what the answer was, and a regular file's size;
- every folder it listed (the walk of the scope outside git): the names and which are folders;
- every git command it ran (the scope's listing, the repository root): its output (a long one
  as its SHA-256), or that it failed.

The next run with the same key (a record is named by its key and by its inputs' state, so a
branch checked out again finds its own; the CANDIDATES newest with the key are tried) checks
all of that again and, when nothing differs, writes the recorded output and exits with the
recorded code, without the engine: in a repository it runs the same git commands (a new
untracked memory file or a change to `.gitignore` shows in their output) and never reads a
record git tracks (a record committed by a pull request would say what it likes). Anything it cannot check, or any
difference, and the run is a full one, which writes a new record. A record is marshalled
Python values (a local cache of this interpreter, like `__pycache__`), compressed; an
unreadable one is a miss, and is rewritten. The folder keeps the KEEP newest, within
KEPT_BYTES (a record that serves is touched).

What is recorded is collected where the run does it: an audit hook (`sys.addaudithook`) sees
every `open`, `os.scandir` and `os.listdir` and every process started, and `os.stat` /
`os.lstat` are wrapped for the run (on POSIX systems only: on Windows, `os.path.exists` and its
kin may ask the file system in C, unseen, so nothing is recorded there); the git helper hands over each command's output. Only the
process entry records (`cli.entry`, for `hook`): an in-process `main()` never does. A run
that wrote a file outside the cache, started a process other than the git commands it
reported, saw an input change while it ran, printed more than OUTPUT characters, or used
standard input, `--output`, `--no-cache` or the embedding engine, is not recorded.

This module is imported before anything else on the hook's path: it uses os, sys, marshal,
stat, time and zlib only (hashlib and subprocess when a repository's record is checked), and
cachedir (the cache folder's names and its writes), which imports no more than these.
"""

from __future__ import annotations

import marshal
import os
import stat
import sys
import time
import zlib

from memory_autopsy import __version__
from memory_autopsy.cachedir import CACHE_DIR, RUNS, ignore_itself, write_atomic

TYPE_CHECKING = False  # not typing's (4 ms with `re`): this module is the hook's whole second run
if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import Any

FORMAT = 2  # 2: compressed
KEEP = 16
CANDIDATES = 4  # records of one key tried, newest first
RACY = 2.0  # seconds: a file changed this recently is recorded with its bytes
SMALL = 1 << 16  # bytes: a file up to this size is recorded with its bytes
STORED = 1 << 20  # bytes: at most this much of them in one record
OUTPUT = 1 << 24  # characters: a run that printed more is not recorded (nor held: _Tee)
KEPT_BYTES = 1 << 26  # the folder's records (compressed) beyond this go, oldest first
SMALL_ANSWER = 1 << 12  # characters: a git answer longer than this is kept as its digest
# The git commands a hook run starts (scope.start_listing, scope._ignored, ci.filters.tracking,
# ci.changed.repo_root). A record names the commands its run started, and a replay runs them
# again: only these, never what a record says (`-c alias.x=!cmd`, `--upload-pack=cmd`); a
# record that holds another is a miss, and its run a full one.
# Every git the tool starts: a folder a pull request fills with a git folder's files (`HEAD`,
# `objects/`, `refs/`, a `config` naming a `core.fsmonitor` command) is never taken for a bare
# repository, whose configuration git would obey (its commands run on the runner).
GIT = ("git", "-c", "safe.bareRepository=explicit")
# The work tree's listing: tracked files, and untracked ones not ignored. The scope and the
# grounding layer ask it (once a run: the hook's one answer serves both).
LIST_FILES = ("ls-files", "-z", "--cached", "--others", "--exclude-standard")
GIT_COMMANDS = frozenset({
    LIST_FILES,
    ("check-ignore", "-q", "."),
    ("ls-files", "-z", "--cached", "--", CACHE_DIR),
    ("rev-parse", "--show-toplevel"),
})
# What the run reads of the environment (colour, git's folders, the help's width) and what
# decides how text is decoded and printed.
ENVIRONMENT = ("NO_COLOR", "TERM", "GIT_DIR", "GIT_WORK_TREE", "COLUMNS", "LANG", "LC_ALL", "LC_CTYPE",
               "PYTHONIOENCODING", "PYTHONUTF8")
PACKAGE = os.path.dirname(os.path.abspath(__file__))

_stat = os.stat
_lstat = os.lstat


# -- what the run saw, and what it sees again ------------------------------------------------


def _kind(path: str, follow: bool) -> tuple[str, int]:
    """What `stat` answers about a path: (f)ile with its size, (d)irectory, (l)ink, (o)ther,
    (-) missing, or (e)rror with its errno."""
    try:
        st = _stat(path) if follow else _lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return "-", 0
    except OSError as error:
        return "e", error.errno or 0
    except ValueError:  # a NUL in the path
        return "e", -1
    mode = st.st_mode
    if stat.S_ISREG(mode):
        return "f", st.st_size
    return ("d" if stat.S_ISDIR(mode) else "l" if stat.S_ISLNK(mode) else "o"), 0


def _identity(st: os.stat_result) -> tuple[int, int, int, int, int]:
    return (st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


def _file(path: str, now: float, budget: int) -> tuple[Any, ...] | None:
    """A file the run opened to read: (identity, its bytes or None, whether the identity can be
    trusted), or (None, kind, False) for what is not a regular file; None when it cannot be
    recorded (changed in the last RACY seconds and larger than SMALL or than `budget`).
    A small file keeps its bytes even when its identity can be trusted: a file written again
    with the same bytes (pre-commit stashing and restoring the unstaged changes) matches."""
    try:
        st = _stat(path)
    except OSError:
        return (None, _kind(path, True), False)
    if not stat.S_ISREG(st.st_mode):
        return (None, _kind(path, True), False)
    trusted = st.st_ctime_ns / 1e9 < now - RACY and st.st_mtime_ns / 1e9 < now - RACY
    if st.st_size > min(SMALL, budget):
        return (_identity(st), None, True) if trusted else None
    try:
        with open(path, "rb") as handle:
            data = handle.read(SMALL + 1)
    except OSError:
        return None
    return (_identity(st), data, trusted)


def _same_file(path: str, seen: tuple[Any, ...]) -> bool:
    identity, data, trusted = seen
    if identity is None:
        return bool(_kind(path, True) == data)
    try:
        st = _stat(path)
    except OSError:
        return False
    if not stat.S_ISREG(st.st_mode):
        return False
    if trusted and _identity(st) == identity:
        return True
    if data is None or st.st_size != len(data):
        return False
    try:
        with open(path, "rb") as handle:
            return bool(handle.read(SMALL + 1) == data)
    except OSError:
        return False


def _listing(folder: str) -> tuple[str, ...] | None:
    """A folder's names, a folder's with a trailing slash (in the working folder, the cache
    folder left out: the run writes there); None when it cannot be listed."""
    try:
        with os.scandir(folder) as entries:
            names = sorted(e.name + "/" if e.is_dir() else e.name for e in entries)
    except OSError:
        return None
    mine = CACHE_DIR + "/"  # resolved only where a folder holds one: most hold none
    if mine in names and os.path.realpath(folder) == os.path.realpath("."):
        names.remove(mine)
    return tuple(names)


_packages: dict[str, tuple[tuple[str, int, int], ...]] = {}


def _package(folder: str = PACKAGE) -> tuple[tuple[str, int, int], ...]:
    """The installed package as the size and time of each of its files (bytecode left out),
    looked at once per process (the second run's miss, then the recorder)."""
    if folder not in _packages:
        _packages[folder] = _package_files(folder)
    return _packages[folder]


def _package_files(folder: str) -> tuple[tuple[str, int, int], ...]:
    found: list[tuple[str, int, int]] = []
    pending = [folder]
    while pending:
        here = pending.pop()
        try:
            with os.scandir(here) as entries:
                for entry in entries:
                    if entry.is_dir():
                        if entry.name != "__pycache__":
                            pending.append(entry.path)
                    else:
                        st = entry.stat()
                        found.append((entry.path[len(folder):], st.st_size, st.st_mtime_ns))
        except OSError:
            found.append((here[len(folder):], -1, -1))
    return tuple(sorted(found))


def run_key(argv: list[str], cwd: str, today: str | None = None) -> tuple[Any, ...]:
    environment = tuple(sorted((name, value) for name, value in os.environ.items()
                               if name in ENVIRONMENT or name.startswith("MEMORY_AUTOPSY")))
    return (FORMAT, __version__, sys.version, sys.executable, PACKAGE, tuple(argv), cwd,
            today or time.strftime("%Y-%m-%d"), _tty(1), _tty(2), environment, _package())


def _tty(fd: int) -> bool:
    try:
        return os.isatty(fd)
    except OSError:
        return False


def _digest(value: Any) -> str:
    text = repr(value)
    return f"{zlib.crc32(text.encode('utf-8', 'surrogatepass')):08x}{len(text) & 0xFFFF:04x}"


def record_prefix(cwd: str, key: tuple[Any, ...]) -> tuple[str, str]:
    """The runs folder and the name its records with this key begin with (one per state of the
    inputs seen: a branch checked out again finds its own)."""
    return os.path.join(cwd, CACHE_DIR, RUNS), _digest(key) + "-"


# -- the second run ---------------------------------------------------------------------------


def replay(argv: list[str], today: str | None = None) -> tuple[int, str, str] | None:
    """(exit code, stdout, stderr) of a recorded run with this key (the newest CANDIDATES are
    tried) none of whose inputs differs now; None otherwise (the run goes on as a full one)."""
    if "--no-cache" in argv or "-" in argv:
        return None
    cwd = os.getcwd()
    key = run_key(argv, cwd, today)
    folder, prefix = record_prefix(cwd, key)
    try:
        with os.scandir(folder) as entries:
            found = sorted(((e.stat().st_mtime_ns, e.path) for e in entries if e.name.startswith(prefix)),
                           reverse=True)
    except OSError:
        return None
    if not found:
        return None
    if os.path.islink(os.path.join(cwd, CACHE_DIR)) or _tracked(cwd) is not False:
        return None  # a link (its records are another folder's), committed, or git could not say
    answers: dict[tuple[Any, ...], tuple[Any, ...] | None] = {}
    places = _git_places(argv, cwd)
    for _, path in found[:CANDIDATES]:
        replayed = _from_record(path, key, answers, places)
        if replayed is not None:
            try:
                os.utime(path)  # kept among the newest while it serves
            except OSError:
                pass
            return replayed
    return None


def _from_record(path: str, key: tuple[Any, ...], answers: dict[tuple[Any, ...], tuple[Any, ...] | None],
                 places: set[str]) -> tuple[int, str, str] | None:
    try:
        with open(path, "rb") as handle:
            record = marshal.loads(zlib.decompress(handle.read()))
        if not (isinstance(record, tuple) and len(record) == 9 and record[0] == FORMAT and record[1] == key):
            return None
        _, _, files, kinds, listings, commands, out, err, code = record
        if not _built(commands, places):
            return None
        if not (_all_same(files, kinds, listings) and _same_git(commands, answers)):
            return None
        if isinstance(out, str) and isinstance(err, str) and code in (0, 1):
            return code, out, err
    except Exception:  # a record from another interpreter, cut short or damaged: a miss
        return None
    return None


def _all_same(files: Any, kinds: Any, listings: Any) -> bool:
    return (all(_same_file(p, seen) for p, seen in files)
            and all(_kind(p, follow) == seen for (p, follow), seen in kinds)
            and all(_listing(p) == seen for p, seen in listings))


def in_work_tree(cwd: str) -> bool:
    """A `.git` here or above, or GIT_DIR / GIT_WORK_TREE set (`ci.changed.in_work_tree`)."""
    if "GIT_DIR" in os.environ or "GIT_WORK_TREE" in os.environ:
        return True
    here = os.path.realpath(cwd)
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return True
        parent = os.path.dirname(here)
        if parent == here:
            return False
        here = parent


def _built(commands: Any, places: set[str]) -> bool:
    """Whether each of a record's git commands is one the hook builds (GIT_COMMANDS), run in a
    folder it runs git in (`_git_places`): anything else, and nothing of the record is run."""
    for args, where, _ in commands:
        if type(args) is not tuple or args not in GIT_COMMANDS:
            return False
        if where is not None and (type(where) is not str or os.path.realpath(where) not in places):
            return False
    return True


def _git_places(argv: list[str], cwd: str) -> set[str]:
    """The folders a hook run with these arguments starts git in: the working folder and the
    folders above it (the repository's root, a rule file's folder), and the paths it names and
    their folders (a folder given as context, a rule file given with --config)."""
    places: set[str] = set()
    here = os.path.realpath(cwd)
    while here not in places:
        places.add(here)
        here = os.path.dirname(here)
    for word in argv[1:]:
        named = os.path.realpath(os.path.join(cwd, word))
        places.update((named, os.path.dirname(named)))
    return places


def _tracked(cwd: str) -> bool | None:
    """Whether git tracks the cache folder or a file in it (never outside a repository); None
    when git cannot say. Asked from the working folder: git started inside the cache folder
    would take a git folder's files committed there for a repository (ci.filters.tracking)."""
    if not in_work_tree(cwd):
        return False
    started = _start(("ls-files", "-z", "--cached", "--", CACHE_DIR), cwd)
    done = None if started is None else _finish(started)
    return None if done is None or not done[0] else done != (True, "")


def _same_git(commands: Any, answers: dict[tuple[Any, ...], tuple[Any, ...] | None]) -> bool:
    """Each command, run again (together, once per replay), answers as it did."""
    started = {(tuple(args), cwd): _start(tuple(args), cwd) for args, cwd, _ in commands
               if (tuple(args), cwd) not in answers}
    for asked, process in started.items():
        answers[asked] = None if process is None else _finish(process)
    return all(answers[(tuple(args), cwd)] == seen for args, cwd, seen in commands)


def _start(args: tuple[str, ...], cwd: str | None) -> Any:
    import subprocess  # a repository's run only

    try:
        return subprocess.Popen([*GIT, *args], cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError:
        return None


def _finish(process: Any) -> tuple[Any, ...] | None:
    try:
        out, _ = process.communicate()
    except OSError:
        return None
    # as ci.changed.decoded: a name that is not UTF-8 keeps its bytes
    return answer(process.returncode == 0, out.decode("utf-8", "surrogateescape"))


def answer(ok: bool, out: str) -> tuple[Any, ...]:
    """A git command's answer as a record keeps it: whether it succeeded and, when it did, its
    output; a long one (the listing of a large repository) as its length and SHA-256."""
    if not ok:
        return (False, "")
    if len(out) <= SMALL_ANSWER:
        return (True, out)
    import hashlib  # a large repository's run only

    return (True, len(out), hashlib.sha256(out.encode("utf-8", "surrogateescape")).hexdigest())


# -- the first run ----------------------------------------------------------------------------


class _Tee:
    """A text stream that keeps what is written to it, up to OUTPUT characters (then nothing:
    the run is not recorded, and a large report is not held twice)."""

    def __init__(self, stream: Any, kept: list[str]) -> None:
        self._stream = stream
        self._kept = kept
        self.size = 0

    def write(self, text: str) -> int:
        self.size += len(text)
        if self.size <= OUTPUT:
            self._kept.append(text)
        elif self._kept:
            self._kept.clear()
        return int(self._stream.write(text))

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class Recorder:
    """What one hook run reads, asks and prints; `save` writes the record."""

    def __init__(self, argv: list[str]) -> None:
        self.cwd = os.getcwd()
        self.key = run_key(argv, self.cwd)
        self.now = time.time()
        self.files: dict[str, tuple[Any, ...]] = {}
        self.kinds: dict[tuple[str, bool], tuple[str, int]] = {}
        self.listings: dict[str, tuple[str, ...] | None] = {}
        self.commands: list[tuple[tuple[str, ...], str | None, tuple[Any, ...]]] = []
        self.started = 0
        self.stored = 0  # bytes of small files kept in the record
        self.root: str | None = None  # set by the hook once it knows the run can be replayed
        self.broken = False
        self.out: list[str] = []
        self.err: list[str] = []
        self._busy = False
        self._tees: tuple[_Tee, ...] = ()
        # Where the interpreter reads its own modules (and writes their bytecode): not inputs.
        # Its library folders, not its prefix: a project may live under /usr/local.
        self._skipped = tuple({os.path.join(f(p), "") for p in _homes() for f in (os.path.abspath, os.path.realpath)})
        self._cache = tuple({os.path.join(f(self.cwd), CACHE_DIR, "") for f in (os.path.abspath, os.path.realpath)})
        if os.path.join(os.path.realpath(self.cwd), "").startswith(self._skipped):
            self.broken = True  # a working folder inside them: its files would not be seen
        if os.name != "posix":  # Windows' `os.path.exists` and kin can answer in C, unwatched
            self.broken = True

    def start(self) -> None:
        """Watch the run: the audit hook, `os.stat` / `os.lstat`, standard output and error."""
        global _recorder
        _recorder = self
        sys.addaudithook(_audit)
        os.stat = self._stat_of(_stat, True)
        os.lstat = self._stat_of(_lstat, False)
        self._tees = (_Tee(sys.stdout, self.out), _Tee(sys.stderr, self.err))
        sys.stdout, sys.stderr = self._tees

    def stop(self) -> None:
        global _recorder
        _recorder = None
        os.stat, os.lstat = _stat, _lstat
        for name in ("stdout", "stderr"):
            stream = getattr(sys, name)
            if isinstance(stream, _Tee):
                setattr(sys, name, stream._stream)

    def _stat_of(self, real: Callable[..., os.stat_result], follow: bool) -> Callable[..., os.stat_result]:
        def observed(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
            if not args and not kwargs.get("dir_fd") and not isinstance(path, int):
                self._asked(path, follow and kwargs.get("follow_symlinks", True))
            return real(path, *args, **kwargs)

        return observed

    def _watched(self, path: Any) -> str | None:
        """The path as the run named it, when it is an input: not a module of the interpreter
        (most of the events a run sees), not the cache."""
        if self._busy or self.broken or isinstance(path, int):
            return None
        if not isinstance(path, str):
            try:
                path = os.fsdecode(path)
            except (TypeError, ValueError):
                return None
        if path.startswith(self._skipped):
            return None
        full = os.path.join(self.cwd, path)
        if full.startswith(self._skipped) or os.path.join(full, "").startswith(self._cache):
            return None
        return str(path)

    def _asked(self, path: Any, follow: bool) -> None:
        name = self._watched(path)
        if name is None or (name, follow) in self.kinds:
            return
        self._busy = True
        try:
            self.kinds[(name, follow)] = _kind(name, follow)
        finally:
            self._busy = False

    def _opened(self, path: Any, mode: Any, flags: Any) -> None:
        if isinstance(mode, str):
            writes = any(c in mode for c in "wax+")
        else:
            writes = isinstance(flags, int) and bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))
        name = self._watched(path)
        if name is None:
            return
        if writes:  # the hook writes nothing but its cache: anything else, and no record
            self.broken = True
            return
        if name in self.files:
            return
        self._busy = True
        try:
            seen = _file(name, self.now, STORED - self.stored)
        finally:
            self._busy = False
        if seen is None:
            self.broken = True
        else:
            self.files[name] = seen
            self.stored += len(seen[1]) if isinstance(seen[1], bytes) else 0

    def _listed(self, path: Any) -> None:
        name = self._watched(path if path is not None else ".")
        if name is None or name in self.listings:
            return
        self._busy = True
        try:
            self.listings[name] = _listing(name)
        finally:
            self._busy = False

    def git(self, args: tuple[str, ...], cwd: str | None, ok: bool, out: str) -> None:
        """A git command the run started (the audit hook counts it) and what it answered."""
        self.commands.append((tuple(args), None if cwd is None else os.fspath(cwd), answer(ok, out)))

    def save(self, code: int) -> bool:
        """Write the record, when the run can be replayed and nothing it read changed meanwhile."""
        self.stop()
        if self.broken or self.root is None or code not in (0, 1) or self.started != len(self.commands):
            return False
        if sum(tee.size for tee in self._tees) > OUTPUT:
            return False
        out, err = "".join(self.out), "".join(self.err)
        if os.path.realpath(self.cwd) != os.path.realpath(self.root):
            return False  # the record lives where the next run looks first: the working folder
        if os.path.islink(os.path.join(self.cwd, CACHE_DIR)):
            return False  # never written through a link (its folder is another's)
        files = tuple(sorted({**self.files, **_libraries()}.items()))
        kinds = tuple(sorted(self.kinds.items()))
        listings = tuple(sorted(self.listings.items()))
        if not _all_same(files, kinds, listings):
            return False
        record = (FORMAT, self.key, files, kinds, listings, tuple(self.commands),
                  out, err, code)
        folder, prefix = record_prefix(self.cwd, self.key)
        data = zlib.compress(marshal.dumps(record), 1)  # a report compresses ~10:1, at ~200 MB/s
        return _write(os.path.join(folder, prefix + _digest(record[2:6])), data)


def _libraries() -> dict[str, tuple[Any, ...]]:
    """The modules the run loaded that are neither the standard library's nor the package's
    (PyYAML, tomli): an upgrade in place changes their files, and so the record's inputs."""
    found: dict[str, tuple[Any, ...]] = {}
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        top = name.partition(".")[0]
        if not isinstance(path, str) or top == __name__.partition(".")[0] or top in sys.stdlib_module_names:
            continue
        if os.path.abspath(path).startswith(os.path.join(PACKAGE, "")):  # `__main__`: the package's
            continue
        try:
            st = _stat(path)
        except OSError:
            continue
        found[path] = (_identity(st), None, True)
    return found


def _homes() -> set[str]:
    """The folders the interpreter loads modules from: the package, the standard library, the
    site-packages folders, and where bytecode is written when it is written apart."""
    import site  # loaded at start-up already

    found = {PACKAGE, os.path.dirname(os.__file__), getattr(sys, "pycache_prefix", None) or ""}
    try:
        found.update(site.getsitepackages())
        found.add(site.getusersitepackages())
    except AttributeError:  # an embedded or virtualenv-era site without them
        pass
    return {home for home in found if home}


_recorder: Recorder | None = None


def _audit(event: str, args: tuple[Any, ...]) -> None:
    recorder = _recorder
    if recorder is None:
        return
    if event == "open":
        recorder._opened(*args[:3])
    elif event in ("os.scandir", "os.listdir"):
        recorder._listed(args[0] if args else None)
    elif event == "subprocess.Popen":  # each must be a git command the run reports (Recorder.git)
        recorder.started += 1
    elif event == "os.fork" and _computing_fork():
        pass  # memory_autopsy.parallel: a child that only computes
    elif event in ("os.posix_spawn", "os.spawn", "os.system", "os.exec", "os.fork", "os.forkpty"):
        recorder.broken = True


def _computing_fork() -> bool:
    parallel = sys.modules.get("memory_autopsy.parallel")
    return parallel is not None and parallel.forking


def recorder() -> Recorder | None:
    """The run's recorder, when this process records one."""
    return _recorder


def _write(path: str, data: bytes) -> bool:
    """The record written as the parse cache writes its entries (a new file beside it, then
    `os.replace`), the cache folder's `.gitignore` made if it is not there, the oldest pruned."""
    from pathlib import Path

    target = Path(path)
    if not write_atomic(target, lambda handle: handle.write(data), binary=True):
        return False
    ignore_itself(target.parent.parent)
    _keep_newest(str(target.parent))
    return True


def _keep_newest(folder: str) -> None:
    """The KEEP newest records, and of them only as many as KEPT_BYTES hold."""
    try:
        with os.scandir(folder) as entries:
            found = sorted(((st.st_mtime_ns, st.st_size, e.path) for e in entries if e.is_file()
                            for st in (e.stat(),)), reverse=True)
    except OSError:
        return
    total = 0
    for n, (_, size, path) in enumerate(found):
        total += size
        if n >= KEEP or (n and total > KEPT_BYTES):
            try:
                os.unlink(path)
            except OSError:
                pass
