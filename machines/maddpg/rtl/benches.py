"""Test benches of MADDPG's blocks, on the harness of :mod:`rtl.bench`. Predictors are the TLM
unit models: :func:`machines.maddpg.tlm.compute_unit.fp` with ``cu_cycles`` for the compute
unit, :func:`machines.maddpg.tlm.ring.allgather` with ``allgather_cycles`` for the ring.
"""

from __future__ import annotations

import numpy as np
from myhdl import delay

from rlaccel.isa.dtypes import SaturationCounter
from rlaccel.machines.maddpg.tlm import compute_unit, ring

from rlaccel.rtl.bench import Bench
from rlaccel.rtl.drive import run_to_done, write
from rlaccel.rtl.float_stimulus import canon, float_words
from rlaccel.rtl.scoreboard import Txn
from rlaccel.machines.maddpg.rtl.cu import LOAD_B, LOAD_W, LOAD_X, cu_signals, maddpg_cu
from rlaccel.machines.maddpg.rtl.params import maddpg_params
from rlaccel.machines.maddpg.rtl.ring import MAX_WORDS, maddpg_ring, ring_signals
from rlaccel.machines.maddpg.rtl.ring_driver import gather, load, read_held

__all__ = ["CuBench", "RingBench"]


class _Maddpg:
    """A MADDPG block, with the machine's RTL parameters."""

    make_params = staticmethod(maddpg_params)


class CuBench(_Maddpg, Bench):
    """Compute unit: layers of ID x OD (OD >= F) up to the instance's size, weights,
    activations and biases from the float mix (one layer in ten with values near the
    overflow threshold), with or without the ReLU; predicted by ``compute_unit.fp`` (every
    output, the saturation count) and ``cu_cycles``."""

    block = staticmethod(maddpg_cu)
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

    def drive(self, h, txn):
        """Load the weights, x and b a word a cycle, ``start``, wait for ``done`` (the cycles
        between them), read every output."""
        s, st, fmt = h.ports, txn.stimulus, h.prm.fmt
        loads = [(LOAD_W, bank, addr, v) for (bank, addr), v in st["banks"].items()]
        loads += [(LOAD_X, 0, i, v) for i, v in enumerate(st["x"])]
        loads += [(LOAD_B, 0, o, v) for o, v in enumerate(st["b"])]
        yield h.clk.negedge
        yield from write(h, "ld_we", ({"ld_sel": sel, "ld_bank": bank, "ld_addr": addr,
                                       "ld_data": v} for sel, bank, addr, v in loads))
        s["start"].next = True
        s["n_in"].next = st["ID"]
        s["n_out"].next = st["OD"]
        s["relu"].next = st["relu"]
        h.applied(txn)
        elapsed = yield from run_to_done(h, h.prm.bank_words + 8)
        ys, n = [], 0
        for o in range(st["OD"]):
            s["rd_o"].next = o
            yield delay(1)
            ys.append(canon(fmt, int(s["y"].val)))
            n += int(s["sats"].val)
        return {"y": tuple(ys), "sats": n, "sat": n > 0,
                "cycles": None if elapsed is None else elapsed - 1}


# ---------------------------------------------------------------------------------- ring
class RingBench(_Maddpg, Bench):
    """Ring: all-gathers of one vector per learner (1..MAX_WORDS words each, any bits), the
    learners starting together or up to 12 cycles apart; predicted by ``ring.allgather``
    (every node's copy of every vector) and ``allgather_cycles`` with the architecture's
    hop (every node's done cycle)."""

    block = staticmethod(maddpg_ring)
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

    def drive(self, h, txn):
        """Clear, load every node's vector, raise each node's ``go`` at its start cycle, record
        the cycle each node's ``done`` rises (from the first start's cycle 0), read every
        node's copies."""
        st = txn.stimulus
        yield h.clk.negedge
        yield from load(h, st["vecs"])
        h.applied(txn)
        done = yield from gather(h, st["starts"], h.prm.hop_latency)
        held = yield from read_held(h, [len(v) for v in st["vecs"]])
        return {"held": tuple(tuple(tuple(w) for w in node) for node in held),
                "done": tuple(done)}
