"""What the two job simulations share (:class:`rtl.jobs.JobSim` on MyHDL,
:class:`rtl.verilator.jobs.VerilatorJobSim` on Verilator): ``run(job, budget, task)``, which
refuses a closed simulation, gives a job :func:`job_allowance` cycles and counts the wall
time it took in ``wall_s``, and ``close``."""

from __future__ import annotations

import time
from typing import Callable, Generator

from rlaccel.rtl.errors import RtlError
from rlaccel.util.errors import SimError

__all__ = ["JobSimBase", "job_allowance", "job_overrun"]


def job_allowance(budget: int) -> int:
    """The cycles a job expected to take about ``budget`` cycles is given before the
    simulation gives up: four times that plus 64."""
    return 4 * budget + 64


def job_overrun(what: str, task: str, spent: int, budget: int) -> SimError:
    """The error of a job on the RTL ``what`` that ran ``spent`` cycles, past its
    :func:`job_allowance`, without finishing ``task``."""
    return SimError(f"the RTL {what} did not finish {task} in {spent} cycles "
                    f"(expected about {budget})")


class JobSimBase:
    """A job simulation of the RTL ``what``: a subclass sets ``what``, ``wall_s`` and
    ``_sim`` (None once closed) and implements :meth:`_run` and :meth:`_end`."""

    what: str
    wall_s: float
    _sim: object

    def run(self, job: Callable[["JobSimBase"], Generator], budget: int,
            task: str = "a job"):
        """Run ``job`` on the block until it returns (its value); ``budget`` is the cycles it
        should take: a :class:`SimError` naming ``task`` after :func:`job_allowance`
        cycles."""
        if self._sim is None:
            raise RtlError(f"the RTL {self.what} is closed")
        wall = time.perf_counter()
        result = self._run(job, budget, task)
        self.wall_s += time.perf_counter() - wall
        return result

    def close(self) -> None:
        if self._sim is not None:
            self._end()
            self._sim = None

    def _run(self, job, budget: int, task: str):
        """The back end's run of ``job`` (as :meth:`run`, the simulation open)."""
        raise NotImplementedError

    def _end(self) -> None:
        """The back end's end of the simulation."""
        raise NotImplementedError
