"""Test benches of LearningGroup's blocks: driver, monitor and predictor around the in-order
checker (:mod:`rtl.scoreboard`), as :mod:`rtl.benches` does for the ADHDP blocks.

Predictors are the TLM unit models: :class:`tlm.families.learninggroup.vpu.VpuArray` for the
VPU, :func:`tlm.families.learninggroup.osel.encode_osel` / ``encode_baseline`` with the
family's timing for the encoder.
"""

from __future__ import annotations

import numpy as np
from myhdl import StopSimulation, block, instance

from rlaccel.isa.dtypes import SaturationCounter
from rlaccel.tlm.families.learninggroup.vpu import VpuArray

from ..benches import Bench, _count
from ..scoreboard import Txn
from .params import LgParams, lg_params
from .vpu import lg_vpu, vpu_signals

__all__ = ["VpuBench", "float_words"]


def float_words(rng: np.random.Generator, fmt, size: int) -> np.ndarray:
    """Packed float words from a mix: edge values (signed zeros, the smallest subnormal, the
    largest finite, infinities, one, a quiet NaN), values near one (chains that stay in
    range), values near the overflow threshold, subnormals, and any bit pattern."""
    E, M, bias = fmt.ebits, fmt.mbits, fmt.bias
    top = 1 << (E + M)
    inf = fmt.emax_field << M
    edges = np.array([0, top, 1, top | 1, inf - 1, top | (inf - 1), inf, top | inf,
                      bias << M, top | (bias << M), fmt.qnan, (bias - 1) << M], dtype=np.int64)
    kind = rng.integers(0, 20, size)
    sign = rng.integers(0, 2, size).astype(np.int64) << (E + M)
    frac = rng.integers(0, 1 << M, size, dtype=np.int64)
    near = sign | (rng.integers(bias - 4, bias + 4, size).astype(np.int64) << M) | frac
    big = sign | (rng.integers(fmt.emax_field - 4, fmt.emax_field, size).astype(np.int64) << M) \
        | frac
    sub = sign | frac
    out = rng.integers(0, 1 << fmt.bits, size, dtype=np.int64)
    out = np.where(kind < 2, edges[rng.integers(0, len(edges), size)], out)
    out = np.where((kind >= 2) & (kind < 14), near, out)
    out = np.where((kind >= 14) & (kind < 16), big, out)
    out = np.where((kind >= 16) & (kind < 18), sub, out)
    return out


def _canon(fmt, word: int):
    """A word as the benches compare it: NaN as a class (rtl/fpu.py), anything else bit for
    bit."""
    return "nan" if fmt.is_nan(word) else word


# ---------------------------------------------------------------------------------- VPU
class VpuBench(Bench):
    """VPU: chains of 1..24 cycles after a clear (10 % of the cycles disabled), random selects,
    weights and activations; predicted by ``VpuArray(1)`` (the registers after the chain,
    its overflow count and its cycle count)."""

    name = "lg_vpu"
    top = "lg_vpu"
    arch = "learninggroup"
    block = staticmethod(lg_vpu)

    def params(self, arch=None) -> LgParams:
        return lg_params(arch or self.arch)

    def ports(self, prm):
        return vpu_signals(prm)

    def transactions(self, rng, n, prm):
        fmt, R = prm.fmt, prm.registers
        for _ in range(n):
            k = int(rng.integers(1, 25))
            ws = float_words(rng, fmt, k)
            acts = float_words(rng, fmt, k * R).reshape(k, R)
            sels = rng.integers(0, R, k)
            ens = rng.random(k) >= 0.1
            model = VpuArray(1)
            c = SaturationCounter()
            with np.errstate(all="ignore"):
                for j in range(k):
                    model.cycle([fmt.from_word(int(ws[j]))],
                                np.array([fmt.from_word(int(v)) for v in acts[j]]),
                                [int(sels[j])], [bool(ens[j])], counter=c)
            regs = tuple(_canon(fmt, fmt.to_word(model.acc[r, 0])) for r in range(R))
            steps = [(bool(ens[j]), int(sels[j]), int(ws[j]),
                      sum(int(v) << (fmt.bits * r) for r, v in enumerate(acts[j])))
                     for j in range(k)]
            yield Txn("mac chain", {"cycles": k, "macs": int(ens.sum())},
                      {"acc": regs, "sats": c.saturations, "sat": c.saturations > 0,
                       "cycles": model.cycles}, stimulus=steps)


@block
def vpu_tb(clk, rst, ports, txns, board, prm, stats):
    """VPU driver and monitor: a clear cycle, then one step per cycle; the registers and the
    overflow flags are read on the falling edges after each step."""
    s = ports
    fmt, R, B = prm.fmt, prm.registers, prm.word_bits
    coverage: dict = {}
    board.extra = {"coverage": coverage}

    @instance
    def drive():
        while rst:
            yield clk.negedge
        for txn in txns:
            yield clk.negedge
            s["clear"].next = True
            s["en"].next = False
            txn.cycle = stats.cycles
            board.expect(txn)
            _count(coverage, txn)
            sats = 0
            start = None
            for j, (en, sel, w, acts) in enumerate(txn.stimulus):
                yield clk.negedge
                if j:
                    sats += int(s["ovf_mul"].val) + int(s["ovf_add"].val)
                else:
                    start = stats.cycles
                s["clear"].next = False
                s["en"].next = en
                s["sel"].next = sel
                s["w"].next = w
                s["acts"].next = acts
            yield clk.negedge
            sats += int(s["ovf_mul"].val) + int(s["ovf_add"].val)
            s["en"].next = False
            acc = int(s["acc"].val)
            regs = tuple(_canon(fmt, (acc >> (B * r)) & ((1 << B) - 1)) for r in range(R))
            board.observe({"acc": regs, "sats": sats, "sat": sats > 0,
                           "cycles": stats.cycles - start}, stats.cycles)
        yield clk.negedge
        board.finish(stats.cycles)
        raise StopSimulation

    return drive


VpuBench.tb = staticmethod(vpu_tb)

#: LearningGroup's benches, in the brief's order
BENCHES = (VpuBench(),)
