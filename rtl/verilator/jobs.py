"""A transactor's job simulation on the Verilator back end: :class:`rtl.jobs.JobSim`'s
interface (``run(job, budget, task)``, ``close``, ``cycles``, ``wall_s``, ``clk``,
``ports``) on a compiled block (:class:`.sim.BlockSim`).

A job is the same generator function ``job(io)`` a MyHDL job simulation runs -- the blocks'
``*_driver.py`` sequences --, started at a falling edge as there; the memories beside the
block (:class:`rtl.memory.Memory`) run in the compiled shim. Out of reset as
:class:`rtl.jobs.JobSim`: the reset held through the first rising edge, four cycles run.
"""

from __future__ import annotations

from typing import Callable, Generator

from rlaccel.rtl.job_base import JobSimBase, job_allowance, job_overrun
from rlaccel.rtl.verilator.sim import BlockSim

__all__ = ["VerilatorJobSim"]

#: cycles a new simulation runs through reset (as the MyHDL job simulation)
_RESET_RUN = 4


class VerilatorJobSim(JobSimBase):
    """Drives ``block(clk, rst, **ports, prm=prm)`` compiled by Verilator, with the memories
    ``beside`` it; ``what`` names the block in errors; ``announce`` hears of a first
    compilation."""

    def __init__(self, block_fn: Callable, ports: dict, prm, what: str, beside=(), *,
                 announce: Callable[[str], None] | None = None):
        self.what = what
        self.wall_s = 0.0
        self._sim = sim = BlockSim(block_fn, ports, prm, block_fn.func.__name__,
                                   announce=announce)
        self.clk, self.ports = sim.clk, sim.ports
        k = self._kernel = sim.kernel
        for m in beside:
            sim.attach_memory(m)

        def reset():
            yield self.clk.negedge
            sim.rst.next = 0

        k.start(reset())
        k.settle()
        k.run(until_time=2 * _RESET_RUN * k.half)

    @property
    def cycles(self) -> int:
        """Rising clock edges so far."""
        return self._kernel.cycles

    def _run(self, job: Callable[["VerilatorJobSim"], Generator], budget: int, task: str):
        """From the next falling edge until ``job`` returns."""
        k = self._kernel
        gen = k.start_at_fall(job(self), watch=True)
        allowed = job_allowance(budget)
        limit = k.cycles + allowed
        k.run(until=lambda: k.finished(gen) or k.cycles > limit)
        if not k.finished(gen):
            raise job_overrun(self.what, task, allowed, budget)
        return k.result(gen)

    def _end(self) -> None:
        self._sim.close()
