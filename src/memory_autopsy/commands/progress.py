"""A progress line on stderr for long runs: only on a terminal, and only after a delay.

A 100k-fact scan runs for seconds; a silent terminal looks hung. Pipes, files, CI logs and
tests never see the line: it is drawn only when the stream is a TTY, and erased at the end.
"""

from __future__ import annotations

import time
from types import TracebackType
from typing import TYPE_CHECKING, TextIO

from memory_autopsy.parallel import PROGRESS_THREAD

if TYPE_CHECKING:
    import threading

DELAY = 2.0
INTERVAL = 0.5
_ERASE = "\r\x1b[K"


def is_tty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):  # a closed or exotic stream is not a terminal
        return False


class Progress:
    """Counts the files read (pass `read` as the loader's callback) and, on a terminal, redraws
    `memory-autopsy: scanned N files… T s` once the run has taken longer than `delay`."""

    def __init__(self, stream: TextIO, *, enabled: bool | None = None, delay: float | None = None,
                 interval: float | None = None) -> None:
        self.stream = stream
        self.enabled = is_tty(stream) if enabled is None else enabled
        self.delay = DELAY if delay is None else delay
        self.interval = INTERVAL if interval is None else interval
        self.files = 0
        self.shown = False
        self._stop: threading.Event | None = None  # a thread and its event on a terminal only
        self._thread: threading.Thread | None = None
        self._started = time.monotonic()

    def read(self, path: str) -> None:
        self.files += 1

    def __enter__(self) -> Progress:
        if self.enabled:
            import threading  # here: a run that draws nothing (a pipe, the hook) needs no thread

            self._stop = threading.Event()
            self._thread = threading.Thread(target=self._draw, args=(self._stop,), name=PROGRESS_THREAD, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._stop is not None:
            self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self.shown:
            self._write(_ERASE)

    def _draw(self, stop: threading.Event) -> None:
        if stop.wait(self.delay):
            return
        while True:
            elapsed = time.monotonic() - self._started
            self.shown = True
            self._write(f"{_ERASE}memory-autopsy: scanned {self.files} files… {elapsed:.0f} s")
            if stop.wait(self.interval):
                return

    def _write(self, text: str) -> None:
        try:
            self.stream.write(text)
            self.stream.flush()
        except (OSError, ValueError):  # the terminal went away: the run itself goes on
            pass
