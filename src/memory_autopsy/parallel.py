"""A large store's work on more than one CPU, by fork: reading (a JSONL store's lines, a
markdown file's sections, and the derivation of each fact: ingest.loader) and judging (the
per-entity layers, engine.run) are dealt out in parts, and each
part but the first runs in a forked child that sends its results back through a pipe, pickled
a piece at a time; the parent does the first part meanwhile. A child shares the parent's
memory as it is at the fork: it reads nothing again and writes nothing anywhere but its pipe,
and leaves without the parent's exit handlers. A child that fails (it exits with a code, is
killed, or its pipe ends before its last piece) costs time, never results: the caller does its
part again in the parent.

Forking is POSIX only and unsafe beside other threads (a lock another thread held stays held
in the child): there (the progress line's thread aside, PROGRESS_THREAD), and with one job,
everything runs in the process, as before."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

# Work items (facts to derive or to judge) below which a fork costs more than it saves: a fork
# copies the page tables of a large heap, and each side's first write to a shared page copies it.
MIN_ITEMS = 10_000
# What `jobs=0` (one per CPU) uses at most: each child copies the pages it touches, so the
# memory a run takes grows with its jobs.
MAX_AUTO = 4
_END = None  # the piece a child sends last: a pipe that ends before it was cut short

T = TypeVar("T")


class ChildFailed(Exception):
    """A child that did not send all its pieces, or did not exit cleanly."""


def jobs_of(asked: int, items: int) -> int:
    """The processes a run of `items` work items uses: `asked`, or for 0 the CPUs this process
    may run on (at most MAX_AUTO); 1 below MIN_ITEMS, or where forking is not available or safe."""
    if asked == 1 or items < max(MIN_ITEMS, 2) or not _can_fork():
        return 1
    if asked > 0:
        return asked
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(cpus, MAX_AUTO))


# The one thread a run starts beside its own (commands/progress.py, on a terminal): it waits on
# an event and writes to stderr, which a child never writes to (it writes to devnull).
PROGRESS_THREAD = "memory-autopsy-progress"


def _can_fork() -> bool:
    # macOS: system frameworks are not fork-safe (multiprocessing spawns there by default).
    return hasattr(os, "fork") and sys.platform != "darwin" and not _other_threads()


def _other_threads() -> bool:
    """Whether a thread other than this one and the progress line's runs (a process that never
    imported threading runs none started from Python)."""
    threading = sys.modules.get("threading")
    if threading is None or threading.active_count() == 1:
        return False
    current = threading.current_thread()
    return any(thread is not current and thread.name != PROGRESS_THREAD for thread in threading.enumerate())


def dealt(sizes: dict[T, int], n: int) -> list[list[T]]:
    """The keys in at most n non-empty groups of about the same total size: largest first, each
    to the group with the least so far. Each group keeps the keys' own order."""
    totals = [0] * n
    group_of: dict[T, int] = {}
    for key in sorted(sizes, key=sizes.__getitem__, reverse=True):
        k = totals.index(min(totals))
        group_of[key] = k
        totals[k] += sizes[key]
    groups: list[list[T]] = [[] for _ in range(n)]
    for key in sizes:
        groups[group_of[key]].append(key)
    return [group for group in groups if group]


class Child:
    """A forked child running `work`, each piece it yields pickled down a pipe (pid 0: one that
    could not be started)."""

    def __init__(self, pid: int, read: int) -> None:
        self.pid, self.read = pid, read

    def pieces(self) -> Iterator[Any]:
        """The pieces the child sends, in order; ChildFailed (after the child is reaped) if it
        did not send them all, did not exit cleanly or was never started. Call once."""
        import pickle

        if self.pid == 0:
            raise ChildFailed("not started")
        pipe = _Pipe(self.read)
        try:
            while True:
                try:
                    piece = pickle.load(pipe)
                except Exception as error:  # noqa: BLE001 - a pipe cut short holds no pickle
                    raise ChildFailed(str(error)) from None
                if piece is _END:
                    break
                yield piece
        finally:
            self.stop(kill=False)

    def stop(self, kill: bool = True) -> None:
        """Close the pipe and reap the child (killing it first when its pieces are no longer
        wanted); ChildFailed, unless killed, if it did not exit cleanly."""
        if self.pid == 0:
            return
        import signal

        pid, self.pid = self.pid, 0
        os.close(self.read)
        if kill:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        _, status = os.waitpid(pid, 0)
        if not kill and not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0):
            raise ChildFailed(f"child exited with status {status}")


def stop(children: Iterable[Child]) -> None:
    """Stop and reap children whose pieces are no longer wanted (the parent is failing)."""
    for child in children:
        child.stop()


@contextmanager
def beside(children: Iterable[Child]) -> Iterator[None]:
    """The parent's own part, done while its children work: if it fails, they are stopped and
    reaped before the error goes on."""
    try:
        yield
    except BaseException:
        stop(children)
        raise


def fork(work: Callable[[], Iterable[Any]]) -> Child:
    """A child running `work`; if none could be started, a Child whose pieces fail at once (the
    caller does the work, as for any child that fails)."""
    try:
        read, write = os.pipe()
    except OSError:
        return Child(0, -1)
    import warnings

    global forking
    forking = True
    try:
        with warnings.catch_warnings():  # beside the progress line's thread: see PROGRESS_THREAD
            warnings.simplefilter("ignore", DeprecationWarning)
            pid = os.fork()
    except OSError:
        os.close(read)
        os.close(write)
        return Child(0, -1)
    finally:
        forking = False
    if pid:
        os.close(write)
        return Child(pid, read)
    code = 1
    try:  # the child: its pieces down the pipe, then out without the parent's exit handlers
        import pickle

        # Nothing it might print can wait on a lock of the parent's streams, nor reach them.
        sys.stdout = sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
        os.close(read)
        pipe = _Pipe(write)
        for piece in work():
            pickle.dump(piece, pipe, pickle.HIGHEST_PROTOCOL)
        pickle.dump(_END, pipe, pickle.HIGHEST_PROTOCOL)
        os.close(write)
        code = 0
    finally:
        os._exit(code)


# True while this module forks: a run that records itself (replay.Recorder) knows the fork for
# its own, a child that reads nothing the record would have to replay.
forking = False


class _Pipe:
    """A pipe's end as the file pickle reads or writes: no buffer of its own, no `open` call."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def write(self, data: bytes) -> int:
        view = memoryview(data)
        while view:
            view = view[os.write(self.fd, view):]
        return len(data)

    def read(self, size: int = -1) -> bytes:
        chunks = []
        while size != 0:
            chunk = os.read(self.fd, size if size > 0 else 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            size -= len(chunk) if size > 0 else 0
        return b"".join(chunks)

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        done = 0
        while done < len(view):
            got = os.readv(self.fd, [view[done:]])
            if not got:
                break
            done += got
        return done

    def readline(self) -> bytes:  # pickle asks for it; protocol 2 and later never reads a line
        raise OSError("a pipe of pickles is read by size")
