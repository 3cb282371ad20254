"""Test benches of DARL's blocks, on the harness of :mod:`rtl.bench`. Predictors are the TLM
unit models: :func:`machines.darl.tlm.allreduce.butterfly_allreduce` with
``allreduce_cycles`` for the network, :class:`machines.darl.tlm.encoder.Encoder` for the
encoder.
"""

from __future__ import annotations

import numpy as np

from rlaccel.isa.dtypes import SaturationCounter
from rlaccel.machines.darl.tlm.allreduce import allreduce_cycles, butterfly_allreduce
from rlaccel.machines.darl.tlm.encoder import Encoder, position_matrix
from rlaccel.machines.darl.tlm.timing import Workload, iteration_cycles

from rlaccel.rtl.bench import Bench
from rlaccel.rtl.fixed_stimulus import random_words
from rlaccel.rtl.scoreboard import Txn
from rlaccel.rtl.signals import pack
from rlaccel.machines.darl.rtl.butterfly import HOP_LATENCY, butterfly_signals, darl_butterfly
from rlaccel.machines.darl.rtl.butterfly_driver import load, read_back, reduce
from rlaccel.machines.darl.rtl.encoder import darl_encoder, encoder_latency, encoder_signals
from rlaccel.machines.darl.rtl.params import darl_params

__all__ = ["ButterflyBench", "EncoderBench"]


class _Darl:
    """A DARL block, with the machine's RTL parameters."""

    make_params = staticmethod(darl_params)


class ButterflyBench(_Darl, Bench):
    """Butterfly all-reduce: every agent's shard of 1..buffer_words words (edge, small and
    any values; one in five reductions of values near the extremes, which saturate), the sum
    or the average; predicted by ``butterfly_allreduce`` (every agent's words, the saturation
    count) and ``allreduce_cycles`` with the block's HOP_LATENCY."""

    block = staticmethod(darl_butterfly)
    signals = staticmethod(butterfly_signals)

    def transactions(self, rng, n, prm):
        for _ in range(n):
            k = int(rng.integers(0, prm.stages + 1))
            A = 1 << k
            words = int(rng.integers(1, prm.buffer_words + 1)) if rng.random() < 0.8 \
                else int(rng.integers(1, 5))
            if rng.random() < 0.2:
                big = prm.max_raw // 2
                shards = [rng.integers(-big - big // 2, big + big // 2, words) for _ in range(A)]
                shards = [np.clip(s, prm.min_raw, prm.max_raw) for s in shards]
            else:
                shards = [random_words(rng, prm, words) for _ in range(A)]
            average = bool(rng.random() < 0.7)
            c = SaturationCounter()
            out = butterfly_allreduce(shards, prm.dt, average=average, counter=c)
            yield Txn("average" if average else "sum", {"agents": A, "words": words},
                      {"result": tuple(tuple(int(v) for v in o) for o in out),
                       "sats": c.saturations, "sat": c.saturations > 0,
                       "cycles": allreduce_cycles(A, words, latency=HOP_LATENCY,
                                                  width=prm.width)},
                      stimulus={"shards": [[int(v) for v in sh] for sh in shards],
                                "average": average, "stages": k})

    def drive(self, h, txn):
        """Load every buffer a beat a cycle, ``start``, wait for ``done`` (the cycles between
        them, which the TLM's allreduce_cycles predicts), read every buffer back a beat a
        cycle."""
        st = txn.stimulus
        words, agents = len(st["shards"][0]), len(st["shards"])
        yield h.clk.negedge
        yield from load(h, st["shards"], h.prm)
        t0 = h.cycles
        cycles, sats = yield from reduce(h, words, st["average"], st["stages"], h.prm)
        rows = yield from read_back(h, agents, words, h.prm)
        h.applied(txn, t0)
        h.count(f"{agents} agents")
        return {"result": tuple(tuple(r) for r in rows), "sats": sats, "sat": sats > 0,
                "cycles": cycles}


# ---------------------------------------------------------------------------------- encoder
class EncoderBench(_Darl, Bench):
    """Codebook encoder: one element a cycle (one cycle in ten a bubble), each a state of N
    features (small values, edges, anything) and a row of a position matrix drawn N(0, 1)
    (one in twenty scaled by 64, so that E saturates) and stored in turns as ``Encoder``
    stores it;
    predicted by ``Encoder.encode`` (cos, sin, the saturation) and, for the cycles,
    ``iteration_cycles``' encode part."""

    block = staticmethod(darl_encoder)
    signals = staticmethod(encoder_signals)

    def transactions(self, rng, n, prm):
        N = prm.features
        cycles = iteration_cycles(Workload(n=N), prm.latency)["encode"]
        B = prm.word_bits
        one = int(prm.dt.one)
        for _ in range(n):
            P = position_matrix(N, 1, rng)
            if rng.random() < 0.05:            # phases beyond the format's range: saturate
                P = P * 64
            enc = Encoder(P, prm.dt, prm.codebook)
            r = rng.random()
            if r < 0.6:
                s = rng.integers(-4 * one, 4 * one + 1, N)
            elif r < 0.9:
                s = random_words(rng, prm, N)
            else:
                s = rng.integers(prm.min_raw, prm.max_raw + 1, N)
            c = SaturationCounter()
            re, im = enc.encode(s, counter=c)
            p = enc.P_turns_T[0]
            yield Txn("element", {"s": [int(v) for v in s], "p": [int(v) for v in p]},
                      {"re": int(re[0]), "im": int(im[0]), "sat": c.saturations > 0,
                       "cycles": cycles},
                      stimulus={"s": pack(s, B), "p": pack(p, B),
                                "bubble": bool(rng.random() < 0.1)})

    def drive(self, h, txn):
        """An element a cycle, with bubbles."""
        s = h.ports
        if txn.stimulus["bubble"]:
            s["valid"].next = False
            yield h.clk.negedge
        s["valid"].next = True
        s["s"].next = txn.stimulus["s"]
        s["p"].next = txn.stimulus["p"]
        h.applied(txn)
        h.due.append(h.cycles)
        yield h.clk.negedge

    def monitor(self, h):
        """Every valid output, with the cycles since its element went in."""
        s = h.ports
        while True:
            yield h.clk.negedge
            if s["valid_out"].val:
                start = h.due.popleft() if h.due else h.cycles
                h.observe({"re": int(s["re"].val), "im": int(s["im"].val),
                           "sat": bool(s["sat"].val), "cycles": h.cycles - start})

    def drain(self, h):
        h.ports["valid"].next = False
        for _ in range(encoder_latency(h.prm) + 2):
            yield h.clk.negedge
