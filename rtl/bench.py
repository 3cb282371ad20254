"""The test-bench harness every RTL block's bench is built on (STYLE.md item 9).

A bench (:class:`Bench`) is a driver, a monitor and a predictor around the in-order checker
(:mod:`rtl.scoreboard`); it is written once and runs on every level: :func:`rtl.cosim.run`
puts it around the MyHDL block itself or around the block's converted Verilog running in
Icarus (MyHDL co-simulation through the VPI module), with the same transactions and the same
predictions. Predictors are the machines' functional models, never a second copy of the
arithmetic. Each machine's benches live in its package (``machines/<name>/rtl/benches.py``)
and are named in its descriptor (``MACHINE.blocks``).

Here: word stimulus (:func:`edge_words`, :func:`random_words`), the coverage count every
bench keeps (:func:`count_coverage`), the bench base class and the clocks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable

import numpy as np
from myhdl import always, block, delay, instance

from rlaccel.rtl.scoreboard import Txn

__all__ = ["Bench", "Stats", "edge_words", "random_words", "count_coverage", "counted_clock",
           "clock_reset"]


# ---------------------------------------------------------------------------------- stimulus
def edge_words(prm) -> np.ndarray:
    """The edge values of a fixed-point word format (``prm`` has ``frac_bits``, ``min_raw`` and
    ``max_raw``): zero, +-1 LSB, +-one, +-half, extremes."""
    one, half = 1 << prm.frac_bits, 1 << (prm.frac_bits - 1)
    v = [0, 1, -1, one, -one, half, -half, prm.max_raw, prm.min_raw, prm.max_raw - 1,
         prm.min_raw + 1, 3 * half, -3 * half]
    return np.array([x for x in v if prm.min_raw <= x <= prm.max_raw], dtype=np.int64)


def random_words(rng: np.random.Generator, prm, size: int) -> np.ndarray:
    """Words drawn from a mix: edge values, small values (|v| < 4), the whole range."""
    edges = edge_words(prm)
    kind = rng.integers(0, 10, size)
    small = 4 << prm.frac_bits
    out = rng.integers(prm.min_raw, prm.max_raw + 1, size, dtype=np.int64)
    sel = kind < 3
    out[sel] = edges[rng.integers(0, len(edges), int(sel.sum()))]
    sel = (kind >= 3) & (kind < 7)
    out[sel] = rng.integers(-small, small + 1, int(sel.sum()))
    return out


def count_coverage(coverage: dict, txn: Txn) -> None:
    """Coverage: transactions per opcode, and per opcode those predicted to saturate."""
    coverage[txn.opcode] = coverage.get(txn.opcode, 0) + 1
    if any(v is True for k, v in txn.expected.items() if k.startswith("sat")):
        key = f"{txn.opcode} saturates"
        coverage[key] = coverage.get(key, 0) + 1


@dataclass
class Stats:
    cycles: int = 0


class Bench:
    """One block's test bench. Subclasses define the ports, the block, the transactions with
    their predictions, and the driver/monitor."""

    name = ""
    top = ""                   # the module name of the converted Verilog
    #: transactions of ``rlaccel cosim`` unless ``--n`` says how many
    default_n = 10_000
    #: the architecture the block is built for unless ``--arch`` names another
    arch = ""

    #: the block's parameters of an architecture, ``make_params(arch) -> prm`` (each machine
    #: derives its own from the architecture)
    make_params = None
    #: the block's signals for its parameters, ``signals(prm) -> {port: Signal}``, for a bench
    #: that does not override :meth:`ports`
    signals = None

    def params(self, arch: str | None = None):
        """The block's parameters for ``arch`` (default: the bench's own architecture)."""
        return self.make_params(arch or self.arch)

    def ports(self, prm) -> dict:
        if self.signals is None:
            raise NotImplementedError
        return self.signals(prm)

    #: the block under test, a MyHDL @block called as ``block(clk, rst, **ports, prm=prm)``
    #: (``block(**ports, prm=prm)`` when it is combinational: ``clocked`` False)
    block = None
    clocked = True

    def transactions(self, rng: np.random.Generator, n: int, prm) -> Iterable[Txn]:
        raise NotImplementedError

    #: the driver and monitor, a MyHDL @block called as
    #: ``tb(clk, rst, ports, txns, board, prm, stats)``
    tb = None


@block
def counted_clock(clk, tick, half: int = 5):
    """A free-running clock of period ``2*half`` time units that calls ``tick()`` at every
    rising edge (the streaming benches count their cycles with it)."""
    @instance
    def clock():
        while True:
            yield delay(half)
            if not clk:                   # clk is about to rise
                tick()
            clk.next = not clk

    return clock


@block
def clock_reset(clk, rst, stats: Stats, reset_cycles: int = 2):
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


