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
from rlaccel.rtl.verilator.signals import Clock, OutPort, Until

__all__ = ["Kernel", "Waits"]

#: most cycles the model runs in one call for a wait without a limit (the job's own budget
#: is checked between calls)
_CHUNK = 1 << 16


class Waits:
    """The processes and what each waits for -- a falling or a rising edge of :attr:`clk`,
    a delay, or a port over falling edges (:class:`Until`) --, and the time (picoseconds):
    what the Verilator kernel and the cocotb scheduler (:mod:`rtl.cocotb_bench`) share.
    ``where`` names the back end in errors."""

    where = "this back end"

    def __init__(self):
        self.clk = Clock()
        self.cycles = 0
        self.time = 0
        self._neg: list = []
        self._pos: list = []
        self._until: list = []
        self._timed: list = []
        self._seq = 0
        self._done: dict = {}
        self._watch: set = set()

    def start(self, gen: Generator, watch: bool = False) -> Generator:
        """Run ``gen`` from now until it first waits. ``watch``: keep what it returns
        (:meth:`finished`, :meth:`result`)."""
        if watch:
            self._watch.add(gen)
        self._resume(gen)
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
        elif isinstance(trig, Until):
            self._until.append((gen, trig))
        elif isinstance(trig, delay):
            self._seq += 1
            heapq.heappush(self._timed, (self.time + trig._time, self._seq, gen))
        else:
            raise RtlError(f"a process yielded {trig!r}: on {self.where} a driver waits on "
                           f"io.clk.negedge, io.clk.posedge, io.clk.until(port) or "
                           f"delay(n)")

    def _falling(self) -> list:
        """The processes a falling edge wakes (after ``cycles`` rising edges)."""
        waiting, self._neg = self._neg, []
        if self._until:
            still = []
            for gen, u in self._until:
                if u.met(self.cycles):
                    waiting.append(gen)
                else:
                    still.append((gen, u))
            self._until = still
        return waiting

    def finished(self, gen: Generator) -> bool:
        """True once the watched ``gen`` has returned."""
        return gen in self._done

    def result(self, gen: Generator):
        """The value the watched ``gen`` returned (it is then no longer watched)."""
        self._watch.discard(gen)
        return self._done.pop(gen)


class Kernel(Waits):
    """Processes on a model, clocked with half period ``half`` picoseconds. ``tick``: called
    at every rising edge before the processes waiting for it (a bench counts its cycles)."""

    where = "the Verilator back end"

    def __init__(self, model: Model, half: int, tick: Callable[[], None] | None = None):
        super().__init__()
        self.model = model
        self.half = half
        self._tick = tick
        self._edge = model.edge
        self._dirty: list = []
        self._next_edge = half

    # ------------------------------------------------------------------------ processes
    def start_at_fall(self, gen: Generator, watch: bool = False) -> Generator:
        """Run ``gen`` from the next falling edge (how a transactor's job begins)."""
        if watch:
            self._watch.add(gen)
        self._neg.append(gen)
        return gen

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
            for gen in self._falling():
                self._resume(gen)
            rise = edge + self.half
            if self._pos or self._tick is not None or (self._timed and
                                                       self._timed[0][0] <= rise):
                self._flush(FALL)
                return
            for p in self._dirty:
                p._commit()
            self._dirty.clear()
            if self._until and not self._neg and not self._timed and len(self._until) == 1:
                # one process waits on a port of the model, nothing else before it: the
                # model runs the cycles up to it in one call
                u = self._until[0][1]
                if isinstance(u.port, OutPort) and u.port.words == 1:
                    most = _CHUNK if u.limit is None else u.limit - self.cycles
                    n = self.model.until(edge, u.port.slot, max(most, 1))
                    self.cycles += n
                    self.time = edge + (2 * n - 1) * self.half
                    self._next_edge = self.time + self.half
                    self.clk.val = True
                    return
            # no Python process before the next rising edge: both edges in one call
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
                if not (self._neg or self._pos or self._until or self._timed):
                    raise RtlError("every process of the simulation has ended")
                step()
            return None
        while self._next_edge <= until_time or (self._timed and
                                                self._timed[0][0] <= until_time):
            step()
        return None

    def close(self) -> None:
        """Finish the model (and its waveform)."""
        self.model.close()
