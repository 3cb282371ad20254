"""Test benches of LearningGroup's blocks, on the harness of :mod:`rtl.bench`.

Predictors are the TLM unit models: :class:`machines.learninggroup.tlm.vpu.VpuArray` for the
VPU, :func:`machines.learninggroup.tlm.controller.run_pass` on a ``VpuArray`` for the core,
:func:`machines.learninggroup.tlm.osel.encode_osel` with the family's timing for the
encoder.
"""

from __future__ import annotations

import numpy as np

from rlaccel.isa.dtypes import SaturationCounter
from rlaccel.machines.learninggroup.tlm.osel import encode_osel
from rlaccel.machines.learninggroup.tlm.controller import run_pass
from rlaccel.machines.learninggroup.tlm.vpu import VpuArray

from rlaccel.rtl.bench import Bench
from rlaccel.rtl.float_stimulus import canon, float_words
from rlaccel.rtl.scoreboard import Txn
from rlaccel.rtl.signals import bits_for, pack, unpack
from rlaccel.machines.learninggroup.rtl.params import lg_params
from rlaccel.machines.learninggroup.rtl.osel import lg_osel, osel_signals
from rlaccel.machines.learninggroup.rtl.osel_driver import encode_layer
from rlaccel.machines.learninggroup.rtl.vpu import lg_vpu, vpu_signals
from rlaccel.machines.learninggroup.rtl.core import core_signals, lg_core

__all__ = ["VpuBench", "OselBench", "CoreBench"]


class _Lg:
    """A LearningGroup block, with the machine's RTL parameters."""

    make_params = staticmethod(lg_params)


# ---------------------------------------------------------------------------------- VPU
class VpuBench(_Lg, Bench):
    """VPU: chains of 1..24 cycles after a clear (10 % of the cycles disabled), random selects,
    weights and activations; predicted by ``VpuArray(1)`` (the registers after the chain,
    its overflow count and its cycle count)."""

    block = staticmethod(lg_vpu)
    signals = staticmethod(vpu_signals)

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
            regs = tuple(canon(fmt, fmt.to_word(model.acc[r, 0])) for r in range(R))
            steps = [(bool(ens[j]), int(sels[j]), int(ws[j]), pack(acts[j], fmt.bits))
                     for j in range(k)]
            yield Txn("mac chain", {"cycles": k, "macs": int(ens.sum())},
                      {"acc": regs, "sats": c.saturations, "sat": c.saturations > 0,
                       "cycles": model.cycles}, stimulus=steps)

    def drive(self, h, txn):
        """A clear cycle, then a step a cycle; the registers and the overflow flags are read
        on the falling edges after each step."""
        s, fmt = h.ports, h.prm.fmt
        yield h.clk.negedge
        s["clear"].next = True
        s["en"].next = False
        h.applied(txn)
        sats = 0
        start = None
        for j, (en, sel, w, acts) in enumerate(txn.stimulus):
            yield h.clk.negedge
            if j:
                sats += int(s["ovf_mul"].val) + int(s["ovf_add"].val)
            else:
                start = h.cycles
            s["clear"].next = False
            s["en"].next = en
            s["sel"].next = sel
            s["w"].next = w
            s["acts"].next = acts
        yield h.clk.negedge
        sats += int(s["ovf_mul"].val) + int(s["ovf_add"].val)
        s["en"].next = False
        regs = unpack(s["acc"].val, fmt.bits, h.prm.registers, signed=False)
        return {"acc": tuple(canon(fmt, v) for v in regs), "sats": sats, "sat": sats > 0,
                "cycles": h.cycles - start}


