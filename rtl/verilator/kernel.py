"""The event loop that runs the benches' and transactors' generator processes on a compiled
block: MyHDL's scheduling rules, with the Verilator model in place of MyHDL's signals.

A process is a generator that yields what it waits for -- ``io.clk.negedge``,
``io.clk.posedge`` or MyHDL's ``delay(n)`` -- exactly as it does under MyHDL, so the same
driver, monitor and model code (:mod:`rtl.bench`, :mod:`rtl.drive`, the blocks'
``*_driver.py``, :mod:`rtl.memory`) runs on either. The clock is the kernel's: it rises at
odd multiples of the half period and falls at even ones (:mod:`rtl.clock`), and ``cycles``
counts its rising edges. At each event every process waiting for it runs, reading the
values the ports had before the event; what they set with ``.next`` goes into the model
together (a rising edge: after the registers took their inputs), the model evaluates, and
the outputs are there for the next event. A delay that ends on an edge's time runs before
the edge, as in MyHDL. When no Python process waits on a rising edge (the memories beside a
block run in the shim) and none wakes before it, a falling edge and the next rising edge
are one call into the model.
"""

from __future__ import annotations

import heapq
from typing import Callable, Generator

from myhdl import delay

from rlaccel.rtl.errors import RtlError
from rlaccel.rtl.verilator.model import FALL, FALL_RISE, RISE, SETTLE, Model
from rlaccel.rtl.verilator.signals import Clock

__all__ = ["Kernel"]


class Kernel:
    """Processes on a model, clocked with half period ``half`` picoseconds. ``tick``: called
    at every rising edge before the processes waiting for it (a bench counts its cycles)."""

    def __init__(self, model: Model, half: int, tick: Callable[[], None] | None = None):
        self.model = model
        self.half = half
        self.clk = Clock()
        self.cycles = 0
        self.time = 0
        self._tick = tick
        self._edge = model.edge
        self._dirty: list = []
        self._neg: list = []
        self._pos: list = []
        self._timed: list = []
        self._seq = 0
        self._next_edge = half
        self._done: dict = {}
        self._watch: set = set()

    # ------------------------------------------------------------------------ processes
    def start(self, gen: Generator, watch: bool = False) -> Generator:
        """Run ``gen`` from now until it first waits. ``watch``: :meth:`run` returns when
        it returns."""
        if watch:
            self._watch.add(gen)
        self._resume(gen)
        return gen

    def start_at_fall(self, gen: Generator, watch: bool = False) -> Generator:
        """Run ``gen`` from the next falling edge (how a transactor's job begins)."""
        if watch:
            self._watch.add(gen)
        self._neg.append(gen)
        return gen

    def _resume(self, gen: Generator) -> None:
        try:
            trig = next(gen)
        except StopIteration as stop:
            if gen in self._watch:
                self._done[gen] = stop.value
            return
        if trig is self.clk.negedge:
            self._neg.append(gen)
        elif trig is self.clk.posedge:
            self._pos.append(gen)
        elif isinstance(trig, delay):
            self._seq += 1
            heapq.heappush(self._timed, (self.time + trig._time, self._seq, gen))
        else:
            raise RtlError(f"a process yielded {trig!r}: on the Verilator back end a driver "
                           f"waits on io.clk.negedge, io.clk.posedge or delay(n)")

    def settle(self) -> None:
        """Let what the processes set now take effect (after starting them)."""
        self._flush(SETTLE)

    def _flush(self, kind: int) -> None:
        for p in self._dirty:
            p._commit()
        self._dirty.clear()
        self._edge(kind, self.time)

    # ------------------------------------------------------------------------ time
    def step(self) -> None:
        """Run the next event: a delay's end, or the next clock edge."""
        edge = self._next_edge
        if self._timed and self._timed[0][0] <= edge:
            t = self.time = self._timed[0][0]
            while self._timed and self._timed[0][0] == t:
                self._resume(heapq.heappop(self._timed)[2])
            self._flush(SETTLE)
            return
        self.time = edge
        self._next_edge = edge + self.half
        if (edge // self.half) & 1:
            self.clk.val = True
            self.cycles += 1
            if self._tick is not None:
                self._tick()
            waiting, self._pos = self._pos, []
            for gen in waiting:
                self._resume(gen)
            self._flush(RISE)
        else:
            self.clk.val = False
            waiting, self._neg = self._neg, []
            for gen in waiting:
                self._resume(gen)
            rise = edge + self.half
            if self._pos or self._tick is not None or (self._timed and
                                                       self._timed[0][0] <= rise):
                self._flush(FALL)
                return
            # no Python process before the next rising edge: both edges in one call
            for p in self._dirty:
                p._commit()
            self._dirty.clear()
            self._edge(FALL_RISE, edge)
            self.time = rise
            self._next_edge = rise + self.half
            self.clk.val = True
            self.cycles += 1

    def run(self, gen: Generator | None = None, *, until: Callable[[], bool] | None = None,
            until_time: int | None = None):
        """Run events until the watched ``gen`` returns (then its value), until ``until()``
        is true, or until the time ``until_time`` (picoseconds) has been reached."""
        step = self.step
        if gen is not None:
            self.run(until=lambda: gen in self._done)
            return self.result(gen)
        if until is not None:
            while not until():
                if not (self._neg or self._pos or self._timed):
                    raise RtlError("every process of the simulation has ended")
                step()
            return None
        while self._next_edge <= until_time or (self._timed and
                                                self._timed[0][0] <= until_time):
            step()
        return None

    def finished(self, gen: Generator) -> bool:
        """True once the watched ``gen`` has returned."""
        return gen in self._done

    def result(self, gen: Generator):
        """The value the watched ``gen`` returned (it is then no longer watched)."""
        self._watch.discard(gen)
        return self._done.pop(gen)

    def close(self) -> None:
        """Finish the model (and its waveform)."""
        self.model.close()
