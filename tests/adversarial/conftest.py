"""Adversarial inputs, as a hostile user would give them: every case runs a verb in-process in
a fresh directory under a time limit and must end with exactly its exit status and message --
never a traceback, a hang or a lost file."""

from __future__ import annotations

import contextlib
import re
import signal
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from rlaccel.cli import main
from rlaccel.isa.machine import machine

#: seconds any one case may take (a hang fails the case instead of the suite); the hangs the
#: issue names run forever, while a legitimate run on a loaded machine with a cold numba cache
#: (the first compiled run of a clean checkout) has taken more than 60 s
TIME_LIMIT = 300
CASES_DIR = Path(__file__).with_name("cases")


@dataclass(frozen=True)
class Case:
    """One adversarial input: files to create (name -> text or bytes; ``@NAME`` copies
    ``cases/NAME``), the command line, and what it must give: the exit status and the message
    -- the whole of stderr for a user error (1), its last line for a usage error (2), the
    beginning of the first line of stdout on success (0)."""

    id: str
    argv: tuple[str, ...]
    status: int
    message: str
    files: dict = field(default_factory=dict)

    def param(self):
        return pytest.param(self, id=self.id)


class Hang(Exception):
    """A case ran past its time limit."""


@contextlib.contextmanager
def time_limit(seconds: float):
    def alarm(signum, frame):
        raise Hang(f"still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@pytest.fixture
def cli(tmp_path, monkeypatch, capsys):
    """``run(argv, files)`` -> (status, stdout, stderr), run in ``tmp_path``."""
    monkeypatch.chdir(tmp_path)

    def run(argv, files=None, limit=TIME_LIMIT):
        for name, content in (files or {}).items():
            p = tmp_path / name
            p.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, str) and content.startswith("@"):
                content = (CASES_DIR / content[1:]).read_bytes()
            p.write_bytes(content.encode() if isinstance(content, str) else content)
        capsys.readouterr()
        with time_limit(limit):
            try:
                status = main(list(argv))
            except SystemExit as e:
                status = e.code
        out, err = capsys.readouterr()
        return status, out, _without_compiles(err)
    return run


def _without_compiles(err: str) -> str:
    """stderr without the announcements of numba's first compiles, which depend on the
    state of its cache, not on the input."""
    return "".join(line for line in err.splitlines(keepends=True)
                   if not _COMPILE.match(line))


_COMPILE = re.compile(r"rlaccel \w+: compil(ing|ed) ")


@pytest.fixture
def check(cli):
    """Run a :class:`Case` and compare its status and message exactly."""
    def run(case: Case):
        status, out, err = cli(case.argv, case.files)
        assert "Traceback" not in err
        if case.status == 0:
            got = out.splitlines()[0][:len(case.message)] if out else ""
        elif case.status == 2:
            assert err.startswith("usage: rlaccel "), err
            got = err.rstrip("\n").splitlines()[-1]
        else:
            got = err.rstrip("\n")
        assert (status, got) == (case.status, case.message)
        return status, out, err
    return run


ADHDP = machine("adhdp").programs


def adhdp_files(**replace: tuple[str, str]) -> dict:
    """The cart-pole manifest (one trial of at most 20 steps) as ``m.toml`` with its program
    and include files; ``replace={"m.toml": (old, new)}`` edits one file's text."""
    out = {name: (ADHDP / name).read_text() for name in
           ("cartpole.s", "cartpole_vu.s", "layout.inc", "fig2.inc", "fig7.inc")}
    out["m.toml"] = ((ADHDP / "cartpole.toml").read_text()
                     .replace("max_steps = 1000", "max_steps = 20")
                     .replace("trials = 100 ", "trials = 1   "))
    for name, (old, new) in replace.items():
        assert old in out[name], (name, old)
        out[name] = out[name].replace(old, new)
    return out