# ---------------------------------------------------------------------------------- OSEL
class OselBench(_Lg, Bench):
    """OSEL encoder: layers of 1..32 rows, G of 1..max_groups groups, N of 1..bitvector_bits
    columns (mostly narrow, some full width), max indexes drawn at random; predicted by
    ``encode_osel`` with the architecture's encoder parameters: each row's hit or miss and
    cycles, the index list, and every slot of the sparse row memory."""

    block = staticmethod(lg_osel)
    signals = staticmethod(osel_signals)

    def transactions(self, rng, n, prm):
        p = prm.enc
        for _ in range(n):
            g = int(rng.integers(1, p.max_groups + 1))
            r = rng.random()
            cols = int(rng.integers(1, 65)) if r < 0.7 else int(rng.integers(65, 201)) \
                if r < 0.9 else int(rng.integers(201, p.bitvector_bits + 1))
            if rng.random() < 0.05:
                cols = p.bitvector_bits
            rows = int(rng.integers(1, 33))
            col_idx = rng.integers(0, g, cols)
            if rng.random() < 0.1:                  # every column in one group
                col_idx[:] = int(rng.integers(0, g))
            row_idx = rng.integers(0, g, rows)
            enc = encode_osel(row_idx, col_idx, g, p)
            tuples = {s: (int(sum(1 << int(j) for j in t.nz)), t.workload)
                      for s, t in enc.srm.tuples.items()}
            yield Txn("layer", {"groups": g, "cols": cols, "rows": rows},
                      {"kinds": tuple(t[2] for t in enc.trace),
                       "cycles": tuple(t[4] for t in enc.trace),
                       "index_list": tuple(int(v) for v in enc.srm.index_list),
                       "tuples": tuples},
                      stimulus={"col_idx": [int(v) for v in col_idx],
                                "rows": [int(v) for v in row_idx]})

    def drive(self, h, txn):
        """``start`` with the column max indexes, then the rows, each offered until ``ready``
        takes it; a row's cycles run from its take to the next cycle ``ready`` is high; the
        sparse row memory is read back slot by slot at the end of the layer."""
        st, p = txn.stimulus, h.prm.enc
        rows = st["rows"]
        yield h.clk.negedge
        t0 = h.cycles
        got = yield from encode_layer(h, st["col_idx"], rows, p.max_index_bits, p.max_groups,
                                      16 * (len(rows) + 1) * (p.bitvector_bits // 8 + 4))
        h.applied(txn, t0)
        for k, c in zip(got["kinds"], got["cycles"]):
            h.count(f"{k} of {c} cycles" if k == "miss" and c > 2 else k)
        tuples = {slot: (bv, wl) if ix == slot else ("max index", ix)
                  for slot, (bv, wl, ix) in got["tuples"].items()}
        return {"kinds": tuple(got["kinds"]), "cycles": tuple(got["cycles"]),
                "index_list": tuple(got["index_list"]), "tuples": tuples}


# ---------------------------------------------------------------------------------- core
class CoreBench(_Lg, Bench):
    """A core's controller and ``core_lanes`` VPUs: passes of 1..4 rows with workloads of
    0..4 lanes' worth (sometimes a full bitvector), random FP16 weights and activations;
    predicted by :func:`machines.learninggroup.tlm.controller.run_pass` on a
    ``VpuArray(core_lanes)``: every lane's four registers, the pass's cycles and whether it
    overflowed."""

    block = staticmethod(lg_core)
    signals = staticmethod(core_signals)

    def transactions(self, rng, n, prm):
        fmt, R, N = prm.fmt, prm.registers, prm.core_lanes
        wb = bits_for(prm.enc.bitvector_bits)
        for _ in range(n):
            rows = int(rng.integers(1, R + 1))
            hi = prm.enc.bitvector_bits if rng.random() < 0.03 else 4 * N
            wl = rng.integers(0, hi + 1, rows)
            if rng.random() < 0.1:
                wl[:] = 0
            ws = float_words(rng, fmt, int(wl.sum()))
            acts = float_words(rng, fmt, rows)
            model = VpuArray(N)
            c = SaturationCounter()
            with np.errstate(all="ignore"):
                cycles = run_pass(model, [fmt.from_word(int(v)) for v in ws],
                                  [fmt.from_word(int(v)) for v in acts], wl, counter=c)
            regs = tuple(canon(fmt, fmt.to_word(model.acc[r, p]))
                         for p in range(N) for r in range(R))
            yield Txn("pass", {"rows": rows, "macs": int(wl.sum())},
                      {"acc": regs, "cycles": cycles, "sat": c.saturations > 0},
                      stimulus={"wl": pack(list(wl) + [0] * (R - rows), wb),
                                "acts": pack(list(acts) + [0] * (R - rows), fmt.bits),
                                "weights": [int(v) for v in ws]})

    def drive(self, h, txn):
        """``start`` for one cycle, then the weight memory's answer to ``addr`` every cycle
        until ``done``; the pass's cycles run from ``start``'s edge to ``done``'s."""
        s, fmt, N = h.ports, h.prm.fmt, h.prm.core_lanes
        st = txn.stimulus
        ws = st["weights"]
        yield h.clk.negedge
        s["start"].next = True
        s["wl"].next = st["wl"]
        s["acts"].next = st["acts"]
        h.applied(txn)
        yield h.clk.negedge
        t0 = h.cycles
        s["start"].next = False
        while not s["done"].val:
            base = int(s["addr"].val)
            s["w"].next = pack([ws[base + p] if base + p < len(ws) else 0 for p in range(N)],
                               fmt.bits)
            yield h.clk.negedge
        regs = unpack(s["acc"].val, fmt.bits, N * h.prm.registers, signed=False)
        h.count("pass of %d cycles" % (h.cycles - t0) if h.cycles - t0 < 3 else "long pass")
        return {"acc": tuple(canon(fmt, v) for v in regs), "cycles": h.cycles - t0,
                "sat": bool(s["sat"].val)}
