"""The blocks' benches as cocotb tests: the same transactions, predictions, drivers and
monitors as on MyHDL, Icarus and Verilator, run by cocotb under a Verilog simulator
(Icarus; :mod:`rtl.cocotb_run` builds and starts it).

This module is the cocotb test module the simulator loads. Its one test,
:func:`scoreboard`, reads the run it is to make (block, transactions, seed, architecture,
where to write the result) from the JSON file named by ``$RLACCEL_COCOTB``, draws the
bench's transactions (:meth:`rtl.bench.Bench.transactions`; or reads a directed list), and
runs the bench's generator processes (:func:`rtl.bench.processes`: driver, monitor, the
memories beside the block) as one cocotb coroutine, :class:`Scheduler`, with MyHDL's rules:
at each event every process waiting for it runs in a fixed order, reading the values of
before the event, and what it sets takes effect after (cocotb's writes are applied in the
ReadWrite phase, as MyHDL's ``.next``). A clocked block's clock is driven by a coroutine at
the architecture's period (:mod:`rtl.clock`) and the scheduler waits on its edges; a
combinational block's edges are times. The test fails when the scoreboard counts a
mismatch, and writes the counts either way.
"""

from __future__ import annotations

import heapq
import json
import os
import pickle
import time

import cocotb
import numpy as np
from cocotb.triggers import FallingEdge, ReadOnly, ReadWrite, RisingEdge, Timer
from myhdl import ResetSignal, delay

from rlaccel.rtl.bench import BenchRun, Stats, processes
from rlaccel.rtl.blocks import bench as bench_of
from rlaccel.rtl.clock import UNIT, half_period_ps
from rlaccel.rtl.cosim import RESET_CYCLES
from rlaccel.rtl.errors import RtlError
from rlaccel.rtl.scoreboard import Scoreboard
from rlaccel.rtl.signals import flat_ports
from rlaccel.rtl.verilator.kernel import Waits
from rlaccel.rtl.verilator.signals import Readable, map_ports, value_of

__all__ = ["scoreboard", "Port", "Scheduler", "CONFIG"]

#: the environment variable naming the run's JSON file
CONFIG = "RLACCEL_COCOTB"


class Port(Readable):
    """A cocotb handle with MyHDL's ``.next`` (a write cocotb applies after the processes of
    the time step ran) and ``.val`` (the value now, ``bool`` for a bool signal, signed for a
    signed one; X and Z read as 0)."""

    __slots__ = ("name", "_h", "_bool", "_signed", "_width", "_mask", "_pend")

    def __init__(self, name: str, handle, sig):
        self.name, self._h = name, handle
        self._bool = sig._type is bool
        self._width = len(sig)
        self._signed = sig.min is not None and sig.min < 0
        self._mask = (1 << self._width) - 1
        self._pend = int(sig.val)

    @property
    def val(self):
        v = self._h.value
        try:
            v = int(v)
        except ValueError:                   # X or Z (before reset): 0, as MyHDL's VPI
            v = int(str(v).translate(str.maketrans("xXzZuUwW-", "000000000")), 2)
        return value_of(v, self._bool, self._signed, self._width)

    @property
    def next(self):
        return self._pend

    @next.setter
    def next(self, value) -> None:
        self._pend = int(value)
        self._h.value = self._pend & self._mask


class _Wire:
    """A signal of the bench only (a combinational block's reset)."""

    def __init__(self, value: int):
        self.val = value

    @property
    def next(self) -> int:
        return self.val

    @next.setter
    def next(self, value) -> None:
        self.val = int(value)

    def __bool__(self) -> bool:
        return bool(self.val)


