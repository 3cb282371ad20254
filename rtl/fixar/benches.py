"""Test benches of FIXAR's blocks: driver, monitor and predictor around the in-order checker
(:mod:`rtl.scoreboard`). Predictors are the TLM unit models: :mod:`tlm.families.fixar.pe`
(products, summed exactly as the kernels sum them) with the family's tile timing, and
:class:`tlm.families.fixar.prng.NoiseGenerator`.
"""

from __future__ import annotations

from collections import deque

import numpy as np
from myhdl import StopSimulation, block, instance

from rlaccel.tlm.families.fixar import pe
from rlaccel.tlm.families.fixar.prng import NoiseGenerator
from rlaccel.tlm.families.fixar.timing import AapTiming, ff_cycles, unit_cycles

from ..benches import Bench, _count
from ..scoreboard import Txn
from .params import fixar_params
from .pe import fixar_pe, pe_signals
from .prng import fixar_prng, prng_signals

__all__ = ["PeBench", "PrngBench", "BENCHES"]

#: cycles from a term to the accumulators (the multiply and accumulate registers)
PE_LATENCY = 2


def _signed(rng, bits: int, size: int) -> np.ndarray:
    """Signed words: edges (0, +-1, the extremes) one in four, the rest uniform."""
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    edges = np.array([0, 1, -1, lo, hi, lo + 1, hi - 1], dtype=np.int64)
    out = rng.integers(lo, hi + 1, size, dtype=np.int64)
    pick = rng.random(size) < 0.25
    out[pick] = edges[rng.integers(0, len(edges), int(pick.sum()))]
    return out


class PeBench(Bench):
    """PE: sums of 1..max_batch terms (mostly up to 16), full or half precision, one term a
    cycle back to back; predicted by ``pe.product_full`` / ``pe.products_half`` summed
    exactly, and the cycles by the family's ``ff_cycles`` for one PE (a full term is one
    MAC a cycle, a half term two)."""

    name = "fixar_pe"
    top = "fixar_pe"
    arch = "fixar"
    block = staticmethod(fixar_pe)
    make_params = staticmethod(fixar_params)
    signals = staticmethod(pe_signals)

    def transactions(self, rng, n, prm):
        one_pe = AapTiming(cores=1)
        for _ in range(n):
            k = int(rng.integers(1, 17)) if rng.random() < 0.9 else \
                int(rng.integers(1, prm.max_terms + 1))
            half = bool(rng.random() < 0.5)
            w = _signed(rng, prm.weight_bits, k)
            if half:
                h0, h1 = _signed(rng, prm.mul_bits, k), _signed(rng, prm.mul_bits, k)
                p0, p1 = pe.products_half(w, h0, h1)
                exp = {"acc0": int(sum(int(v) for v in p0)),
                       "acc1": int(sum(int(v) for v in p1)),
                       "cycles": ff_cycles(one_pe.pe_cols, one_pe.pe_rows, 2 * k, one_pe,
                                           half=True)}
                terms = [(int(x), 0, int(y), int(z)) for x, y, z in zip(w, h0, h1)]
            else:
                a = _signed(rng, prm.weight_bits, k)
                exp = {"acc0": int(sum(int(pe.product_full(int(x), int(y)))
                                       for x, y in zip(w, a))),
                       "acc1": 0,
                       "cycles": ff_cycles(one_pe.pe_cols, one_pe.pe_rows, k, one_pe)}
                terms = [(int(x), int(y), 0, 0) for x, y in zip(w, a)]
            yield Txn("half" if half else "full", {"terms": k}, exp,
                      stimulus={"half": half, "terms": terms})


