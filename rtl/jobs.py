"""A MyHDL simulation that runs jobs on a block, for the ``rlaccel run --rtl`` transactors of
the new machines (:mod:`rtl.learninggroup.transactor`, :mod:`rtl.darl.transactor`,
:mod:`rtl.maddpg.transactor`).

:class:`JobSim` builds the block with a free-running clock and a driver that waits, on the
falling edges, for a job: a generator function that drives the block's ports and waits on
``clk.negedge`` (and ``delay``) as a bench's driver does, and returns its result.
:meth:`JobSim.run` hands a job over and clocks the simulation until the job returns, so the
TLM can call the RTL like a function. ``cycles`` counts every rising edge (a job measures its
own cycles from it). MyHDL runs one simulation per process: :meth:`close` ends it.
"""

from __future__ import annotations

import time
from typing import Callable, Generator

from myhdl import ResetSignal, Signal, Simulation, block, delay, instance

from rlaccel.util.errors import SimError

from rlaccel.rtl.bench import counted_clock
from rlaccel.rtl.errors import RtlError

__all__ = ["JobSim", "JobTransactor", "require_family"]

_HALF = 5                      # half a clock period, in simulation time units
_NONE = object()


def require_family(agent, family: str, block: str, machine: str) -> None:
    """A transactor's block belongs to one machine: refuse another's architecture."""
    fams = agent.arch.knobs.families
    if family not in fams:
        raise RtlError(f"--rtl {block} runs on a {machine} machine (ISA family '{family}'); "
                       f"{agent.arch.path or agent.arch.name} has families "
                       f"{', '.join(fams)}")


class JobTransactor:
    """What every transactor built on a :class:`JobSim` shares: ``_sim`` (set by ``attach``),
    ``close`` (MyHDL runs one simulation per process) and the seconds spent in the RTL."""

    _sim: "JobSim | None" = None
    _wall = 0.0

    def close(self) -> None:
        if self._sim is not None:
            self._wall = self._sim.wall_s
            self._sim.close()
            self._sim = None

    @property
    def wall_s(self) -> float:
        """Seconds spent in the RTL simulation."""
        return self._sim.wall_s if self._sim is not None else self._wall


class JobSim:
    """Drives ``block(clk, rst, **ports, prm=prm)``; ``what`` names it in errors."""

    def __init__(self, block_fn: Callable, ports: dict, prm, what: str):
        self.what = what
        self.cycles = 0
        self.wall_s = 0.0
        self.clk = clk = Signal(bool(0))
        rst = ResetSignal(1, active=1, isasync=False)
        self._job = None
        self._result = _NONE
        me = self

        @block
        def bench():
            dut = block_fn(clk, rst, **ports, prm=prm)

            def tick():
                me.cycles += 1

            clock = counted_clock(clk, tick, _HALF)

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
                    me._result = yield from job()

            return dut, clock, driver

        self._sim = Simulation(bench())
        self._sim.run(4 * 2 * _HALF, quiet=1)          # through reset

    def run(self, job: Callable[[], Generator], budget: int):
        """Run ``job`` on the block; ``budget`` is the cycles it should take (the simulation
        gives up, with a :class:`SimError`, after four times that plus 64)."""
        if self._sim is None:
            raise RtlError(f"the RTL {self.what} is closed")
        wall = time.perf_counter()
        self._job, self._result = job, _NONE
        spent, step = 0, budget + 2
        while self._result is _NONE:
            if spent > 4 * budget + 64:
                raise SimError(f"the RTL {self.what} did not finish a job in {spent} cycles "
                               f"(expected about {budget})")
            self._sim.run(step * 2 * _HALF, quiet=1)
            spent += step
            step = 4
        result, self._result = self._result, _NONE
        self.wall_s += time.perf_counter() - wall
        return result

    def close(self) -> None:
        if self._sim is not None:
            self._sim.quit()
            self._sim = None
