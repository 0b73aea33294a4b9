"""Exceptions that end a run with one line on stderr (never a traceback): a usage error exits
2, an output that cannot be written exits 3."""

from __future__ import annotations


class UsageError(Exception):
    """Bad flags, no readable input, a bad rule file. Its text is one inert line whatever it
    quotes (a key, a fingerprint, a path from the repository): see `escaping.one_line`."""

    def __str__(self) -> str:
        from memory_autopsy.escaping import one_line  # only a run that fails pays for it

        return one_line(super().__str__())


class ConfigError(UsageError):
    """A rule file with an unknown key or a bad value; the message names the file and key."""


class OutputError(Exception):
    """The report could not be written (a full disk, a closed stream): the run exits 3 rather
    than pass with a report cut short."""

    def __init__(self, where: str, error: OSError) -> None:
        from memory_autopsy.escaping import one_line

        super().__init__(one_line(f"cannot write {where}: {error.strerror or error}"))
