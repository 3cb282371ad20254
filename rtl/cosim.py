"""Run a block's test bench on MyHDL, on its converted Verilog in Icarus, or on its Verilog
compiled by Verilator.

``run("lane", n=10_000, seed=1)`` simulates the MyHDL block; ``backend="icarus"`` converts
the same block to Verilog, compiles it with Icarus and co-simulates it with the same bench
through MyHDL's VPI module; ``backend="verilator"`` compiles the Verilog with Verilator (once
per Verilog: :mod:`rtl.verilator.build`) and runs the same bench's generators on it from
Python (:mod:`rtl.verilator.kernel`). All return a :class:`CosimResult`. Every back end runs
at the architecture's clock period (:mod:`rtl.clock`) and writes a waveform of the block's
signals on request: MyHDL's VCD of its signal hierarchy, Icarus's VCD of every signal of the
Verilog (``$dumpvars``), Verilator's VCD or FST of every signal of the model.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np
from myhdl import ResetSignal, Signal, Simulation, always, block, delay, instance, traceSignals

from rlaccel.rtl import hdl
from rlaccel.rtl.bench import BenchRun, Stats, processes, testbench
from rlaccel.rtl.blocks import bench as bench_of
from rlaccel.rtl.clock import ICARUS_TIMESCALE, UNIT, half_period_ps
from rlaccel.rtl.errors import RtlError
from rlaccel.rtl.scoreboard import Mismatch, Scoreboard
from rlaccel.rtl.signals import flat_ports

__all__ = ["CosimResult", "run", "BACKENDS", "RESET_CYCLES"]

BACKENDS = ("myhdl", "icarus", "verilator")
#: rising edges the synchronous reset is held for at the start of a bench run
RESET_CYCLES = 2


@dataclass
class CosimResult:
    block: str
    backend: str
    seed: int
    transactions: int
    mismatch_count: int
    mismatches: list[Mismatch]
    cycles: int
    wall_s: float
    extra: dict = field(default_factory=dict)

    @property
    def cycles_per_s(self) -> float:
        return self.cycles / self.wall_s if self.wall_s else 0.0

    @property
    def ok(self) -> bool:
        return self.mismatch_count == 0 and self.transactions > 0

    def summary(self) -> str:
        lines = [f"{self.block} on {self.backend} (seed {self.seed}): {self.transactions:,} "
                 f"transactions checked, {self.mismatch_count} mismatches, "
                 f"{self.cycles:,} cycles in {self.wall_s:.2f} s = "
                 f"{self.cycles_per_s:,.0f} RTL cycles/s"]
        for k, v in self.extra.items():
            lines.append(f"  {k}: {v}")
        lines += [f"  mismatch: {m}" for m in self.mismatches]
        return "\n".join(lines)


@block
def _clock_reset(clk, rst, stats: Stats, half: int):
    """Clock of half period ``half`` time units (picoseconds), synchronous reset for the
    first cycles, cycle count."""
    @always(clk.posedge)
    def count():
        stats.cycles += 1
        if stats.cycles == RESET_CYCLES:
            rst.next = 0

    @instance
    def clock():
        rst.next = 1
        while True:
            yield delay(half)
            clk.next = not clk

    return count, clock


def _dut(bench, clk, rst, ports, prm):
    if bench.clocked:
        return bench.block(clk, rst, **ports, prm=prm)
    return bench.block(**ports, prm=prm)


def run(block_name: str, n: int = 1000, seed: int = 1, *, backend: str = "myhdl",
        vcd: str | Path | None = None, fst: str | Path | None = None,
        arch: str | None = None, workdir: str | Path | None = None, transactions=None,
        announce: Callable[[str], None] | None = None) -> CosimResult:
    """Run ``block_name``'s bench for ``n`` random transactions (or the given list of
    predicted :class:`Txn`, for directed tests). ``vcd`` / ``fst``: a waveform file (FST from
    Verilator only); ``announce`` hears of a first Verilator compilation."""
    if backend not in BACKENDS:
        raise RtlError(f"unknown backend '{backend}': choose {', '.join(BACKENDS)}")
    if fst is not None and backend != "verilator":
        raise RtlError(f"an FST waveform comes from the Verilator back end, not {backend}")
    if vcd is not None and fst is not None:
        raise RtlError("one waveform a run: a VCD or an FST file")
    bench = bench_of(block_name)
    prm = bench.params(arch)
    ports = bench.ports(prm)
    board = Scoreboard(block_name)
    stats = Stats()
    txns = iter(transactions if transactions is not None else
                bench.transactions(np.random.default_rng(seed), n, prm))
    with tempfile.TemporaryDirectory(prefix=f"rlaccel-{block_name}-") as scratch:
        where = Path(workdir) if workdir is not None else Path(scratch)
        if backend == "verilator":
            wall = _run_verilator(bench, prm, ports, txns, board, stats,
                                  Path(vcd or fst) if (vcd or fst) else None, where, announce)
        else:
            wall = _run_myhdl(bench, prm, ports, txns, board, stats, backend,
                              Path(vcd) if vcd is not None else None, where)
    return CosimResult(block_name, backend, seed, board.checked, board.mismatch_count,
                       board.mismatches, stats.cycles, wall, extra=dict(board.extra))


def _run_myhdl(bench, prm, ports, txns, board, stats, backend, vcd, workdir) -> float:
    """The bench on MyHDL, with the block itself or its Verilog in Icarus; the seconds it
    took."""
    clk = Signal(bool(0))
    rst = ResetSignal(1, active=1, isasync=False)
    half = half_period_ps(prm)
    dut = None
    if backend == "icarus":
        hdl.convert(_dut(bench, clk, rst, ports, prm), bench.top, workdir, testbench=True,
                    timescale=ICARUS_TIMESCALE)
        compiled = hdl.icarus_compile(bench.top, workdir, vcd=vcd)
        clocks = {"clk": clk, "rst": rst} if bench.clocked else {}
        dut = hdl.icarus_cosimulation(compiled, **clocks, **flat_ports(ports))

    @block
    def top():
        insts = [testbench(bench, clk, rst, ports, txns, board, prm, stats),
                 _clock_reset(clk, rst, stats, half)]
        if dut is None:                # built here: MyHDL wants a block's parts made in it
            if bench.clocked:
                insts.append(bench.block(clk, rst, **ports, prm=prm))
            else:
                insts.append(bench.block(**ports, prm=prm))
        return insts

    t = top()
    traced = vcd is not None and dut is None      # Icarus writes its own (every signal)
    if traced:
        t.config_sim(trace=True, directory=str(vcd.parent), filename=vcd.stem,
                     tracebackup=False, timescale=f"1{UNIT}")
    wall = time.perf_counter()
    sim = Simulation(t) if dut is None else Simulation(dut, t)
    try:
        sim.run(quiet=1)
    finally:
        if not sim._finished:            # an exception: free MyHDL's one simulation slot
            sim.quit()
        wall = time.perf_counter() - wall
        if traced:
            traceSignals.filename = None
            traceSignals.directory = None
            traceSignals.timescale = "1ns"
    return wall


def _run_verilator(bench, prm, ports, txns, board, stats, wave, workdir, announce) -> float:
    """The bench's processes on the block compiled by Verilator; the seconds they took (the
    compilation, when there is one, not counted)."""
    from rlaccel.rtl.verilator.sim import BlockSim

    def tick():
        stats.cycles += 1
        if stats.cycles == RESET_CYCLES:
            sim.rst.next = 0

    sim = BlockSim(bench.block, ports, prm, bench.top, clocked=bench.clocked, wave=wave,
                   tick=tick, announce=announce, workdir=workdir)
    try:
        k = sim.kernel
        h = BenchRun(bench, sim.clk, sim.ports, prm, board, stats)
        ended = []

        def ending(gen):
            yield from gen
            ended.append(True)

        wall = time.perf_counter()
        for gen, ends in processes(bench, h, sim.rst, txns, serve=sim.attach_memory):
            k.start(ending(gen) if ends else gen)
        k.settle()
        k.run(until=lambda: ended)
        board.finish(stats.cycles)
        return time.perf_counter() - wall
    finally:
        sim.close()
