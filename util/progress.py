"""A long command's progress on stderr: a bar with the rate and the time left (tqdm).

    bar = ProgressBar("cartpole.toml", quiet=args.quiet)
    bar.position(3, 100, "trials")       # as often as wanted: it redraws a few times a second
    bar.line("trial    3:   57 steps (failed)")    # a line above the bar
    bar.close()

The bar appears only once the command has run for ``delay`` seconds (a short run shows
none), only on a terminal (tests, pipes and CI see no bar), and never with ``quiet``; lines
are written unless ``quiet``, above the bar when there is one.
"""

from __future__ import annotations

import sys
import time

__all__ = ["ProgressBar", "DELAY_S"]

#: a command that ends sooner shows no bar
DELAY_S = 3.0


class ProgressBar:
    """A bar of ``done`` out of ``total`` ``unit`` (no time left while the total is unknown)."""

    def __init__(self, desc: str = "", *, quiet: bool = False, stream=None,
                 delay: float | None = None, tty: bool | None = None):
        self.stream = sys.stderr if stream is None else stream
        self.quiet = quiet
        self.desc = desc
        if tty is None:
            isatty = getattr(self.stream, "isatty", None)
            tty = bool(isatty and isatty())
        self.shown = not quiet and tty
        self.delay = DELAY_S if delay is None else delay
        self._start = time.monotonic()        # the delay counts from here, not the bar's start
        self._bar = None
        self._unit = None

    def _open(self, total: int | None, unit: str):
        from tqdm import tqdm
        if self._bar is not None:
            self._bar.close()
        self._unit = unit
        self._bar = tqdm(total=total, unit=f" {unit}", desc=self.desc, file=self.stream,
                         delay=max(0.0, self.delay - (time.monotonic() - self._start)),
                         dynamic_ncols=True, leave=False,
                         mininterval=0.25)
        return self._bar

    def position(self, done: int, total: int | None, unit: str) -> None:
        """``done`` of ``total`` ``unit`` so far (``total`` None: not known)."""
        if not self.shown:
            return
        bar = self._bar
        if bar is None or unit != self._unit:
            bar = self._open(total, unit)
        if total != bar.total:
            bar.total = total
        bar.update(done - bar.n)     # also when nothing finished: the rate and clock go on

    def line(self, text: str) -> None:
        """A line of progress (a finished trial, an episode), above the bar."""
        if self.quiet:
            return
        if self._bar is not None and time.monotonic() - self._start >= self.delay:
            self._bar.write(text, file=self.stream)      # (redraws the bar below the line)
        else:
            print(text, file=self.stream, flush=True)

    def output(self, text: str) -> None:
        """A line of the command's output (stdout, even with ``quiet``), above the bar when one
        is drawn."""
        if self.shown:
            from tqdm import tqdm
            tqdm.write(text, file=sys.stdout)      # takes the bar off stderr, writes, redraws
            sys.stdout.flush()
        else:
            print(text, flush=True)

    def close(self) -> None:
        """Take the bar off the terminal (the lines above it stay)."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> "ProgressBar":
        return self

    def __exit__(self, *exc) -> None:
        self.close()
