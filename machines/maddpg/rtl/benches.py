"""Test benches of MADDPG's blocks: driver, monitor and predictor around the in-order checker
(:mod:`rtl.scoreboard`). Predictors are the TLM unit models:
:func:`tlm.families.maddpg.compute_unit.fp` with ``cu_cycles`` for the compute unit,
:func:`tlm.families.maddpg.ring.allgather` with ``allgather_cycles`` for the ring.
"""

from __future__ import annotations

import numpy as np
from myhdl import StopSimulation, block, delay, instance

from rlaccel.isa.dtypes import SaturationCounter
from rlaccel.machines.maddpg.tlm import compute_unit, ring

from rlaccel.rtl.bench import Bench, count_coverage
from rlaccel.rtl.float_stimulus import canon, float_words
from rlaccel.rtl.scoreboard import Txn
from rlaccel.machines.maddpg.rtl.cu import LOAD_B, LOAD_W, LOAD_X, cu_signals, maddpg_cu
from rlaccel.machines.maddpg.rtl.params import maddpg_params
from rlaccel.machines.maddpg.rtl.ring import MAX_WORDS, maddpg_ring, ring_signals

__all__ = ["CuBench", "RingBench"]


class CuBench(Bench):
    """Compute unit: layers of ID x OD (OD >= F) up to the instance's size, weights,
    activations and biases from the float mix (one layer in ten with values near the
    overflow threshold), with or without the ReLU; predicted by ``compute_unit.fp`` (every
    output, the saturation count) and ``cu_cycles``."""

    name = "maddpg_cu"
    top = "maddpg_cu"
    arch = "maddpg"
    block = staticmethod(maddpg_cu)
    make_params = staticmethod(maddpg_params)
    signals = staticmethod(cu_signals)

    def transactions(self, rng, n, prm):
        fmt, F = prm.fmt, prm.unroll
        one = fmt.bias << fmt.mbits
        for _ in range(n):
            ID = int(rng.integers(1, prm.max_in + 1))
            OD = int(rng.integers(F, prm.max_out + 1))
            if rng.random() < 0.1:
                W = float_words(rng, fmt, ID * OD)
                x = float_words(rng, fmt, ID)
            else:                       # values near one: chains that mostly stay finite
                W = (float_words(rng, fmt, ID * OD) & ((1 << (fmt.bits - 1)) - 1 - (
                    ((1 << fmt.ebits) - 1) << fmt.mbits))) | one
                W |= rng.integers(0, 2, ID * OD) << (fmt.bits - 1)
                x = float_words(rng, fmt, ID)
            b = float_words(rng, fmt, OD)
            relu = bool(rng.random() < 0.5)
            Wf = np.array([fmt.from_word(int(v)) for v in W]).reshape(OD, ID)
            xf = np.array([fmt.from_word(int(v)) for v in x])
            bf = np.array([fmt.from_word(int(v)) for v in b])
            c = SaturationCounter()
            with np.errstate(all="ignore"):
                yv = compute_unit.fp(Wf, bf, xf, relu, counter=c)
            banks = {}
            for o in range(OD):
                for i in range(ID):
                    k = i * OD + o
                    banks[(k % F, k // F)] = int(W[o * ID + i])
            yield Txn("fp relu" if relu else "fp", {"ID": ID, "OD": OD},
                      {"y": tuple(canon(fmt, fmt.to_word(v)) for v in yv),
                       "sats": c.saturations, "sat": c.saturations > 0,
                       "cycles": compute_unit.cu_cycles(ID, OD, F)},
                      stimulus={"banks": banks, "x": [int(v) for v in x],
                                "b": [int(v) for v in b], "relu": relu, "ID": ID, "OD": OD})


@block
def cu_tb(clk, rst, ports, txns, board, prm, stats):
    """Compute-unit driver and monitor: load the weights, x and b a word a cycle, ``start``,
    wait for ``done`` (the cycles between them), read every output."""
    s = ports
    fmt = prm.fmt
    coverage: dict = {}
    board.extra = {"coverage": coverage}

    @instance
    def drive():
        while rst:
            yield clk.negedge
        for txn in txns:
            st = txn.stimulus
            loads = [(LOAD_W, bank, addr, v) for (bank, addr), v in st["banks"].items()]
            loads += [(LOAD_X, 0, i, v) for i, v in enumerate(st["x"])]
            loads += [(LOAD_B, 0, o, v) for o, v in enumerate(st["b"])]
            for sel, bank, addr, v in loads:
                yield clk.negedge
                s["ld_we"].next = True
                s["ld_sel"].next = sel
                s["ld_bank"].next = bank
                s["ld_addr"].next = addr
                s["ld_data"].next = v
            yield clk.negedge
            s["ld_we"].next = False
            s["start"].next = True
            s["n_in"].next = st["ID"]
            s["n_out"].next = st["OD"]
            s["relu"].next = st["relu"]
            txn.cycle = stats.cycles
            board.expect(txn)
            count_coverage(coverage, txn)
            limit = stats.cycles + prm.bank_words + 8
            yield clk.negedge
            s["start"].next = False
            while not s["done"].val and stats.cycles < limit:
                yield clk.negedge
            cycles = stats.cycles - txn.cycle - 1 if s["done"].val else None
            ys, n = [], 0
            for o in range(st["OD"]):
                s["rd_o"].next = o
                yield delay(1)
                ys.append(canon(fmt, int(s["y"].val)))
                n += int(s["sats"].val)
            board.observe({"y": tuple(ys), "sats": n, "sat": n > 0, "cycles": cycles},
                          stats.cycles)
        yield clk.negedge
        board.finish(stats.cycles)
        raise StopSimulation

    return drive


CuBench.tb = staticmethod(cu_tb)



# ---------------------------------------------------------------------------------- ring
class RingBench(Bench):
    """Ring: all-gathers of one vector per learner (1..MAX_WORDS words each, any bits), the
    learners starting together or up to 12 cycles apart; predicted by ``ring.allgather``
    (every node's copy of every vector) and ``allgather_cycles`` with the architecture's
    hop (every node's done cycle)."""

    name = "maddpg_ring"
    top = "maddpg_ring"
    arch = "maddpg"
    block = staticmethod(maddpg_ring)
    make_params = staticmethod(maddpg_params)
    signals = staticmethod(ring_signals)

    def transactions(self, rng, n, prm):
        L = prm.learners
        for _ in range(n):
            sizes = [int(v) for v in rng.integers(1, MAX_WORDS + 1, L)]
            starts = [0] * L if rng.random() < 0.3 else [int(v) for v in
                                                        rng.integers(0, 13, L)]
            vecs = [rng.integers(0, 1 << prm.word_bits, w, dtype=np.int64) for w in sizes]
            held = ring.allgather(vecs)
            done = ring.allgather_cycles(sizes, prm.hop_latency, 1, prm.link_words, starts)
            yield Txn("allgather", {"sizes": sizes, "starts": starts},
                      {"held": tuple(tuple(tuple(int(v) for v in h) for h in node)
                                     for node in held),
                       "done": tuple(int(d) for d in done)},
                      stimulus={"vecs": [[int(v) for v in x] for x in vecs],
                                "starts": starts})


@block
def ring_tb(clk, rst, ports, txns, board, prm, stats):
    """Ring driver and monitor: clear, load every node's vector, raise each node's go at
    its start cycle, record the cycle each node's done rises (from the first start's cycle
    0), read every node's copies."""
    s = ports
    L = prm.learners
    coverage: dict = {}
    board.extra = {"coverage": coverage}

    @instance
    def drive():
        while rst:
            yield clk.negedge
        for txn in txns:
            st = txn.stimulus
            yield clk.negedge
            s["clear"].next = True
            s["go"].next = 0
            yield clk.negedge
            s["clear"].next = False
            for i, vec in enumerate(st["vecs"]):
                for k, v in enumerate(vec):
                    s["ld_we"].next = True
                    s["ld_node"].next = i
                    s["ld_addr"].next = k
                    s["ld_data"].next = v
                    s["ld_len"].next = len(vec)
                    yield clk.negedge
            s["ld_we"].next = False
            txn.cycle = base = stats.cycles
            board.expect(txn)
            count_coverage(coverage, txn)
            done = [None] * L
            go = 0
            limit = base + 16 + L * L * (prm.hop_latency + MAX_WORDS + 2)
            while any(d is None for d in done) and stats.cycles < limit:
                for i, t0 in enumerate(st["starts"]):
                    if stats.cycles - base == t0:
                        go |= 1 << i
                s["go"].next = go
                yield delay(1)
                for i in range(L):
                    if done[i] is None and (int(s["done"].val) >> i) & 1:
                        done[i] = stats.cycles - base
                yield clk.negedge
            held = []
            for i in range(L):
                node = []
                for j, vec in enumerate(st["vecs"]):
                    words = []
                    for k in range(len(vec)):
                        s["rd_node"].next = i
                        s["rd_slot"].next = j
                        s["rd_addr"].next = k
                        yield clk.negedge
                        words.append(int(s["rd_data"].val))
                    node.append(tuple(words))
                held.append(tuple(node))
            board.observe({"held": tuple(held), "done": tuple(done)}, stats.cycles)
        yield clk.negedge
        board.finish(stats.cycles)
        raise StopSimulation

    return drive


RingBench.tb = staticmethod(ring_tb)
