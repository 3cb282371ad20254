"""The ADHDP datapath's test benches, one per block, on the harness of :mod:`rtl.bench`.

Predictors are the project's functional models, never a second copy of the arithmetic:
``isa.dtypes`` for the lane and the activation unit, ``Encoding.decode`` for the decoder and
``tlm.families.base.semantics`` with ``tlm.families.base.timing`` for the datapath. The lane,
the activation unit and the decoder are pipelined benches (a transaction a cycle, results a
fixed latency later); the datapath's takes an instruction at a time.
"""

from __future__ import annotations

import numpy as np

from rlaccel.isa.dtypes import SaturationCounter
from rlaccel.isa.encoding import Instruction
from rlaccel.util.errors import DecodeError

from rlaccel.machines.adhdp.rtl.activation import ACT, activation, activation_signals
from rlaccel.machines.adhdp.rtl.datapath import (DATAPATH_MNEMONICS, datapath, datapath_signals,
                                                 rtl_cycles)
from rlaccel.machines.adhdp.rtl.datapath_driver import run_instruction, wait_ready
from rlaccel.machines.adhdp.rtl.decoder import DecodedFields, decoder, mnemonics
from rlaccel.machines.adhdp.rtl.lane import LANE_OPS, lane, lane_signals
from rlaccel.machines.adhdp.rtl.memory import memories
from rlaccel.machines.adhdp.rtl.params import Params, params
from rlaccel.rtl.bench import Bench, PipelineBench
from rlaccel.rtl.fixed_stimulus import random_words
from rlaccel.rtl.scoreboard import Txn
from rlaccel.rtl.signals import sig_unsigned

__all__ = ["LaneBench", "ActivationBench", "DecoderBench", "DatapathBench", "datapath_txn",
           "random_instruction", "random_matrix_instruction"]


class _Adhdp:
    """A block of the ADHDP datapath: built for the adhdp architecture unless ``--arch``
    names another, with the datapath's parameters."""

    make_params = staticmethod(params)


# ---------------------------------------------------------------------------------- lane
_OP_CODE = {name: i for i, name in enumerate(LANE_OPS)}


class LaneBench(_Adhdp, PipelineBench):
    """Lane: random mul/muladd/mulsub operations and mac/mact dot products, one term per
    cycle, predicted by ``isa.dtypes`` (mul, add, sub, dot) with saturation counters; the
    results two cycles after a transaction's last term."""

    latency = 2
    block = staticmethod(lane)
    signals = staticmethod(lane_signals)

    def transactions(self, rng, n, prm):
        dt = prm.dt
        L = prm.lanes
        for _ in range(n):
            kind = LANE_OPS[1 + int(rng.integers(0, 5))] if rng.random() < 0.8 else \
                ("mac", "mact")[int(rng.integers(0, 2))]
            if kind in ("mul", "muladd", "mulsub"):
                a, b, c = (int(v) for v in random_words(rng, prm, 3))
                cm, ca = SaturationCounter(), SaturationCounter()
                m = dt.mul(np.int64(a), np.int64(b), counter=cm)
                if kind == "mul":
                    y = m
                elif kind == "muladd":
                    y = dt.add(np.int64(c), m, counter=ca)
                else:
                    y = dt.sub(np.int64(c), m, counter=ca)
                yield Txn(kind, {"a": a, "b": b, "c": c},
                          {"y": int(y), "sat_mul": cm.saturations > 0,
                           "sat_add": ca.saturations > 0})
                continue
            k = int(rng.integers(1, 9)) if rng.random() < 0.9 else \
                int(rng.integers(1, prm.max_dim + 1))
            cm = SaturationCounter()
            if kind == "mac":
                a, b = random_words(rng, prm, k), random_words(rng, prm, k)
                y = dt.dot(a, b, counter=cm)
                terms = [{"a": int(x), "b": int(z), "ext": 0} for x, z in zip(a, b)]
            else:
                a, b = random_words(rng, prm, k * L), random_words(rng, prm, k * L)
                y = dt.dot(a, b, counter=cm)
                ext = (a * b).reshape(k, L).sum(axis=1)
                terms = [{"a": 0, "b": 0, "ext": int(e)} for e in ext]
            ops = {"terms": k, "a": [int(v) for v in a], "b": [int(v) for v in b]}
            yield Txn(kind, ops, {"y": int(y), "sat_mul": cm.saturations > 0,
                                  "sat_add": False}, stimulus=terms)

    def setup(self, h):
        h.ext = 0                       # the last term's ext: the add stage's, a cycle later
        return []

    def drive(self, h, txn):
        s = h.ports
        terms = txn.stimulus or [{"a": txn.operands["a"], "b": txn.operands["b"], "ext": 0}]
        for t, term in enumerate(terms):
            yield h.clk.negedge
            s["ext"].next = h.ext
            s["op"].next = _OP_CODE[txn.opcode]
            s["a"].next = term["a"]
            s["b"].next = term["b"]
            s["c"].next = txn.operands.get("c", 0)
            s["first"].next = t == 0
            s["last"].next = t == len(terms) - 1
            h.ext = term["ext"]
        self.issue(h, txn)

    def idle(self, h):
        h.ports["ext"].next = h.ext
        h.ports["op"].next = 0

    def sample(self, h, txn):
        s = h.ports
        return {"y": int(s["y"].val), "sat_mul": bool(s["sat_mul"].val),
                "sat_add": bool(s["sat_add"].val)}


