"""The one way a file the repository names is read: confined to the roots of the run.

In a pull request from a fork, a memory file, an `@import`, an index link, the rule file and
the baseline are all the pull request's: any of them may be a symlink to a file outside the
checkout (a runner's secrets, `../.git/config`, `/proc/kmsg`). A path is read only when its real
path lies inside one of the roots (the repository or working directory, the folders named on the
command line, the MCP server's `--root` folders), and then from a single open that follows no
link, of a regular file, up to a bound on its bytes. A path that leads outside is refused by
name, before anything outside is looked at: its target's content, and whether it exists, are
never told.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from typing import BinaryIO

_NOFOLLOW: int = getattr(os, "O_NOFOLLOW", 0)
# O_NONBLOCK: a FIFO (or a device) swapped in must not hang the open; it is then refused as not
# a regular file
_FILE_FLAGS: int = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_DIR_FLAGS: int = _FILE_FLAGS | getattr(os, "O_DIRECTORY", 0)
_WALK_BENEATH = bool(_NOFOLLOW) and os.open in os.supports_dir_fd
_LINK_ERRORS = (errno.ELOOP, errno.ENOTDIR, errno.EMLINK)  # what O_NOFOLLOW meeting a link raises
OUTSIDE = "a link or path that leads outside the repository (not read)"


class LeadsOutside(Exception):
    """A path whose real place is outside every root, or (`raced`) that turned into a link
    between the check and the open."""

    def __init__(self, path: str, raced: bool = False) -> None:
        super().__init__(path)
        self.path = path
        self.raced = raced


@dataclass(frozen=True)
class Roots:
    """The folders a run may read, as real paths."""

    paths: tuple[str, ...]

    @classmethod
    def of(cls, folders: Iterable[str] = ()) -> Roots:
        """The working directory and `folders`."""
        real = [os.path.realpath(os.getcwd())] + [os.path.realpath(f) for f in folders]
        return cls(tuple(dict.fromkeys(real)))

    @classmethod
    def for_paths(cls, named: Iterable[str], trusted: Iterable[str] = ()) -> Roots:
        """The roots of a run over the paths `named` on its command line: the working directory,
        the work tree it is in (when a path named leads above it), `trusted`, and each named path
        that lies outside them by its name alone (a folder, or a file's folder). A named path
        inside them adds nothing, so a folder in the repository that is a link to `/etc` is not
        made a root by being named."""
        named = [p for p in named if p and p != "-"]
        here = os.path.join(os.getcwd(), "")
        if not all(os.path.abspath(p).startswith(here) for p in named):
            trusted = [*trusted, *_work_tree()]
        base = cls.of(trusted)
        lexical = [os.path.abspath(p) for p in base.paths]
        extra: list[str] = []
        for given in named:
            absolute = os.path.abspath(given)
            if any(_within(absolute, root) for root in lexical):
                continue
            extra.append(absolute if os.path.isdir(absolute) else os.path.dirname(absolute))
        return cls(tuple(dict.fromkeys(base.paths + tuple(os.path.realpath(p) for p in extra))))

    def contains(self, real: str) -> bool:
        return self.root_of(real) is not None

    def root_of(self, real: str) -> str | None:
        for root in self.paths:
            if _within(real, root):
                return root
        return None

    def inside(self, path: str) -> bool:
        """Whether `path`, once its links are followed, stays inside the roots (nothing opened)."""
        try:
            return self.contains(os.path.realpath(path))
        except (OSError, ValueError):
            return False


def _work_tree() -> list[str]:
    """The work tree of the working directory (none: [])."""
    top = work_tree_top(os.getcwd())
    return [] if top is None else [top]


def work_tree_top(folder: str) -> str | None:
    """The nearest folder at or above `folder` that holds `.git` (None: there is none); told
    from the folders alone, no git started."""
    while True:
        if os.path.lexists(os.path.join(folder, ".git")):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _within(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def real(path: str) -> str:
    try:
        return os.path.realpath(path)
    except OSError:  # a link swapped while realpath read it (readlink: EINVAL)
        raise LeadsOutside(path, raced=True) from None


def read_inside(path: str, roots: Roots, limit: int, *, truncate: bool = False) -> bytes:
    """The bytes of one file inside the roots, from a single open that follows no link.

    LeadsOutside when the file leads outside the roots or a link appeared on the way since the
    check; OSError, its strerror the whole reason to show ("unreadable: …", "not a regular
    file", "file too large …"), when it cannot be read, is not a regular file, or holds more
    than `limit` bytes (EFBIG; with `truncate`, its first `limit` bytes)."""
    where = real(path)
    root = roots.root_of(where)
    if root is None:
        raise LeadsOutside(path)
    # The opens below go by folder descriptor, a name at a time, which an audit hook watching
    # what a run reads (replay.py) cannot place: the file is named to it whole first.
    sys.audit("open", where, "rb", _FILE_FLAGS)
    try:
        fd = _open_beneath(root, where) if _WALK_BENEATH else _open_checked(where)
    except OSError as error:
        if error.errno in _LINK_ERRORS:
            raise LeadsOutside(path, raced=True) from None
        raise OSError(error.errno, f"unreadable: {error.strerror or error}") from None
    with os.fdopen(fd, "rb") as handle:
        status = os.fstat(handle.fileno())
        if not stat.S_ISREG(status.st_mode):
            raise OSError(errno.EINVAL, "not a regular file")
        try:
            data = _read_bounded(handle, status.st_size, limit)
        except OSError as error:
            raise OSError(error.errno, f"unreadable: {error.strerror or error}") from None
    if len(data) > limit:
        if truncate:
            return data[:limit]
        raise OSError(errno.EFBIG, f"file too large (over {limit} bytes)")
    return data


def _read_bounded(handle: BinaryIO, size: int, limit: int) -> bytes:
    """Up to `limit` + 1 bytes. read(n) allocates n bytes up front: ask for the file's size, and
    read on to the bound only when it grew since."""
    wanted = min(size, limit) + 1
    data = handle.read(wanted)
    if len(data) == wanted <= limit:
        data += handle.read(limit + 1 - wanted)
    return data


def kind(path: str, roots: Roots) -> str:
    """What a path a memory file names is, told without opening it: "outside" (decided by its
    real path alone: whether it exists is never looked up), "file", "missing" or "other"."""
    try:
        where = real(path)
    except LeadsOutside:
        return "outside"
    if not roots.contains(where):
        return "outside"
    try:
        mode = os.stat(where).st_mode
    except (OSError, ValueError):
        return "missing"
    return "file" if stat.S_ISREG(mode) else "other"


def _open_beneath(root: str, where: str) -> int:
    """Open `where` one component at a time from `root`, never following a link (ELOOP/ENOTDIR)."""
    if where == root:
        return os.open(root, _FILE_FLAGS)
    *folders, leaf = os.path.relpath(where, root).split(os.sep)
    fd = os.open(root, _DIR_FLAGS)
    try:
        for folder in folders:
            inner = os.open(folder, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = inner
        return os.open(leaf, _FILE_FLAGS, dir_fd=fd)
    finally:
        os.close(fd)


def _open_checked(where: str) -> int:
    """Where openat is missing (Windows): open, then insist the open file is the one checked."""
    fd = os.open(where, _FILE_FLAGS)
    if not os.path.samestat(os.fstat(fd), os.lstat(where)):
        os.close(fd)
        raise OSError(errno.ELOOP, "changed while being opened")
    return fd