@block
def pe_tb(clk, rst, ports, txns, board, prm, stats):
    """PE driver (a term a cycle, transactions back to back) and monitor (the accumulators
    PE_LATENCY cycles after each transaction's last term)."""
    s = ports
    due: deque = deque()
    coverage: dict = {}
    board.extra = {"coverage": coverage}

    @instance
    def drive():
        while rst:
            yield clk.negedge
        for txn in txns:
            st = txn.stimulus
            first = None
            for j, (w, a, h0, h1) in enumerate(st["terms"]):
                yield clk.negedge
                if j == 0:
                    first = stats.cycles
                s["en"].next = True
                s["first"].next = j == 0
                s["half"].next = st["half"]
                s["w"].next = w
                s["a"].next = a
                s["h0"].next = h0
                s["h1"].next = h1
            txn.cycle = first
            board.expect(txn)
            _count(coverage, txn)
            due.append((stats.cycles + PE_LATENCY, stats.cycles - first + 1))
        yield clk.negedge
        s["en"].next = False
        for _ in range(PE_LATENCY + 1):
            yield clk.negedge
        board.finish(stats.cycles)
        raise StopSimulation

    @instance
    def monitor():
        while True:
            yield clk.negedge
            if due and due[0][0] == stats.cycles:
                _, busy = due.popleft()
                board.observe({"acc0": int(s["acc0"].val), "acc1": int(s["acc1"].val),
                               "cycles": busy}, stats.cycles)

    return drive, monitor


PeBench.tb = staticmethod(pe_tb)


# ---------------------------------------------------------------------------------- PRNG
class PrngBench(Bench):
    """PRNG: one stream (seed and stream number drawn from the bench's seed, the registers
    loaded from ``NoiseGenerator``'s), then requests of 1..4 * lanes samples, each predicted
    by the same generator's ``gaussian_raw`` (the stream continues across requests) and its
    cycles by the family's ``unit_cycles(n, prng_lanes)``."""

    name = "fixar_prng"
    top = "fixar_prng"
    arch = "fixar"
    block = staticmethod(fixar_prng)
    make_params = staticmethod(fixar_params)
    signals = staticmethod(prng_signals)

    def transactions(self, rng, n, prm):
        gen = NoiseGenerator(int(rng.integers(0, 1 << 62)), int(rng.integers(0, 1 << 16)),
                             lanes=prm.prng_lanes)
        regs = [[int(v) for v in row] for row in gen.state()]
        for t in range(n):
            k = int(rng.integers(1, 4 * prm.prng_lanes + 1))
            yield Txn("noise", {"samples": k},
                      {"g": tuple(int(v) for v in gen.gaussian_raw(k)),
                       "cycles": unit_cycles(k, prm.prng_lanes)},
                      stimulus={"load": regs if t == 0 else None, "samples": k})


@block
def prng_tb(clk, rst, ports, txns, board, prm, stats):
    """PRNG driver and monitor: load the registers once, then per request hold ``en`` until
    the samples are out (a lane per sample, cycle by cycle), counting the enabled cycles."""
    s = ports
    L = prm.prng_lanes
    coverage: dict = {}
    board.extra = {"coverage": coverage}

    @instance
    def drive():
        while rst:
            yield clk.negedge
        for txn in txns:
            st = txn.stimulus
            if st["load"] is not None:
                for j, row in enumerate(st["load"]):
                    for k, v in enumerate(row):
                        yield clk.negedge
                        s["ld_we"].next = True
                        s["ld_lane"].next = j
                        s["ld_reg"].next = k
                        s["ld_data"].next = v
            yield clk.negedge
            s["ld_we"].next = False
            txn.cycle = stats.cycles
            board.expect(txn)
            _count(coverage, txn)
            got, cycles = [], 0
            s["en"].next = True
            while len(got) < st["samples"] and cycles < st["samples"] + 2:
                cycles += 1
                yield clk.negedge
                bus = int(s["g"].val)
                if s["valid"].val:
                    for j in range(L):
                        v = (bus >> (32 * j)) & 0xFFFFFFFF
                        got.append(v - (1 << 32) if v >> 31 else v)
                if len(got) >= st["samples"]:
                    s["en"].next = False
            board.observe({"g": tuple(got[:st["samples"]]), "cycles": cycles}, stats.cycles)
        yield clk.negedge
        board.finish(stats.cycles)
        raise StopSimulation

    return drive


PrngBench.tb = staticmethod(prng_tb)

#: FIXAR's benches
BENCHES = (PeBench(), PrngBench())
