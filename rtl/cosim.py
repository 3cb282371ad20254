"""Run a block's test bench on MyHDL or on its converted Verilog in Icarus.

``run("lane", n=10_000, seed=1)`` simulates the MyHDL block; ``backend="icarus"`` converts
the same block to Verilog, compiles it with Icarus and co-simulates it with the same bench
through MyHDL's VPI module. Both return a :class:`CosimResult`.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from myhdl import ResetSignal, Signal, Simulation, always, block, delay, instance, traceSignals
from myhdl._Signal import _Signal

from rlaccel.rtl import hdl
from rlaccel.rtl.bench import Stats, testbench
from rlaccel.rtl.blocks import bench as bench_of
from rlaccel.rtl.errors import RtlError
from rlaccel.rtl.scoreboard import Mismatch, Scoreboard

__all__ = ["CosimResult", "run", "BACKENDS"]

BACKENDS = ("myhdl", "icarus")


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


def flat_ports(ports: dict) -> dict:
    """Port signals by their Verilog names: an interface object's signals become
    ``<port>_<attribute>``, as MyHDL's converter names them."""
    flat = {}
    for name, sig in ports.items():
        if isinstance(sig, _Signal):
            flat[name] = sig
        else:
            for attr, s in vars(sig).items():
                if isinstance(s, _Signal):
                    flat[f"{name}_{attr}"] = s
    return flat


@block
def _clock_reset(clk, rst, stats: Stats, reset_cycles: int = 2):
    """Clock of period 10 time units, synchronous reset for the first cycles, cycle count."""
    @always(clk.posedge)
    def count():
        stats.cycles += 1
        if stats.cycles == reset_cycles:
            rst.next = 0

    @instance
    def clock():
        rst.next = 1
        while True:
            yield delay(5)
            clk.next = not clk

    return count, clock


def _dut(bench, clk, rst, ports, prm):
    if bench.clocked:
        return bench.block(clk, rst, **ports, prm=prm)
    return bench.block(**ports, prm=prm)


def run(block_name: str, n: int = 1000, seed: int = 1, *, backend: str = "myhdl",
        vcd: str | Path | None = None, arch: str | None = None,
        workdir: str | Path | None = None, transactions=None) -> CosimResult:
    """Run ``block_name``'s bench for ``n`` random transactions (or the given list of
    predicted :class:`Txn`, for directed tests)."""
    if backend not in BACKENDS:
        raise RtlError(f"unknown backend '{backend}': choose {', '.join(BACKENDS)}")
    bench = bench_of(block_name)
    prm = bench.params(arch)
    clk = Signal(bool(0))
    rst = ResetSignal(1, active=1, isasync=False)
    ports = bench.ports(prm)
    board = Scoreboard(block_name)
    stats = Stats()
    txns = iter(transactions if transactions is not None else
                bench.transactions(np.random.default_rng(seed), n, prm))
    tmp = None
    if backend == "icarus":
        if workdir is None:
            tmp = tempfile.TemporaryDirectory(prefix=f"rlaccel-{block_name}-")
            workdir = tmp.name
        workdir = Path(workdir)
        hdl.convert(_dut(bench, clk, rst, ports, prm), bench.top, workdir, testbench=True)
        compiled = hdl.icarus_compile(bench.top, workdir)
        clocks = {"clk": clk, "rst": rst} if bench.clocked else {}
        dut = hdl.icarus_cosimulation(compiled, **clocks, **flat_ports(ports))
    else:
        dut = None

    @block
    def top():
        insts = [testbench(bench, clk, rst, ports, txns, board, prm, stats),
                 _clock_reset(clk, rst, stats)]
        if dut is None:                # built here: MyHDL wants a block's parts made in it
            if bench.clocked:
                insts.append(bench.block(clk, rst, **ports, prm=prm))
            else:
                insts.append(bench.block(**ports, prm=prm))
        return insts

    t = top()
    if vcd is not None:
        vcd = Path(vcd)
        t.config_sim(trace=True, directory=str(vcd.parent), filename=vcd.stem,
                     tracebackup=False)
    wall = time.perf_counter()
    sim = Simulation(t) if dut is None else Simulation(dut, t)
    try:
        sim.run(quiet=1)
    finally:
        if not sim._finished:            # an exception: free MyHDL's one simulation slot
            sim.quit()
        wall = time.perf_counter() - wall
        if vcd is not None:
            traceSignals.filename = None
            traceSignals.directory = None
        if tmp is not None:
            tmp.cleanup()
    return CosimResult(block_name, backend, seed, board.checked, board.mismatch_count,
                       board.mismatches, stats.cycles, wall, extra=dict(board.extra))
