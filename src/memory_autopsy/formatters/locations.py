"""Where a reported file sits in the repository: shared by the SARIF and GitHub formats.

GitHub resolves SARIF URIs (`uriBaseId: %SRCROOT%`) and annotation `file=` paths against the
repository root, while a report spells paths as they were given: relative to the working
directory, or absolute. The caller picks the root (the repository, else the rule file's folder,
see `ci_runner.report_root`); `rooted` re-roots each path there, and says when it cannot;
`named_at` finds a `path:line` in a message, so the message can spell it the same way.
"""

from __future__ import annotations

import os
import posixpath


def is_absolute(path: str) -> bool:
    return posixpath.isabs(path) or os.path.isabs(path) or (len(path) > 2 and path[1] == ":")


def rooted(path: str, root: str | None) -> str | None:
    """`path` relative to `root` in `/` form, or None when it lies outside `root`.

    Without a root a relative path is taken as root-relative already, and an absolute one has
    no root-relative form."""
    if root is None:
        return None if is_absolute(path) else posixpath.normpath(path.replace(os.sep, "/"))
    target = os.path.abspath(path)
    # A path given through a symlink (/tmp on macOS) still belongs to the resolved root.
    for base, where in ((os.path.abspath(root), target),
                        (os.path.realpath(root), os.path.realpath(target))):
        try:
            relative = os.path.relpath(where, base)
        except ValueError:  # another drive (Windows)
            continue
        if relative != os.pardir and not relative.startswith(os.pardir + os.sep):
            return relative.replace(os.sep, "/")
    return None


class Roots:
    """`rooted` for the paths of one report, each re-rooted once: a report names a file once
    per finding and per other side, and re-rooting resolves symlinks on disk (a 100,000-fact
    store's SARIF log resolved its one file 40,000 times, 1.1 s)."""

    def __init__(self, root: str | None) -> None:
        self.root = root
        self._seen: dict[str, str | None] = {}

    def __call__(self, path: str) -> str | None:
        seen = self._seen
        if path not in seen:
            seen[path] = rooted(path, self.root)
        return seen[path]


def absolute_posix(path: str) -> str:
    """The absolute path in `/` form, with a leading `/` before a drive letter (a file URI path)."""
    absolute = path if is_absolute(path) else os.path.abspath(path)
    absolute = absolute.replace(os.sep, "/")
    return absolute if absolute.startswith("/") else "/" + absolute


def named_at(text: str, label: str) -> int:
    """Where `label` stands on its own in `text` (not inside a longer path or line number)."""
    at = text.find(label)
    while at >= 0:
        before = text[at - 1] if at else " "
        after = text[at + len(label)] if at + len(label) < len(text) else " "
        if not (before.isalnum() or before in "/._-[") and not after.isdigit():
            return at
        at = text.find(label, at + 1)
    return -1
