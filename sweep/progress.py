"""A sweep's progress on stderr: points done and failed, a bar, the time spent and left.

On a terminal one line is redrawn in place; otherwise (a log file, a pipe) a line is written
when a task finishes, at most every ``every`` seconds, and always at the end.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

__all__ = ["Progress", "duration"]


def duration(seconds: float | None) -> str:
    """``42s``, ``3m05s``, ``2h07m``; ``?`` when unknown."""
    if seconds is None:
        return "?"
    s = int(round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m{s % 60:02d}s"
    return f"{s // 3600}h{(s % 3600) // 60:02d}m"


class Progress:
    """Counts of one sweep session: ``total`` points in the sweep, ``todo`` of them to run
    now (the others finished before)."""

    def __init__(self, total: int, todo: int, *, finished_before: int = 0,
                 stream: TextIO | None = None, quiet: bool = False, every: float = 5.0,
                 label: str = "sweep"):
        self.total, self.todo, self.before = total, todo, finished_before
        self.done = self.failed = 0
        self.stream = stream if stream is not None else sys.stderr
        self.quiet = quiet
        self.every = every
        self.label = label
        self.start = time.perf_counter()
        self._last = 0.0
        self._tty = bool(getattr(self.stream, "isatty", lambda: False)())

    @property
    def left_s(self) -> float | None:
        """The time left at the rate of this session so far."""
        n = self.done + self.failed
        if n == 0:
            return None
        return (time.perf_counter() - self.start) / n * (self.todo - n)

    def line(self) -> str:
        n = self.done + self.failed
        width = 24
        fill = int(width * n / self.todo) if self.todo else width
        elapsed = time.perf_counter() - self.start
        return (f"{self.label}: [{'#' * fill}{'.' * (width - fill)}] {n}/{self.todo} points "
                f"({self.done} done, {self.failed} failed; {self.before + n} of {self.total} in "
                f"the sweep) {duration(elapsed)} spent, {duration(self.left_s)} left")

    def update(self, done: int = 0, failed: int = 0) -> None:
        self.done += done
        self.failed += failed
        now = time.perf_counter()
        finished = self.done + self.failed >= self.todo
        if self.quiet:
            return
        if self._tty:
            self.stream.write("\r" + self.line() + ("\n" if finished else ""))
            self.stream.flush()
        elif finished or now - self._last >= self.every:
            self._last = now
            print(self.line(), file=self.stream, flush=True)

    def say(self, text: str) -> None:
        if not self.quiet:
            print(("\n" if self._tty and self.done + self.failed else "") + text,
                  file=self.stream, flush=True)
