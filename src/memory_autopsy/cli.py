"""The `memory-autopsy` console entry: parse, dispatch to one command, return the exit code."""

from __future__ import annotations

import os
import sys

from memory_autopsy import __version__

TYPE_CHECKING = False  # not typing's: the hook's second run imports nothing it need not (replay.py)
if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable, Iterable, Sequence
    from typing import Any, NoReturn, TextIO

EPILOG = """examples:
  memory-autopsy scan examples/                      lint every memory file under a folder
  memory-autopsy scan MEMORY.md --json | jq .counts  machine-readable findings
  memory-autopsy scan . --fail-on error              fail only on errors
  memory-autopsy report MEMORY.md                    markdown report with the fix plan (dry run)
  memory-autopsy report MEMORY.md --apply --yes-i-know   apply the plan (snapshots first)
  memory-autopsy undo MEMORY.md                      restore the newest snapshot
  memory-autopsy as-of 2026-03-01 store.jsonl        what was believed on a date
  memory-autopsy admit --fact '{"entity": "billing", "slot": "tool", "value": "MySQL"}' store.jsonl
  memory-autopsy baseline .                          accept today's findings; fail only on new ones
  memory-autopsy scan . --ignore unsourced,MA101     leave out rules (names or codes: `rules`)
  cat notes.md | memory-autopsy scan - --stdin-filename memory/notes.md
  memory-autopsy why MEMORY.md:12                    explain the fact(s) on a line

exit codes: 0 nothing at or above --fail-on, 1 findings at or above it, 2 usage error,
  3 internal error (a bug in memory-autopsy: please report it), 4 `admit` rejected the fact
"""

FORMATS = ("text", "json", "markdown", "sarif", "github")
LEVELS = ("info", "review", "warning", "error", "never")


