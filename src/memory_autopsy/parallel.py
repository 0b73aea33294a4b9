"""A large store's work on more than one CPU, by fork: reading (a JSONL store's lines, a
markdown file's sections, and the derivation of each fact: ingest.loader) and judging (the
per-entity layers, engine.run) are dealt out in parts, and each
part but the first runs in a forked child that sends its results back through a pipe, pickled
a piece at a time; the parent does the first part meanwhile. A child shares the parent's
memory as it is at the fork: it reads nothing again and writes nothing anywhere but its pipe,
and leaves without the parent's exit handlers. A child that fails (it exits with a code, is
killed, or its pipe ends before its last piece) costs time, never results: the caller does its
part again in the parent. So does a piece this process cannot take in (out of memory while
unpickling it): that child is killed.

Nothing here waits without a bound. A child holds no pipe but its own (it closes the read ends
of the children forked before it), so once the parent stops reading, the child's next write
fails and it exits; a child that does not exit within EXIT_WAIT of its pipe's close is killed,
then reaped.

Forking is POSIX only and unsafe beside other threads (a lock another thread held stays held
in the child): there (the progress line's thread aside, PROGRESS_THREAD), and with one job,
everything runs in the process, as before."""

from __future__ import annotations

import os
import sys
import time
import weakref
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
# Seconds a child is given to exit once its pipe is closed (it has sent its last piece, or its
# next write fails), then to die once killed: a child that exits takes milliseconds, one with a
# large heap a little more.
EXIT_WAIT = 5.0

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
    could not be started, or was stopped)."""

    def __init__(self, pid: int, read: int) -> None:
        self.pid, self.read = pid, read
        if pid:
            _reading[read] = self

    def pieces(self) -> Iterator[Any]:
        """The pieces the child sends, in order; ChildFailed (after the child is reaped) if it
        did not send them all, did not exit cleanly or was never started. Call once. A child
        whose pieces are not all taken (this process failed to take one in, or stopped asking)
        is killed."""
        import pickle

        if self.pid == 0:
            raise ChildFailed("not started")
        pipe, ended = _Pipe(self.read), False
        try:
            while True:
                try:
                    piece = pickle.load(pipe)
                except Exception as error:  # noqa: BLE001 - a pipe cut short holds no pickle; out of memory
                    raise ChildFailed(type(error).__name__) from None
                if piece is _END:
                    ended = True
                    break
                yield piece
        finally:
            self.stop(kill=not ended)

    def stop(self, kill: bool = True) -> None:
        """Close the pipe and reap the child, killing it first when its pieces are no longer
        wanted, or when it does not exit within EXIT_WAIT; ChildFailed, unless killed at once,
        if it did not exit cleanly."""
        if self.pid == 0:
            return
        pid, self.pid = self.pid, 0
        _reading.pop(self.read, None)
        os.close(self.read)
        status = None if kill else _reaped(pid, EXIT_WAIT)
        if status is None:
            _kill(pid)
            if not kill:
                raise ChildFailed("did not exit")
        elif status == _GONE or not (os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0):
            raise ChildFailed(f"exited with status {status}")

    def __del__(self) -> None:
        # A child left unread (its caller failed past `beside`) is not left blocked on its pipe.
        try:
            self.stop()
        except Exception:  # out of memory here too: nothing to say on stderr
            pass


# The children whose pipes this process reads, by read end: a child forked later closes these
# ends, so a pipe the parent has closed has no reader left and its child's writes fail.
_reading: weakref.WeakValueDictionary[int, Child] = weakref.WeakValueDictionary()


_GONE = -1  # the status of a child reaped elsewhere (SIGCHLD ignored): not known to be clean


def _reaped(pid: int, seconds: float) -> int | None:
    """The wait status of child `pid` once it exits (_GONE: reaped elsewhere); None if it has
    not exited within `seconds`."""
    deadline, pause = time.monotonic() + seconds, 0.0005
    while True:
        try:
            done, status = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            return _GONE
        if done:
            return status
        if time.monotonic() > deadline:
            return None
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def _kill(pid: int) -> None:
    """Kill child `pid` and reap it; one still there after EXIT_WAIT (stuck in the kernel) is
    left to the system, which reaps it when this process ends."""
    import signal

    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:  # reaped elsewhere
        return
    _reaped(pid, EXIT_WAIT)


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
        _hold_own_pipe_only(read)
        import pickle

        # Nothing it might print can wait on a lock of the parent's streams, nor reach them.
        sys.stdout = sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
        pipe = _Pipe(write)
        for piece in work():
            pickle.dump(piece, pipe, pickle.HIGHEST_PROTOCOL)
        pickle.dump(_END, pipe, pickle.HIGHEST_PROTOCOL)
        os.close(write)
        code = 0
    finally:
        os._exit(code)


def _hold_own_pipe_only(read: int) -> None:
    """In a child just forked: close the parent's end of its own pipe and of every earlier
    child's, so that each pipe's reader is the parent alone. The earlier children are the
    parent's to stop, not this process's."""
    for child in list(_reading.values()):
        if child.pid:
            os.close(child.read)
            child.pid = 0
    _reading.clear()
    os.close(read)


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
