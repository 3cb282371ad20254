"""``rlaccel run``'s progress: trial lines and, on a terminal, a bar with the rate and the time
left, driven by the runner's ``meter``; nothing with ``-q``, no bar when stderr is not a
terminal (tests, pipes, CI)."""

from __future__ import annotations

import io
import re
import sys

import pytest

from rlaccel.cli import main
from rlaccel.isa.machine import machine
from rlaccel.programs.runner import run, run_batch
from rlaccel.util import progress as progress_module

CARTPOLE = str(machine("adhdp").programs / "cartpole.toml")
#: numba's first-compile announcements depend on the cache's state, not on the bar
_COMPILE = re.compile(r"^rlaccel run: .*compil.*$", re.M)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _err(text: str) -> str:
    return _COMPILE.sub("", text).strip()


def test_quiet_run_writes_nothing_on_stderr(capsys):
    assert main(["run", CARTPOLE, "--trials", "2", "-q"]) == 0
    assert _err(capsys.readouterr().err) == ""


def test_not_on_a_terminal_the_lines_come_without_a_bar(capsys):
    assert main(["run", CARTPOLE, "--trials", "2"]) == 0
    err = _err(capsys.readouterr().err)
    assert err.splitlines() == ["trial    1:    57 steps (failed)",
                                "trial    2:    63 steps (failed)"]


def test_on_a_terminal_the_run_draws_a_bar(monkeypatch, capsys):
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    monkeypatch.setattr(progress_module, "DELAY_S", 0.0)
    assert main(["run", CARTPOLE, "--trials", "2"]) == 0
    text = term.getvalue()
    assert re.search(r"cartpole\.toml: .*\d/2 \[\d\d:\d\d<", text)
    assert "trials/s" in text and "trial    2:    63 steps (failed)" in text
    assert capsys.readouterr().out.startswith("adhdp: ")


def test_quiet_on_a_terminal_draws_no_bar(monkeypatch):
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    monkeypatch.setattr(progress_module, "DELAY_S", 0.0)
    assert main(["run", CARTPOLE, "--trials", "2", "-q"]) == 0
    assert _err(term.getvalue()) == ""


def test_the_runner_meters_every_exchange():
    at = []
    r = run(CARTPOLE, trials=2, meter=lambda *a: at.append(a))
    steps = sum(r["learning"]["steps_per_trial"])
    assert len(at) >= steps and at[0] == (0, 2, "trials") and at[-1] == (2, 2, "trials")
    assert [d for d, _, _ in at] == sorted(d for d, _, _ in at)


def test_a_batch_meters_its_members_summed():
    at = []
    run_batch(CARTPOLE, seeds=[1, 2], trials=2, meter=lambda *a: at.append(a))
    assert len(at) > 2 and at[-1] == (4, 4, "trials")
    assert all(t == 4 and u == "trials" for _, t, u in at)


def test_a_step_machine_meters_its_steps_by_default():
    """A machine whose length is --steps, with no position of its own: the host's
    environment calls out of the steps."""
    lg = machine("learninggroup").programs / "predator_prey.toml"
    at = []
    run(lg, ["network.hid=16", "environment_kwargs.nagents=3", "environment_kwargs.dim=3",
             "learning.batch_episodes=2"], steps=10, meter=lambda *a: at.append(a))
    assert at[-1] == (10, 10, "steps") and all(t == 10 for _, t, _ in at)


@pytest.mark.parametrize("flag", [[], ["-q"]])
def test_a_batch_run_is_quiet_off_a_terminal(flag, capsys):
    assert main(["run", CARTPOLE, "--seeds", "1-2", "--trials", "1", *flag]) == 0
    assert "\r" not in capsys.readouterr().err
