"""A MyHDL simulation that runs jobs on a block, for the ``rlaccel run --rtl`` transactors
(:mod:`rtl.transactor`; each machine's ``machines/<name>/rtl/transactor.py``).

:class:`JobSim` builds the block with a free-running clock and a driver that waits, on the
falling edges, for a job: a generator function ``job(io)`` that drives the block's ports and
waits on ``io.clk.negedge`` (and ``delay``) as a bench's driver does -- with the same
sequences (:mod:`rtl.drive`, the blocks' ``*_driver.py``), ``io`` being the JobSim --, and
returns its result. :meth:`JobSim.run` hands a job over and clocks the simulation until the
job returns, so the TLM can call the RTL like a function. ``cycles`` counts every rising
edge (a job measures its own cycles from it). MyHDL runs one simulation per process:
:meth:`close` ends it. :func:`job_sim` makes one on a back end: this MyHDL simulation, or
the same interface on the block compiled by Verilator (:mod:`rtl.verilator.jobs`), where
the same jobs run.
"""

from __future__ import annotations

from typing import Callable, Generator

from myhdl import ResetSignal, Signal, Simulation, block, delay, instance

from rlaccel.rtl.clock import half_period_ps

from rlaccel.rtl.errors import RtlError
from rlaccel.rtl.job_base import JobSimBase, job_allowance, job_overrun

__all__ = ["JobSim", "counted_clock", "job_sim", "JOB_BACKENDS"]

_NONE = object()
#: the back ends a transactor's block runs on
JOB_BACKENDS = ("myhdl", "verilator")


@block
def counted_clock(clk, tick, half: int):
    """A free-running clock of half period ``half`` (picoseconds, :mod:`rtl.clock`) that
    calls ``tick()`` at every rising edge (a job simulation counts its cycles with it; so
    does a stream replayed on a block)."""
    @instance
    def clock():
        while True:
            yield delay(half)
            if not clk:                   # clk is about to rise
                tick()
            clk.next = not clk

    return clock


class JobSim(JobSimBase):
    """Drives ``block(clk, rst, **ports, prm=prm)`` and the models beside it (``beside``:
    :class:`rtl.memory.Memory` descriptions, run as processes on the ports); ``what``
    names the block in errors."""

    def __init__(self, block_fn: Callable, ports: dict, prm, what: str, beside=()):
        self.what = what
        self.ports = ports
        self.cycles = 0
        self.wall_s = 0.0
        self.clk = clk = Signal(bool(0))
        rst = ResetSignal(1, active=1, isasync=False)
        self._job = None
        self._result = _NONE
        self._half = half = half_period_ps(prm)
        me = self

        @block
        def bench():
            insts = [block_fn(clk, rst, **ports, prm=prm)]
            for m in beside:                  # instance() here: MyHDL wants it in the block
                insts.append(instance(_forever(m.process(me))))
            insts.append(counted_clock(clk, me.tick, half))

            @instance
            def driver():
                # a delay among the yields: MyHDL then waits on anything a job yields (it
                # picks a clock-edge-only waiter for a generator that yields only edges)
                yield delay(1)
                yield clk.negedge
                rst.next = 0
                while True:
                    yield clk.negedge
                    if me._job is None:
                        continue
                    job, me._job = me._job, None
                    me._result = yield from job(me)

            insts.append(driver)
            return insts

        self._sim = Simulation(bench())
        self._sim.run(4 * 2 * half, quiet=1)           # through reset

    def tick(self) -> None:
        """One rising edge of the simulation's clock."""
        self.cycles += 1

    def _run(self, job: Callable[["JobSim"], Generator], budget: int, task: str):
        self._job, self._result = job, _NONE
        spent, step, limit = 0, budget + 2, job_allowance(budget)
        while self._result is _NONE:
            if spent > limit:
                raise job_overrun(self.what, task, spent, budget)
            self._sim.run(step * 2 * self._half, quiet=1)
            spent += step
            step = 4
        result, self._result = self._result, _NONE
        return result

    def _end(self) -> None:
        self._sim.quit()


def _forever(gen):
    """A generator function of no arguments (MyHDL's ``instance`` takes one) running
    ``gen``."""
    def process():
        yield from gen
    return process


def job_sim(backend: str, block_fn: Callable, ports: dict, prm, what: str, beside=(), *,
            announce: Callable[[str], None] | None = None):
    """A job simulation of the block on ``backend`` (:data:`JOB_BACKENDS`): MyHDL's
    :class:`JobSim`, or Verilator's :class:`rtl.verilator.jobs.VerilatorJobSim` (compiled
    once per Verilog; ``announce`` hears of a first compilation)."""
    if backend == "myhdl":
        return JobSim(block_fn, ports, prm, what, beside)
    if backend == "verilator":
        from rlaccel.rtl.verilator.jobs import VerilatorJobSim
        return VerilatorJobSim(block_fn, ports, prm, what, beside, announce=announce)
    raise RtlError(f"unknown RTL back end '{backend}': choose {', '.join(JOB_BACKENDS)}")
