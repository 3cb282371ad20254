"""Test benches of FIXAR's blocks, on the harness of :mod:`rtl.bench`. Predictors are the TLM
unit models: :mod:`machines.fixar.tlm.pe` (products, summed exactly as the kernels sum them)
with the family's tile timing, and :class:`machines.fixar.tlm.prng.NoiseGenerator`.
"""

from __future__ import annotations

import numpy as np

from rlaccel.machines.fixar.tlm import pe
from rlaccel.machines.fixar.tlm.prng import NoiseGenerator
from rlaccel.machines.fixar.tlm.timing import AapTiming, ff_cycles, unit_cycles

from rlaccel.rtl.bench import Bench, PipelineBench
from rlaccel.rtl.scoreboard import Txn
from rlaccel.rtl.signals import pack, unpack
from rlaccel.machines.fixar.rtl.array import ARRAY_LATENCY, array_signals, fixar_array
from rlaccel.machines.fixar.rtl.params import array_params, fixar_params
from rlaccel.machines.fixar.rtl.pe import fixar_pe, pe_signals
from rlaccel.machines.fixar.rtl.prng import fixar_prng, prng_signals
from rlaccel.machines.fixar.rtl.prng_driver import draw, load

__all__ = ["PeBench", "PrngBench", "ArrayBench"]


def _signed(rng, bits: int, size: int) -> np.ndarray:
    """Signed words: edges (0, +-1, the extremes) one in four, the rest uniform."""
    lo, hi = -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    edges = np.array([0, 1, -1, lo, hi, lo + 1, hi - 1], dtype=np.int64)
    out = rng.integers(lo, hi + 1, size, dtype=np.int64)
    pick = rng.random(size) < 0.25
    out[pick] = edges[rng.integers(0, len(edges), int(pick.sum()))]
    return out


class _Fixar:
    """A FIXAR block, with the machine's RTL parameters."""

    make_params = staticmethod(fixar_params)


class PeBench(_Fixar, PipelineBench):
    """PE: sums of 1..max_batch terms (mostly up to 16), full or half precision, one term a
    cycle back to back; predicted by ``pe.product_full`` / ``pe.products_half`` summed
    exactly, and the cycles by the family's ``ff_cycles`` for one PE (a full term is one
    MAC a cycle, a half term two). The accumulators hold a sum two cycles after its last
    term (the multiply and accumulate registers)."""

    latency = 2
    block = staticmethod(fixar_pe)
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

    def drive(self, h, txn):
        """A term a cycle; the busy cycles from the first term to the last."""
        s, st = h.ports, txn.stimulus
        first = None
        for j, (w, a, h0, h1) in enumerate(st["terms"]):
            yield h.clk.negedge
            if j == 0:
                first = h.cycles
            s["en"].next = True
            s["first"].next = j == 0
            s["half"].next = st["half"]
            s["w"].next = w
            s["a"].next = a
            s["h0"].next = h0
            s["h1"].next = h1
        self.issue(h, txn, first, cycles=h.cycles - first + 1)

    def idle(self, h):
        h.ports["en"].next = False

    def sample(self, h, txn):
        return {"acc0": int(h.ports["acc0"].val), "acc1": int(h.ports["acc1"].val)}


# ---------------------------------------------------------------------------------- PRNG
class PrngBench(_Fixar, Bench):
    """PRNG: one stream (seed and stream number drawn from the bench's seed, the registers
    loaded from ``NoiseGenerator``'s), then requests of 1..4 * lanes samples, each predicted
    by the same generator's ``gaussian_raw`` (the stream continues across requests) and its
    cycles by the family's ``unit_cycles(n, prng_lanes)``."""

    block = staticmethod(fixar_prng)
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

    def drive(self, h, txn):
        """Load the registers (the first request), then hold ``en`` until the samples are
        out, counting the enabled cycles."""
        st = txn.stimulus
        yield h.clk.negedge
        if st["load"] is not None:
            yield from load(h, st["load"])
        h.applied(txn)
        g, cycles = yield from draw(h, st["samples"], h.prm.prng_lanes, st["samples"] + 2)
        return {"g": tuple(g), "cycles": cycles}


