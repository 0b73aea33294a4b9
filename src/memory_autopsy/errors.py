"""Exceptions that become exit code 2 with a one-line message (never a traceback)."""


class UsageError(Exception):
    """Bad flags, no readable input, a bad rule file."""


class ConfigError(UsageError):
    """A rule file with an unknown key or a bad value; the message names the file and key."""