# ---------------------------------------------------------------------------------- activation
def activation_inputs(rng: np.random.Generator, prm: Params, size: int) -> np.ndarray:
    """Inputs for the activation unit: random words, plus every table's breakpoints and
    xmax with their neighbours and negatives (the segment edges)."""
    special = [0]
    for name in ("tanh", "sigmoid", "bsig"):
        t = prm.dt.pwl(name)
        for b in (*t.breaks.tolist(), t.xmax_raw):
            special += [b - 1, b, b + 1]
    special = np.array([v for s in special for v in (s, -s)
                        if prm.min_raw <= v <= prm.max_raw], dtype=np.int64)
    out = random_words(rng, prm, size)
    pick = rng.random(size) < 0.25
    out[pick] = special[rng.integers(0, len(special), int(pick.sum()))]
    return out


class ActivationBench(_Adhdp, PipelineBench):
    """Activation unit: random (function, derivative?, x) per cycle, predicted by
    ``isa.dtypes`` ``activate`` / ``derivative`` with a saturation counter; the result a cycle
    later."""

    latency = 1
    block = staticmethod(activation)
    signals = staticmethod(activation_signals)

    def transactions(self, rng, n, prm):
        dt = prm.dt
        xs = activation_inputs(rng, prm, n)
        funcs = rng.integers(0, len(ACT), n)
        derivs = rng.random(n) < 0.4
        for x, f, d in zip(xs.tolist(), funcs.tolist(), derivs.tolist()):
            c = SaturationCounter()
            fn = dt.derivative if d else dt.activate
            y = fn(ACT[f], np.array([x], dtype=np.int64), counter=c)[0]
            yield Txn(("d" if d else "") + ACT[f], {"x": x},
                      {"y": int(y), "sat": c.saturations > 0},
                      stimulus={"x": x, "act": f, "deriv": d})

    def drive(self, h, txn):
        yield h.clk.negedge
        for k, v in txn.stimulus.items():
            h.ports[k].next = v
        self.issue(h, txn)

    def sample(self, h, txn):
        s = h.ports
        return {"y": int(s["y"].val), "sat": bool(s["sat"].val)}


# ---------------------------------------------------------------------------------- decoder
def random_instruction(rng: np.random.Generator, prm: Params, mnemonic: str | None = None
                       ) -> Instruction:
    """A random legal instruction: operands uniform in their kinds' ranges, with the range
    ends over-represented."""
    enc = prm.enc
    names = mnemonics(prm)
    m = mnemonic or names[int(rng.integers(0, len(names)))]
    d = enc.opdef(m)
    ops = {}
    for name in d.operands:
        lo, hi = enc.field_range(d.kind(name))
        r = rng.random()
        ops[name] = lo if r < 0.1 else hi if r < 0.2 else int(rng.integers(lo, hi + 1))
    return Instruction(m, ops)