# ---------------------------------------------------------------------------------- array
class ArrayBench(Bench):
    """AAP core array: layers ``y = W x`` of 1..2C outputs by 1..3R inputs (one in ten up to
    8R), full precision (one vector) or half (two vectors' 17-bit operands a cycle), tiles
    streamed back to back across layers; predicted by ``pe.product_full`` /
    ``pe.products_half`` summed exactly (every output block's column sums) and the busy
    cycles by the family's ``ff_cycles`` for one core of the array's size."""

    block = staticmethod(fixar_array)
    make_params = staticmethod(array_params)
    signals = staticmethod(array_signals)

    def transactions(self, rng, n, prm):
        R, C, pp = prm.rows, prm.cols, prm.pe
        for _ in range(n):
            P = int(rng.integers(1, 2 * C + 1))
            Q = int(rng.integers(1, (8 if rng.random() < 0.1 else 3) * R + 1))
            half = bool(rng.random() < 0.5)
            W = _signed(rng, pp.weight_bits, P * Q).reshape(P, Q)
            if half:
                xs = [_signed(rng, pp.mul_bits, Q), _signed(rng, pp.mul_bits, Q)]
            else:
                xs = [_signed(rng, pp.weight_bits, Q)]
            ob, ib = -(-P // C), -(-Q // R)
            tiles, y0, y1 = [], [], []
            for o in range(ob):
                sums = [[0] * C, [0] * C]
                for i in range(ib):
                    wt = [0] * (R * C)
                    ops = [[0] * R for _ in xs]
                    for r in range(R):
                        q = i * R + r
                        if q >= Q:
                            continue
                        for v, x in enumerate(xs):
                            ops[v][r] = int(x[q])
                        for c in range(C):
                            if o * C + c < P:
                                wt[r * C + c] = int(W[o * C + c, q])
                    for c in range(C):
                        col = [wt[r * C + c] for r in range(R)]
                        if half:
                            p0, p1 = pe.products_half(np.array(col, dtype=np.int64),
                                                      np.array(ops[0], dtype=np.int64),
                                                      np.array(ops[1], dtype=np.int64))
                            sums[0][c] += int(sum(int(v) for v in p0))
                            sums[1][c] += int(sum(int(v) for v in p1))
                        else:
                            sums[0][c] += sum(pe.product_full(x, a) for x, a in
                                              zip(col, ops[0]))
                    tiles.append((pack(wt, pp.weight_bits),
                                  0 if half else pack(ops[0], pp.weight_bits),
                                  pack(ops[0], pp.mul_bits) if half else 0,
                                  pack(ops[1], pp.mul_bits) if half else 0,
                                  i == ib - 1))
                y0.append(tuple(sums[0]))
                y1.append(tuple(sums[1]))
            yield Txn("half" if half else "full", {"P": P, "Q": Q},
                      {"y0": tuple(y0), "y1": tuple(y1),
                       "cycles": ff_cycles(P, Q, 2 if half else 1, prm.timing, half=half)},
                      stimulus={"half": half, "tiles": tiles, "blocks": ob})

    def drive(self, h, txn):
        """A tile a cycle, layers back to back: expected before its first block's ``done``."""
        s, st = h.ports, txn.stimulus
        for j, (w, a, h0, h1, last) in enumerate(st["tiles"]):
            yield h.clk.negedge
            if j == 0:
                h.applied(txn)
                h.due.append((h.cycles, st["blocks"]))
            s["en"].next = True
            s["half"].next = st["half"]
            s["last"].next = last
            s["w"].next = w
            s["a"].next = a
            s["h0"].next = h0
            s["h1"].next = h1

    monitor_ends = True

    def monitor(self, h):
        """Each output block's sums at ``done``; a layer's busy cycles from its first tile to
        its last ``done``, less the array's latency."""
        s, C, YB = h.ports, h.prm.cols, h.prm.sum_bits
        y0, y1 = [], []
        # until an edge after the drain's: the back ends wake the driver and the monitor at
        # one edge in different orders
        while h.drained_at is None or h.cycles <= h.drained_at:
            yield h.clk.negedge
            if s["done"].val and h.due:
                y0.append(tuple(unpack(s["y0"].val, YB, C)))
                y1.append(tuple(unpack(s["y1"].val, YB, C)))
                first, blocks = h.due[0]
                if len(y0) == blocks:
                    h.due.popleft()
                    h.observe({"y0": tuple(y0), "y1": tuple(y1),
                               "cycles": h.cycles - first - ARRAY_LATENCY + 1})
                    y0, y1 = [], []

    def drain(self, h):
        yield h.clk.negedge
        h.ports["en"].next = False
        for _ in range(ARRAY_LATENCY + 1):
            yield h.clk.negedge