class Scheduler(Waits):
    """The bench's generator processes as one cocotb coroutine (see the module): ``dut``'s
    clock gives the processes their edges, ``tick`` runs at every rising edge first."""

    where = "cocotb"

    def __init__(self, dut, half: int, clocked: bool, tick):
        super().__init__()
        self.dut, self.half, self.clocked, self.tick = dut, half, clocked, tick
        self._next_edge = half

    async def _reach(self, t: int, edge: bool) -> None:
        if edge and self.clocked:
            rising = (t // self.half) & 1
            await (RisingEdge(self.dut.clk) if rising else FallingEdge(self.dut.clk))
        elif t > self.time:
            await Timer(t - self.time, UNIT)
        self.time = t

    async def run(self, done) -> None:
        """Run events until ``done()``."""
        while not done():
            edge = self._next_edge
            if self._timed and self._timed[0][0] < edge:
                t = self._timed[0][0]
                await self._reach(t, False)
                while self._timed and self._timed[0][0] == t:
                    self._resume(heapq.heappop(self._timed)[2])
                continue
            await self._reach(edge, True)
            self._next_edge = edge + self.half
            if (edge // self.half) & 1:
                self.cycles += 1
                self.tick()
                waiting, self._pos = self._pos, []
            else:
                waiting = self._falling()
            for gen in waiting:
                self._resume(gen)


async def _clock(dut, half: int) -> None:
    """The block's clock: rising at odd multiples of ``half`` picoseconds."""
    while True:
        await Timer(half, UNIT)
        dut.clk.value = 1
        await Timer(half, UNIT)
        dut.clk.value = 0


@cocotb.test()
async def scoreboard(dut):
    """The bench of the block named in ``$RLACCEL_COCOTB``'s run on ``dut``: every
    transaction through the scoreboard; fails on a mismatch."""
    with open(os.environ[CONFIG]) as f:
        cfg = json.load(f)
    bench = bench_of(cfg["block"])
    prm = bench.params(cfg.get("arch"))
    signals = bench.ports(prm)
    board, stats = Scoreboard(cfg["block"]), Stats()
    if cfg.get("transactions"):                  # directed: the list run() was given
        with open(cfg["transactions"], "rb") as f:
            txns = iter(pickle.load(f))
    else:
        txns = iter(bench.transactions(np.random.default_rng(cfg["seed"]), cfg["n"], prm))
    half = half_period_ps(prm)
    ports = map_ports(signals, lambda name, sig: Port(name, dut[name], sig))
    flat = flat_ports(signals)
    # the inputs start as MyHDL's signals do: written at time 0, and in place before any
    # process reads them (cocotb applies writes in the ReadWrite phase; a value put into
    # Icarus at once, before its own time-0 events, is lost to them)
    for name in cfg["inputs"]:
        dut[name].value = int(flat[name].val) & ((1 << len(flat[name])) - 1)
    if bench.clocked:
        rst = Port("rst", dut.rst, ResetSignal(1, active=1, isasync=False))
        dut.rst.value = 1
        dut.clk.value = 0
    else:
        rst = _Wire(1)
    await ReadWrite()
    await ReadOnly()
    if bench.clocked:
        cocotb.start_soon(_clock(dut, half))

    def tick():
        stats.cycles += 1
        if stats.cycles == RESET_CYCLES:
            rst.next = 0

    sched = Scheduler(dut, half, bench.clocked, tick)
    h = BenchRun(bench, sched.clk, ports, prm, board, stats)
    ended = []

    def ending(gen):
        yield from gen
        ended.append(True)

    wall = time.perf_counter()
    for gen, ends in processes(bench, h, rst, txns):
        sched.start(ending(gen) if ends else gen)
    await sched.run(lambda: ended)
    board.finish(stats.cycles)
    wall = time.perf_counter() - wall
    with open(cfg["result"], "w") as f:
        json.dump({"transactions": board.checked, "mismatch_count": board.mismatch_count,
                   "mismatches": [str(m) for m in board.mismatches], "cycles": stats.cycles,
                   "wall_s": wall, "extra": board.extra}, f)
    assert board.mismatch_count == 0, "\n".join(str(m) for m in board.mismatches)