class DecoderBench(_Adhdp, PipelineBench):
    """Decoder: legal instructions of every mnemonic, the same with one bit flipped, and
    random words; predicted by ``Encoding.decode``; a word a cycle, the combinational outputs
    read on the rising edge that ends its cycle."""

    block = staticmethod(decoder)
    clocked = False

    def ports(self, prm):
        return {"word": sig_unsigned(prm.enc.instr_bits), "fields": DecodedFields(prm)}

    def transactions(self, rng, n, prm):
        enc = prm.enc
        names = mnemonics(prm)
        for _ in range(n):
            r = rng.random()
            if r < 0.6:
                word = enc.encode(random_instruction(rng, prm))
            elif r < 0.85:
                word = enc.encode(random_instruction(rng, prm))
                word ^= 1 << int(rng.integers(0, enc.instr_bits))
            else:
                word = int(rng.integers(0, 1 << 62)) & ((1 << enc.instr_bits) - 1)
            try:
                ins = enc.decode(word)
            except DecodeError:
                yield Txn("illegal", {"word": enc.hex(word)}, {"legal": False},
                          stimulus=word)
                continue
            yield Txn(ins.mnemonic, {"word": enc.hex(word)},
                      {"legal": True, "mn": names.index(ins.mnemonic), **ins.operands},
                      stimulus=word)

    def drive(self, h, txn):
        yield h.clk.negedge
        h.ports["word"].next = txn.stimulus
        self.issue(h, txn)

    def sample(self, h, txn):
        f = h.ports["fields"]
        got = {"legal": bool(f.legal.val)}
        if got["legal"]:
            got["mn"] = int(f.mn.val)
            for k in txn.expected:
                if k not in ("legal", "mn"):
                    got[k] = int(getattr(f, k).val)
        return got


# ---------------------------------------------------------------------------------- datapath
def random_matrix_instruction(rng: np.random.Generator, prm: Params, mnemonic: str,
                              big: float = 0.05) -> Instruction:
    """A random FF/BP/WU/BP_WU whose operands fit the memories: mostly small windows, some
    up to the architecture's largest, offsets now and then, every activation."""
    enc = prm.enc
    d = enc.opdef(mnemonic)

    def dim() -> int:
        r = rng.random()
        hi = prm.max_dim if r < big else 16 if r < 0.3 else 8
        return int(rng.integers(1, hi + 1))

    while True:
        rows, cols = dim(), dim()
        if rows * cols <= prm.synapse_words:
            break
    off = int(rng.integers(0, cols)) if rng.random() < 0.3 else 0
    n = cols - off
    ops = {"rows": rows, "cols": cols, "off": off,
           "syn": int(rng.integers(0, prm.synapse_words - rows * cols + 1))}
    src_len, dst_len = (n, rows) if mnemonic == "ff" else (rows, n)
    ops["src"] = int(rng.integers(0, prm.unified_words - src_len + 1))
    ops["dst"] = int(rng.integers(0, prm.unified_words - dst_len + 1))
    if "act" in d.operands:
        ops["act"] = int(rng.integers(0, len(ACT)))
    return enc.complete(Instruction(mnemonic, ops))


def fill_memory(rng: np.random.Generator, prm: Params, size: int) -> np.ndarray:
    """Memory contents: the random_words mix, or now and then one edge value everywhere
    (all zero, all most negative, all most positive) or values small enough not to
    saturate."""
    r = rng.random()
    if r < 0.1:
        v = (0, prm.min_raw, prm.max_raw)[int(rng.integers(0, 3))]
        return np.full(size, v, dtype=np.int64)
    if r < 0.4:
        lim = 1 << prm.frac_bits
        return rng.integers(-lim, lim + 1, size, dtype=np.int64)
    return random_words(rng, prm, size)