def _lint_options(parser: argparse.ArgumentParser) -> None:
    from memory_autopsy.commands import baseline_flags, rule_flags

    parser.add_argument("paths", nargs="*", metavar="PATH", help="memory files or folders")
    parser.add_argument("--format", "--output-format", choices=FORMATS, default=None, help="output format (default text)")
    parser.add_argument("--json", action="store_true", help="same as --format json")
    parser.add_argument("--output", "-o", metavar="FILE", help="write the output to FILE")
    parser.add_argument("--fail-on", choices=LEVELS, default=None, help="lowest severity that fails")
    parser.add_argument("--as-of", metavar="DATE", help="lint as of a date (later facts ignored)")
    parser.add_argument("--engine", choices=("heuristic", "embed"), default=None)
    parser.add_argument("--max-age-days", type=int, metavar="N", help="turn on `aged` for facts older than N days")
    parser.add_argument("--config", metavar="FILE", help="rule file (default: found by walking up)")
    parser.add_argument("--isolated", action="store_true", help="ignore any rule file")
    baseline_flags(parser)
    parser.add_argument("--include-baselined", action="store_true", help="also output baselined findings")
    parser.add_argument("--changed-since", metavar="REF", help="report only findings touching files changed since REF")
    parser.add_argument("--no-cache", action="store_true", help="skip the caches: parse results and the hook's run records (hook, ci: "
                        ".memory-autopsy-cache/) and embeddings")
    parser.add_argument("--jobs", "-j", type=int, metavar="N", help="processes a large store is read and "
                        "judged in (default: one per CPU, at most 4; 1: this process only)")
    rule_flags(parser)
    parser.add_argument("--quiet", "-q", action="store_true",
                        help="print only the findings: no summary line, nothing when clean")
    parser.add_argument("--statistics", action="store_true",
                        help="print per-rule counts instead of the findings (text format)")
    parser.add_argument("--verbose", "-v", action="store_true",
                        help="text format: also print each finding's layer, confidence and entity")
    parser.add_argument("--color", choices=("auto", "always", "never"), default="auto",
                        help="colour the text output (auto: only on a terminal, and never with NO_COLOR)")
    parser.add_argument("--no-grounding", action="store_true",
                        help="do not check memory against the repository it lives in (paths, versions, commands)")
    parser.add_argument("--stdin-filename", metavar="PATH",
                        help="the name of the file read from `-` (standard input): it decides the "
                        "dialect and names the findings")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; given the command about to run, only that command's module is imported."""
    import argparse

    from memory_autopsy.commands import Parser, register_all

    parser = Parser(
        prog="memory-autopsy",
        description="ESLint for LLM agent memory: lint stored facts for duplicates, "
        "contradictions and staleness.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"memory-autopsy {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    register_all(sub, _lint_options, EPILOG, only=command)
    return parser


ISSUES = "https://github.com/memory-autopsy/memory-autopsy/issues"
INTERNAL_ERROR = 3
OUTPUT_ERROR = 3  # a report that cannot be written exits as a crash does: never a pass
TRACEBACK_VARIABLE = "MEMORY_AUTOPSY_TRACEBACK"


def main(argv: Sequence[str] | None = None) -> int:
    """Every entry (scan, hook, ci, ...) comes through here: an unexpected exception is a bug
    and exits 3, so a crash can never pass for findings (1) or a usage error (2). A report or
    file that cannot be written (a full disk) exits 3 too, with one line that says so."""
    previous, sys.unraisablehook = sys.unraisablehook, _unraisable
    try:
        return _main(argv)
    finally:
        sys.unraisablehook = previous


def _unraisable(info: Any) -> None:
    """Out of memory, a generator or object freed on the way out may fail in its own clean-up,
    where no caller can catch it; the run reports the one error, in one line, and the
    interpreter's report of the echo (a traceback) is left out. Anything else is reported as
    the interpreter would. Out of memory in this hook too (reading the environment allocates),
    the echo is left out all the same: a hook that raises is reported as one more echo."""
    try:
        if isinstance(info.exc_value, MemoryError) and not os.environ.get(TRACEBACK_VARIABLE):
            return
        sys.__unraisablehook__(info)
    except MemoryError:
        return


def _main(argv: Sequence[str] | None) -> int:
    try:
        return _run(argv)
    except KeyboardInterrupt:
        sys.stderr.write("memory-autopsy: interrupted\n")
        return 130
    except BrokenPipeError:  # the reader went away (`| head`): not a bug, nothing more to say
        _silence_stdout()
        return 141
    except Exception as error:
        if isinstance(error, MemoryError):
            _release(error)
        failed = _failed_write(error)
        if failed is None:
            return _internal_error(error)
        _say(f"memory-autopsy: error: {failed}")
        return OUTPUT_ERROR


def entry() -> NoReturn:
    """The process entry (the console script and `python -m memory_autopsy`): run, flush the
    output, and leave without the interpreter's teardown, which frees every module and record
    one by one for memory the system takes back at once (2-3 ms of a hook on a small file,
    about 20 ms of a 100k-fact scan whose records `_run` froze). Everything the run writes
    (reports, the parse cache, fixes, snapshots) is closed or replaced before `main` returns;
    standard output and error are flushed here. In-process callers use `main`, which returns.

    `hook` first looks for the record of a run with the same inputs (replay.py): found and
    unchanged, its output is written and the process exits with its code; otherwise the run
    is recorded for the next one."""
    code = _replayed(sys.argv[1:]) if sys.argv[1:2] == ["hook"] else None
    if code is None:
        code = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except BrokenPipeError:  # the reader went away before the last buffer: as in `main`
            if stream is sys.stdout:
                _silence_stdout()
            code = 141
        except OSError as error:  # the report's last buffer is lost: never a pass (a full disk)
            if stream is sys.stdout:
                code = _unwritten(error, code)
        except ValueError:  # a closed stream has nothing left to flush
            pass
    os._exit(code)


def _unwritten(error: OSError, code: int) -> int:
    """Standard output failed at its last flush: exit 3, with one line unless the run has
    already said why it failed (exit 3)."""
    from memory_autopsy.errors import OutputError

    _silence_stdout()
    if code != OUTPUT_ERROR:
        _say(f"memory-autopsy: error: {OutputError(OUTPUT, error)}")
    return OUTPUT_ERROR


def _replayed(argv: list[str]) -> int | None:
    """The hook: the recorded run's exit code once its output is written, when nothing it
    read differs; else the exit code of a full run that leaves its record. Replaying or
    recording never fails a run: an error there, and the run is a full one, unrecorded."""
    from memory_autopsy import replay

    try:
        found = replay.replay(argv)
    except KeyboardInterrupt:
        sys.stderr.write("memory-autopsy: interrupted\n")
        return 130
    except Exception:
        found = None
    if found is not None:
        code, out, err = found
        try:
            sys.stdout.write(out)
        except BrokenPipeError:
            _silence_stdout()
            return 141
        except OSError as error:
            return _unwritten(error, code)
        _say(err, end="")
        return code
    try:
        recorder = replay.Recorder(argv)
        recorder.start()
    except Exception:
        return main()
    code = main()
    try:
        recorder.save(code)
    except Exception:
        recorder.stop()
    return code


def _release(error: BaseException) -> None:
    """Out of memory: the frames the failed run left (their locals hold the store) freed before
    anything is reported, which takes memory too. Their lines stay for the traceback."""
    running = sys._getframe(1)  # main's own frame, the one frame in the traceback not done
    while error is not None:
        trace = error.__traceback__
        while trace is not None:
            if trace.tb_frame is not running:
                trace.tb_frame.clear()
            trace = trace.tb_next
        error = error.__context__  # type: ignore[assignment]


def _internal_error(error: BaseException) -> int:
    if os.environ.get(TRACEBACK_VARIABLE):
        import traceback

        traceback.print_exc()
    try:
        detail = f"{type(error).__name__}: {error}"
    except Exception:  # an exception whose str() fails is still reported
        detail = type(error).__name__
    try:
        from memory_autopsy.escaping import inert

        # ascii(): memory text in the message reaches the terminal with control bytes escaped, and
        # inert() leaves no `##[` workflow command in it (escaping.py)
        line = (f"memory-autopsy: internal error: {inert(ascii(detail)[1:-1][:300])}; please report "
                f"it at {ISSUES} ({TRACEBACK_VARIABLE}=1 prints the traceback)")
    except Exception:  # out of memory: inert() compiles its patterns on first use
        line = f"memory-autopsy: internal error: {type(error).__name__}; please report it at {ISSUES}"
    _say(line)
    return INTERNAL_ERROR


OUTPUT = "to standard output"


def _failed_write(error: Exception) -> str | None:
    """The line that names a failed write (the report, the job summary, a file), else None.
    A full disk or quota, an I/O error, a read-only or too-large file: the run cannot say what
    it found, and that is no bug."""
    import errno

    from memory_autopsy.errors import OutputError

    if isinstance(error, OutputError):
        return str(error)
    failures = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EROFS)
    if isinstance(error, OSError) and error.errno in failures:
        return str(OutputError(error.filename if isinstance(error.filename, str) else "the output", error))
    return None


def _say(line: str, end: str = "\n") -> None:
    """A line on stderr, if stderr can still take one."""
    try:
        sys.stderr.write(line + end)
    except (OSError, ValueError):
        pass


def _silence_stdout() -> None:
    """Point stdout at devnull so the interpreter's final flush does not raise again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # in-process callers pass a StringIO
        pass


def _run(argv: Sequence[str] | None) -> int:
    from memory_autopsy.api import paused_gc

    # A short-lived run over acyclic records (see api.paused_gc); the process entry exits next,
    # so its records are frozen out of the collections that would scan them all once more.
    with paused_gc(freeze=argv is None):
        given = list(sys.argv[1:] if argv is None else argv)
        parser = build_parser(given[0] if given else None)
        args = parser.parse_args(given)
        if args.command is None:
            parser.print_help(sys.stderr)
            return 2
        from typing import cast

        from memory_autopsy.commands import dispatch
        from memory_autopsy.escaping import inert

        out = cast("TextIO", _Stream(sys.stdout, OUTPUT, inert))
        err = cast("TextIO", _Stream(sys.stderr, "to standard error", inert))
        return dispatch(parser, args, out, err)


class _Stream:
    """Standard output or error as a command writes to it. A failed write (a full disk, a
    closed terminal) is an OutputError, so the run exits 3 instead of passing with a report
    cut short; a closed pipe stays BrokenPipeError (exit 141). With `escape` (`inert`), no
    line written is a workflow command, whatever repository data it quotes; the GitHub
    format's own commands are written through `commands` (see `write_output`)."""

    def __init__(self, stream: TextIO, where: str, escape: Callable[[str], str] | None = None) -> None:
        self._stream = stream
        self._where = where
        self._escape = escape

    @property
    def commands(self) -> _Stream:
        """The same stream, unescaped: for workflow commands whose data is escaped already."""
        return _Stream(self._stream, self._where)

    def write(self, text: str) -> int:
        try:
            return int(self._stream.write(self._escape(text) if self._escape else text))
        except BrokenPipeError:
            raise
        except OSError as error:
            raise self._failed(error) from None

    def writelines(self, lines: Iterable[str]) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            raise
        except OSError as error:
            raise self._failed(error) from None

    def _failed(self, error: OSError) -> Exception:
        from memory_autopsy.errors import OutputError

        return OutputError(self._where, error)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


if __name__ == "__main__":
    entry()
