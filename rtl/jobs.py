"""A MyHDL simulation that runs jobs on a block, for the ``rlaccel run --rtl`` transactors
(:mod:`rtl.transactor`; each machine's ``machines/<name>/rtl/transactor.py``).

:class:`JobSim` builds the block with a free-running clock and a driver that waits, on the
falling edges, for a job: a generator function ``job(io)`` that drives the block's ports and
waits on ``io.clk.negedge`` (and ``delay``) as a bench's driver does -- with the same
sequences (:mod:`rtl.drive`, the blocks' ``*_driver.py``), ``io`` being the JobSim --, and
returns its result. :meth:`JobSim.run` hands a job over and clocks the simulation until the
job returns, so the TLM can call the RTL like a function. ``cycles`` counts every rising
edge (a job measures its own cycles from it). MyHDL runs one simulation per process:
:meth:`close` ends it.
"""

from __future__ import annotations

import time
from typing import Callable, Generator

from myhdl import ResetSignal, Signal, Simulation, block, delay, instance

from rlaccel.util.errors import SimError

from rlaccel.rtl.errors import RtlError

__all__ = ["JobSim", "counted_clock"]

_HALF = 5                      # half a clock period, in simulation time units
_NONE = object()


@block
def counted_clock(clk, tick):
    """A free-running clock of period ``2 * _HALF`` that calls ``tick()`` at every rising
    edge (a job simulation counts its cycles with it; so does a stream replayed on a
    block)."""
    @instance
    def clock():
        while True:
            yield delay(_HALF)
            if not clk:                   # clk is about to rise
                tick()
            clk.next = not clk

    return clock


class JobSim:
    """Drives ``block(clk, rst, **ports, prm=prm)`` and the models beside it (``beside``:
    ``(block function, args)`` pairs, each built as ``fn(clk, *args, prm=prm)``); ``what``
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
        me = self

        @block
        def bench():
            insts = [block_fn(clk, rst, **ports, prm=prm)]
            for fn, args in beside:
                insts.append(fn(clk, *args, prm=prm))
            insts.append(counted_clock(clk, me.tick))

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
        self._sim.run(4 * 2 * _HALF, quiet=1)          # through reset

    def tick(self) -> None:
        """One rising edge of the simulation's clock."""
        self.cycles += 1

    def run(self, job: Callable[["JobSim"], Generator], budget: int, task: str = "a job"):
        """Run ``job`` on the block; ``budget`` is the cycles it should take (the simulation
        gives up, with a :class:`SimError` naming ``task``, after four times that plus 64)."""
        if self._sim is None:
            raise RtlError(f"the RTL {self.what} is closed")
        wall = time.perf_counter()
        self._job, self._result = job, _NONE
        spent, step = 0, budget + 2
        while self._result is _NONE:
            if spent > 4 * budget + 64:
                raise SimError(f"the RTL {self.what} did not finish {task} in {spent} cycles "
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
