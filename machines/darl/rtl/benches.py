"""Test benches of DARL's blocks: driver, monitor and predictor around the in-order checker
(:mod:`rtl.scoreboard`). Predictors are the TLM unit models:
:func:`tlm.families.darl.allreduce.butterfly_allreduce` with ``allreduce_cycles`` for the
network, :class:`tlm.families.darl.encoder.Encoder` for the encoder.
"""

from __future__ import annotations

import numpy as np
from myhdl import StopSimulation, block, instance

from rlaccel.isa.dtypes import SaturationCounter
from rlaccel.machines.darl.tlm.allreduce import allreduce_cycles, butterfly_allreduce
from rlaccel.machines.darl.tlm.encoder import Encoder, position_matrix
from rlaccel.machines.darl.tlm.timing import Workload, iteration_cycles

from rlaccel.rtl.bench import Bench, count_coverage, random_words
from rlaccel.rtl.scoreboard import Txn
from rlaccel.machines.darl.rtl.butterfly import HOP_LATENCY, beat_bus, butterfly_signals, darl_butterfly, read_back
from rlaccel.machines.darl.rtl.encoder import darl_encoder, encoder_latency, encoder_signals
from rlaccel.machines.darl.rtl.params import darl_params

__all__ = ["ButterflyBench", "EncoderBench"]


class ButterflyBench(Bench):
    """Butterfly all-reduce: every agent's shard of 1..buffer_words words (edge, small and
    any values; one in five reductions of values near the extremes, which saturate), the sum
    or the average; predicted by ``butterfly_allreduce`` (every agent's words, the saturation
    count) and ``allreduce_cycles`` with the block's HOP_LATENCY."""

    name = "darl_butterfly"
    top = "darl_butterfly"
    arch = "darl"
    block = staticmethod(darl_butterfly)
    make_params = staticmethod(darl_params)
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


@block
def butterfly_tb(clk, rst, ports, txns, board, prm, stats):
    """Network driver and monitor: load every buffer a beat a cycle, ``start``, wait for
    ``done`` (the cycles between them, which the TLM's allreduce_cycles predicts), read every
    buffer back a beat a cycle."""
    s = ports
    coverage: dict = {}
    board.extra = {"coverage": coverage}

    @instance
    def drive():
        W = prm.width
        while rst:
            yield clk.negedge
        for txn in txns:
            st = txn.stimulus
            words = len(st["shards"][0])
            for a, shard in enumerate(st["shards"]):
                for b in range(prm.beats(words)):
                    yield clk.negedge
                    s["ld_we"].next = True
                    s["ld_agent"].next = a
                    s["ld_beat"].next = b
                    s["ld_data"].next = beat_bus(shard[b * W:(b + 1) * W], prm)
            yield clk.negedge
            s["ld_we"].next = False
            s["start"].next = True
            s["words"].next = words
            s["average"].next = st["average"]
            s["nstages"].next = st["stages"]
            txn.cycle = stats.cycles
            board.expect(txn)
            count_coverage(coverage, txn)
            key = f"{len(st['shards'])} agents"
            coverage[key] = coverage.get(key, 0) + 1
            limit = stats.cycles + 4 * (prm.stages + 1) * (prm.entries + 4)
            yield clk.negedge
            s["start"].next = False
            while not s["done"].val and stats.cycles < limit:
                yield clk.negedge
            cycles = stats.cycles - txn.cycle - 1 if s["done"].val else None
            rows = yield from read_back(s, clk, len(st["shards"]), words, prm)
            result = [tuple(r) for r in rows]
            n = int(s["sats"].val)
            board.observe({"result": tuple(result), "sats": n, "sat": n > 0,
                           "cycles": cycles}, stats.cycles)
        yield clk.negedge
        board.finish(stats.cycles)
        raise StopSimulation

    return drive


ButterflyBench.tb = staticmethod(butterfly_tb)



# ---------------------------------------------------------------------------------- encoder
class EncoderBench(Bench):
    """Codebook encoder: one element a cycle (one cycle in ten a bubble), each a state of N
    features (small values, edges, anything) and a row of a position matrix drawn N(0, 1)
    (one in twenty scaled by 64, so that E saturates) and stored in turns as ``Encoder``
    stores it;
    predicted by ``Encoder.encode`` (cos, sin, the saturation) and, for the cycles,
    ``iteration_cycles``' encode part."""

    name = "darl_encoder"
    top = "darl_encoder"
    arch = "darl"
    block = staticmethod(darl_encoder)
    make_params = staticmethod(darl_params)
    signals = staticmethod(encoder_signals)

    def transactions(self, rng, n, prm):
        N = prm.features
        cycles = iteration_cycles(Workload(n=N), prm.latency)["encode"]
        B = prm.word_bits
        mask = (1 << B) - 1
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
                      stimulus={"s": sum((int(v) & mask) << (B * i) for i, v in enumerate(s)),
                                "p": sum((int(v) & mask) << (B * i) for i, v in enumerate(p)),
                                "bubble": bool(rng.random() < 0.1)})


@block
def encoder_tb(clk, rst, ports, txns, board, prm, stats):
    """Encoder driver (an element a cycle, with bubbles) and monitor (every valid output,
    with the cycles since its element went in)."""
    s = ports
    inflight: list = []
    coverage: dict = {}
    board.extra = {"coverage": coverage}

    @instance
    def drive():
        while rst:
            yield clk.negedge
        for txn in txns:
            if txn.stimulus["bubble"]:
                s["valid"].next = False
                yield clk.negedge
            s["valid"].next = True
            s["s"].next = txn.stimulus["s"]
            s["p"].next = txn.stimulus["p"]
            txn.cycle = stats.cycles
            board.expect(txn)
            count_coverage(coverage, txn)
            inflight.append(stats.cycles)
            yield clk.negedge
        s["valid"].next = False
        for _ in range(encoder_latency(prm) + 2):
            yield clk.negedge
        board.finish(stats.cycles)
        raise StopSimulation

    @instance
    def monitor():
        while True:
            yield clk.negedge
            if s["valid_out"].val:
                start = inflight.pop(0) if inflight else stats.cycles
                board.observe({"re": int(s["re"].val), "im": int(s["im"].val),
                               "sat": bool(s["sat"].val), "cycles": stats.cycles - start},
                              stats.cycles)

    return drive, monitor


EncoderBench.tb = staticmethod(encoder_tb)
