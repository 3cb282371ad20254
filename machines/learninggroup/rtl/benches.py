"""Test benches of LearningGroup's blocks: driver, monitor and predictor around the in-order
checker (:mod:`rtl.scoreboard`), as :mod:`rtl.benches` does for the ADHDP blocks.

Predictors are the TLM unit models: :class:`tlm.families.learninggroup.vpu.VpuArray` for the
VPU, :func:`tlm.families.learninggroup.osel.encode_osel` / ``encode_baseline`` with the
family's timing for the encoder.
"""

from __future__ import annotations

import numpy as np
from myhdl import StopSimulation, block, delay, instance

from rlaccel.isa.dtypes import SaturationCounter
from rlaccel.machines.learninggroup.tlm.osel import encode_osel
from rlaccel.machines.learninggroup.tlm.vpu import VpuArray

from rlaccel.rtl.bench import Bench, count_coverage
from rlaccel.rtl.float_stimulus import canon, float_words
from rlaccel.rtl.scoreboard import Txn
from rlaccel.machines.learninggroup.rtl.params import lg_params
from rlaccel.machines.learninggroup.rtl.osel import lg_osel, osel_signals
from rlaccel.machines.learninggroup.rtl.osel_driver import feed_rows
from rlaccel.machines.learninggroup.rtl.vpu import lg_vpu, vpu_signals

__all__ = ["VpuBench", "OselBench"]


# ---------------------------------------------------------------------------------- VPU
class VpuBench(Bench):
    """VPU: chains of 1..24 cycles after a clear (10 % of the cycles disabled), random selects,
    weights and activations; predicted by ``VpuArray(1)`` (the registers after the chain,
    its overflow count and its cycle count)."""

    name = "lg_vpu"
    top = "lg_vpu"
    arch = "learninggroup"
    block = staticmethod(lg_vpu)
    make_params = staticmethod(lg_params)
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
            count_coverage(coverage, txn)
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
            regs = tuple(canon(fmt, (acc >> (B * r)) & ((1 << B) - 1)) for r in range(R))
            board.observe({"acc": regs, "sats": sats, "sat": sats > 0,
                           "cycles": stats.cycles - start}, stats.cycles)
        yield clk.negedge
        board.finish(stats.cycles)
        raise StopSimulation

    return drive


VpuBench.tb = staticmethod(vpu_tb)



# ---------------------------------------------------------------------------------- OSEL
class OselBench(Bench):
    """OSEL encoder: layers of 1..32 rows, G of 1..max_groups groups, N of 1..bitvector_bits
    columns (mostly narrow, some full width), max indexes drawn at random; predicted by
    ``encode_osel`` with the architecture's encoder parameters: each row's hit or miss and
    cycles, the index list, and every slot of the sparse row memory."""

    name = "lg_osel"
    top = "lg_osel"
    arch = "learninggroup"
    block = staticmethod(lg_osel)
    make_params = staticmethod(lg_params)
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
                      stimulus={"cols": cols,
                                "col_idx": sum(int(v) << (p.max_index_bits * j)
                                               for j, v in enumerate(col_idx)),
                                "rows": [int(v) for v in row_idx]})


@block
def osel_tb(clk, rst, ports, txns, board, prm, stats):
    """OSEL driver and monitor: ``start`` with the column max indexes, then the rows, each
    offered until ``ready`` takes it; each row's outputs are read the cycle after it is taken,
    a row's cycles run from its take to the next cycle ``ready`` is high, and the sparse row
    memory is read back slot by slot at the end of the layer."""
    s = ports
    slots = prm.enc.max_groups
    coverage: dict = {}
    board.extra = {"coverage": coverage}

    def cover(key):
        coverage[key] = coverage.get(key, 0) + 1

    @instance
    def drive():
        while rst:
            yield clk.negedge
        for txn in txns:
            st = txn.stimulus
            yield clk.negedge
            s["start"].next = True
            s["cols"].next = st["cols"]
            s["col_idx"].next = st["col_idx"]
            s["row_valid"].next = False
            txn.cycle = stats.cycles
            board.expect(txn)
            count_coverage(coverage, txn)
            yield clk.negedge
            s["start"].next = False
            rows = st["rows"]
            limit = stats.cycles + 16 * (len(rows) + 1) * (prm.enc.bitvector_bits // 8 + 4)
            kinds, takes, il = yield from feed_rows(s, clk, rows, lambda: stats.cycles, limit)
            tuples = {}
            for slot in range(slots):
                s["rd_slot"].next = slot
                yield delay(1)
                if s["rd_valid"].val:
                    tuples[slot] = (int(s["rd_bitvector"].val), int(s["rd_workload"].val))
                    if int(s["rd_index"].val) != slot:
                        tuples[slot] = ("max index", int(s["rd_index"].val))
            cyc = tuple(b - a for a, b in zip(takes, takes[1:]))
            index_list = tuple(e[1] if e and e[0] == k else None for k, e in enumerate(il))
            for k, c in zip(kinds, cyc):
                cover(f"{k} of {c} cycles" if k == "miss" and c > 2 else k)
            board.observe({"kinds": tuple(kinds), "cycles": cyc, "index_list": index_list,
                           "tuples": tuples}, stats.cycles)
        yield clk.negedge
        board.finish(stats.cycles)
        raise StopSimulation

    return drive


OselBench.tb = staticmethod(osel_tb)