class DatapathBench(_Adhdp, Bench):
    """Datapath: random FF, BP, WU and BP_WU (every activation and the bypass) over memory
    contents with edge values, one instruction at a time, plus a few words that are not
    datapath instructions. Predicted by ``tlm.families.base.semantics`` (memories and
    saturation count) and ``tlm.families.base.timing`` (cycles, see
    :func:`.datapath.rtl_cycles`); the memories are a model beside the block
    (:mod:`.memory`), holding each instruction's before it starts."""

    default_n = 300            # instructions
    block = staticmethod(datapath)
    signals = staticmethod(datapath_signals)

    def transactions(self, rng, n, prm):
        U = fill_memory(rng, prm, prm.unified_words)
        S = fill_memory(rng, prm, prm.synapse_words)
        for k in range(n):
            if k and rng.random() < 0.15:
                U = fill_memory(rng, prm, prm.unified_words)
                S = fill_memory(rng, prm, prm.synapse_words)
            if rng.random() < 0.02:                       # not a datapath instruction
                yield datapath_txn(prm, random_instruction(rng, prm, "sca.add"), U, S)
                continue
            mn = DATAPATH_MNEMONICS[k % len(DATAPATH_MNEMONICS)]
            yield datapath_txn(prm, random_matrix_instruction(rng, prm, mn), U, S)

    def setup(self, h):
        h.U = np.zeros(h.prm.unified_words, dtype=np.int64)
        h.S = np.zeros(h.prm.synapse_words, dtype=np.int64)
        return list(memories(h.U, h.S, h.prm))

    def drive(self, h, txn):
        """An instruction when ready, over the predicted memory state; at done: cycles,
        saturations, both memories against the prediction."""
        yield from wait_ready(h)
        h.U[:], h.S[:] = txn.stimulus["before"]
        t0 = h.cycles
        cycles, sats, fault = yield from run_instruction(h, txn.stimulus["word"],
                                                 txn.expected.get("cycles", 2) + 64)
        h.applied(txn, t0)
        if cycles is None:
            h.stop()
            return {"fault": None, "sats": None, "cycles": None, "memory": "done never came"}
        diff = _memory_diff(h.prm, (h.U, h.S), txn.stimulus["after"])
        return {"fault": fault, "sats": sats, "cycles": cycles,
                "memory": diff or txn.expected["memory"]}

    def cover(self, h, txn):
        """What an instruction exercised: mnemonic with and without activation, edge values
        among the words it read, saturation."""
        if txn.expected.get("fault"):
            h.count("fault")
            return
        o = txn.operands
        mn = txn.opcode
        h.count(f"{mn}/{'act' if o.get('act', 0) else 'bypass'}" if mn != "wu" else "wu")
        U, S = txn.stimulus["before"]
        n = o["cols"] - o["off"]
        W = S[o["syn"]:o["syn"] + o["rows"] * o["cols"]]
        vec = U[o["src"]:o["src"] + (n if mn == "ff" else o["rows"])]
        read = np.concatenate([W, vec])
        for name, v in (("zero", 0), ("most negative", h.prm.min_raw),
                        ("most positive", h.prm.max_raw)):
            if (read == v).any():
                h.count(f"{mn} reads {name}")
        if txn.expected["sats"]:
            h.count(f"{mn} saturates")


def datapath_txn(prm: Params, ins: Instruction, U: np.ndarray, S: np.ndarray) -> Txn:
    """The datapath transaction of ``ins`` on memories ``U``, ``S``, with its prediction
    (``tlm.families.base.semantics`` on the arrays, which are left holding the predicted
    state; a word that is not a datapath instruction is predicted to fault and change
    nothing)."""
    from rlaccel.tlm.families.base.semantics import bind
    before = (U.copy(), S.copy())
    word = prm.enc.encode(ins)
    o = dict(ins.operands)
    if ins.mnemonic not in DATAPATH_MNEMONICS:
        return Txn(ins.mnemonic, o, {"fault": True, "sats": 0, "memory": "unchanged"},
                   stimulus={"word": word, "before": before, "after": before})
    c = SaturationCounter()
    bind(ins, U, S, prm.dt, c)()
    n = o["cols"] - o["off"]
    return Txn(ins.mnemonic, o,
               {"fault": False, "sats": c.saturations,
                "cycles": rtl_cycles(ins.mnemonic, o["rows"], n, prm.lanes, o.get("act", 0)),
                "memory": "as predicted"},
               stimulus={"word": word, "before": before, "after": (U.copy(), S.copy())})


def _memory_diff(prm, actual, expected) -> str:
    out = []
    for name, a, e in zip(("unified", "synapse"), actual, expected):
        for addr in np.flatnonzero(a != e)[:4].tolist():
            out.append(f"{name}[{addr}]={int(a[addr])} (predicted {int(e[addr])})")
    return "; ".join(out)
