"""The progress bar: shown only on a terminal, never with quiet, only after its delay; lines
always (but with quiet) and above the bar."""

from __future__ import annotations

import io
import re

from rlaccel.util.progress import ProgressBar


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_no_bar_when_stderr_is_not_a_terminal():
    out = io.StringIO()
    with ProgressBar("run", stream=out, delay=0) as bar:
        assert not bar.shown
        for i in range(5):
            bar.position(i, 4, "trials")
        bar.line("trial 1: 57 steps")
    assert out.getvalue() == "trial 1: 57 steps\n"


def test_quiet_writes_nothing_even_on_a_terminal():
    out = _Terminal()
    with ProgressBar("run", stream=out, quiet=True, delay=0) as bar:
        assert not bar.shown
        bar.position(1, 4, "trials")
        bar.line("trial 1: 57 steps")
    assert out.getvalue() == ""


def test_on_a_terminal_the_bar_has_the_rate_and_the_time_left():
    out = _Terminal()
    with ProgressBar("cartpole.toml", stream=out, delay=0) as bar:
        assert bar.shown
        for i in range(1, 4):
            bar.position(i, 10, "trials")
            bar._bar.refresh()
        text = out.getvalue()
    assert "cartpole.toml:" in text and "/10" in text
    assert re.search(r"\[\d\d:\d\d<\d\d:\d\d", text)           # elapsed < left
    assert re.search(r"trials/s", text)


def test_without_a_total_the_bar_counts_and_gives_the_rate():
    out = _Terminal()
    with ProgressBar("x", stream=out, delay=0) as bar:
        bar.position(7, None, "host exchanges")
        bar._bar.refresh()
    assert "7 host exchanges" in out.getvalue()


def test_a_short_command_shows_no_bar():
    out = _Terminal()
    with ProgressBar("x", stream=out, delay=60) as bar:
        for i in range(5):
            bar.position(i, 10, "trials")
        bar.line("a line")
    assert out.getvalue().strip() == "a line"


def test_output_goes_to_stdout_even_when_quiet(capsys):
    bar = ProgressBar("x", quiet=True, stream=io.StringIO())
    bar.output("a line of the report")
    assert capsys.readouterr().out == "a line of the report\n"
