"""The ddpg family's instruction models (FIXAR, the FIXAR paper): one entry per mnemonic of
``machines/fixar/isa.toml``, each built on this package's unit models.

Semantics are bound once per instruction to the agent's memories (raw words in int64: the
weight memory's in the weight format, the gradient memory's in the gradient format, the rest
in the accumulator's, :mod:`.state`) and read the family's state (:mod:`.state`: QAT slots, PRNG streams, prepared weight
operands). Every result is the arithmetic of ``machines/fixar/numerics.py``'s fixed-point
engine, so the simulator and the reference agree bit for bit (tests/programs/fixar).

Timing is :mod:`.timing`'s formulas (section V-B dataflow), read with the architecture's
``[timing]`` constants. Units:

* ``aap0``, ``aap1`` -- the two AAP cores. A forward layer interleaves its input blocks over
  both (both busy for the layer's cycles); back-propagation and weight gradients split the
  batch's vectors (core ``k`` takes ``ceil`` or ``floor`` of ``V / N``). These hold the
  controller (every matrix instruction depends on the previous one) and add the pipeline
  fill (``pipeline_depth``) before a dependent instruction.
* ``adam`` -- the Adam unit beside the weight memory: Adam holds the controller (the next
  network's passes need its weights; machines/fixar/README.md section 5), the soft update is issued
  and runs beside the next instructions and the host exchange (only the next step's targets
  wait for it, through the ISA table's extents).
* ``prng`` and ``vector`` (accumulator and activation unit, one 512-bit line a cycle).

Energy actions: MACs of the PE arrays at 32x32 or 32x16 bits (the useful ones: B x P x Q a
layer), Adam and soft-update words, PRNG samples and vector elements.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from rlaccel.util.errors import SimError
from rlaccel.isa.table import TABLE

from rlaccel.tlm.model import DYNAMIC, Binding, Cost, Family, InstructionModel, batch_rows
from rlaccel.machines.fixar.tlm import activation
from rlaccel.machines.fixar.tlm.adam import AdamWords
from rlaccel.machines.fixar.tlm.kernels import (gradient_into, matmul_round, operand_into,
                                                  product_into, saturate)
from rlaccel.machines.fixar.tlm.soft_update import soft_update_inplace
from rlaccel.machines.fixar.tlm.kernels import rescale
from rlaccel.machines.fixar.tlm.state import _check, state_of
from rlaccel.machines.fixar.tlm.vector import (activate_into, derivative_mul_into, noise_into,
                                                 td_into)
from rlaccel.machines.fixar.tlm.timing import AapTiming, bp_cycles, ff_cycles, unit_cycles, wg_cycles

__all__ = ["FAMILY", "MODELS", "CATEGORIES", "ACTIONS", "TIMING_KEYS", "aap_timing"]

#: result categories, in report order
CATEGORIES = ("FF", "BP", "WG", "ADAM", "SOFT", "VECTOR", "PRNG", "QAT")
#: energy action -> energy unit
ACTIONS = {"pe_mac32": "pe", "pe_mac16": "pe", "adam_word": "adam", "soft_word": "adam",
           "prng_sample": "prng", "vec_op": "vector"}
#: the [timing] constants the family reads (besides the base family's pipeline_depth)
TIMING_KEYS = {
    "pe_rows": "inputs per tile: PE rows of an AAP core (the FIXAR paper: 16)",
    "pe_cols": "outputs per tile: PE columns of an AAP core (the FIXAR paper: 16)",
    "adam_lanes": "words the Adam unit updates per cycle (assumed 16: a 512-bit line)",
    "adam_depth": "the Adam unit's pipeline (assumed 20 cycles of float32 operations)",
    "soft_lanes": "words the soft update moves per cycle (assumed 16)",
    "prng_lanes": "Gaussian samples the PRNG gives per cycle (16 lanes)",
    "vector_lanes": "elements the accumulator / activation unit handles per cycle (16)",
}


def aap_timing(knobs, timing) -> AapTiming:
    """The timing model's knobs from an architecture's ``[machine]`` and ``[timing]``."""
    return AapTiming(cores=knobs.cores, pe_rows=timing["pe_rows"], pe_cols=timing["pe_cols"],
                     clock_mhz=knobs.clock_mhz, pipeline_depth=timing["pipeline_depth"],
                     adam_lanes=timing["adam_lanes"], adam_depth=timing["adam_depth"],
                     soft_lanes=timing["soft_lanes"], prng_lanes=timing["prng_lanes"],
                     vector_lanes=timing["vector_lanes"])


def _cores(b: Binding, per_core: list[int]) -> tuple:
    return tuple((f"aap{k}", c) for k, c in enumerate(per_core))


def _split(vectors: int, cores: int) -> list[int]:
    """Vectors per core when a batch is distributed (intra-batch parallelism)."""
    q, r = divmod(vectors, cores)
    return [q + (k < r) for k in range(cores)]


def _macs(b: Binding, n: int, half: bool) -> dict:
    return {"pe_mac16": n, "pe_mac32": 0} if half else {"pe_mac32": n, "pe_mac16": 0}


def _no_actions(b: Binding) -> dict:
    return {}


# ---- the AAP cores -------------------------------------------------------------------------
def _aap(b: Binding) -> tuple:
    """What an instruction of the AAP cores works with: the unified and synapse memories, its
    operands, the family's state, the number format and the saturation counter."""
    return b.mem("unified"), b.mem("synapse"), b.ops, state_of(b.agent), b.dt, b.counter


def _input(st, acc, slot: int, X: np.ndarray, buf: np.ndarray, monitor: bool, where: str):
    """A layer input as the PEs see it, ``(values, frac_bits)``: while they are the stored
    words, converted into ``buf`` and monitored in the same pass; else
    :meth:`~.state.FixarState.read_input`."""
    if st.raw_inputs:
        x, lo, hi = operand_into(X, buf)
        if monitor:
            st.observe(slot, lo, hi, X.size)
        return x, acc.frac_bits
    return st.read_input(slot, X, monitor, where)


def _bff(b: Binding):
    U, S, o, st, acc, counter = _aap(b)
    rows, cols, B, syn = o["rows"], o["cols"], o["batch"], o["syn"]
    X = batch_rows(U, o["src"], B, o["sstride"], cols)
    D = batch_rows(U, o["dst"], B, o["dstride"], rows)
    bias = S[syn + rows * cols:syn + rows * cols + rows]
    act = _act_name(o.get("act", 0))
    slot, mon, where = o.get("qid", 0), bool(o.get("mon", 0)), b.where
    cfg = aap_timing(b.knobs, b.timing)
    cost = {h: _matrix_cost(b, [ff_cycles(rows, cols, B, cfg, h)] * cfg.cores,
                            _macs(b, B * rows * cols, h)) for h in (False, True)}
    xs, ws = (B, cols), (B, rows)                            # the buffers' shapes
    tail = act in ("none", "relu")                           # the accumulator's tail does it
    relu = act == "relu"
    fw = st.weight.frac_bits - acc.frac_bits                 # the product's extra fraction
    pc, count = b.pc, st.count
    add, fa = np.empty(rows, np.int64), acc.frac_bits        # the bias at the products' point

    def bff():
        xf, work = st.scratch(xs, ws)
        if tail and st.raw_inputs:      # the stored words: one compiled call when it applies
            W = st.operand(S, syn, rows, cols)
            np.left_shift(bias, fa, out=add)
            seen = product_into(X, xf, W, True, fa + fw, acc, D, work, add=add, relu=relu,
                                counter=counter)
            if seen is not None:
                if mon:
                    st.observe(slot, seen[0], seen[1], X.size)
                half = st.half
                c = cost[half]
                count(pc, half, c.issue)
                return c
        x, fx = _input(st, acc, slot, X, xf, mon, where)
        W = st.operand(S, syn, rows, cols)
        if tail:
            matmul_round(x, W.T, fx + fw, acc, addend=bias << np.int64(fx), counter=counter,
                         into=D, work=work, relu=relu)
        else:
            z = matmul_round(x, W.T, fx + fw, acc, addend=bias << np.int64(fx),
                             counter=counter, work=work)
            D[...] = _activate(st, act, z, counter)
        c = cost[st.half]
        count(pc, st.half, c.issue)
        return c
    return bff


def _act_name(code: int) -> str:
    from rlaccel.isa.table import ENUMS
    return ENUMS["act"][code]


def _activate(st, act: str, z: np.ndarray, counter) -> np.ndarray:
    if act == "none":
        return z
    if act == "relu":
        return np.maximum(z, 0)
    return activation.activate(st.acc, act, z, segments=st.segments, counter=counter)


def _matrix_cost(b: Binding, per_core: list[int], actions: dict) -> Cost:
    return Cost(max(per_core), b.timing["pipeline_depth"], _cores(b, per_core), actions)


def _bbp(b: Binding):
    U, S, o, st, acc, counter = _aap(b)
    rows, cols, off, B, syn = o["rows"], o["cols"], o.get("off", 0), o["batch"], o["syn"]
    q = off + cols                              # the matrix is rows x (off + cols)
    E = batch_rows(U, o["err"], B, o["estride"], rows)
    D = batch_rows(U, o["dst"], B, o["dstride"], cols)
    act = _act_name(o.get("act", 0))
    if act not in ("none", "relu"):
        raise SimError(f"{b.where}: act={act}: back-propagation masks with ReLU' (relu) or "
                       f"not at all (none); the output's tanh' is vdact's")
    M = batch_rows(U, o.get("mask", 0), B, o.get("mstride", 1), cols) if act == "relu" else None
    slot, where = o.get("qid", 0), b.where
    cfg = aap_timing(b.knobs, b.timing)
    one = replace(cfg, cores=1)
    per_core = [bp_cycles(rows, cols, v, one) for v in _split(B, cfg.cores)]
    cost = _matrix_cost(b, per_core, _macs(b, B * rows * cols, False))
    fw = st.weight.frac_bits                    # error x weight, rounded to the error's point
    pc = b.pc

    es, ws = (B, rows), (B, cols)                            # the buffers' shapes
    apart = M is None or not np.may_share_memory(D, M)   # the mask read as the result is written

    def bbp():
        ef, work = st.scratch(es, ws)
        W = st.operand_cols(S, syn, rows, q, off)
        if apart and st.raw_inputs and product_into(E, ef, W, False, fw, acc, D, work, mask=M,
                                                    counter=counter) is not None:
            st.count(pc, st.half, cost.issue)
            return cost
        m = None
        if M is not None:
            m = M if st.raw_inputs else st.read_input(slot, M, False, where)[0]
        e = operand_into(E, ef)[0]
        matmul_round(e, W, fw, acc, counter=counter, into=D, work=work, mask=m)
        st.count(pc, st.half, cost.issue)
        return cost
    return bbp


def _bwg(b: Binding):
    U, S, o, st, acc, counter = _aap(b)
    rows, cols, B, g = o["rows"], o["cols"], o["batch"], o["grad"]
    E = batch_rows(U, o["err"], B, o["estride"], rows)
    X = batch_rows(U, o["x"], B, o["xstride"], cols)
    GW = S[g:g + rows * cols].reshape(rows, cols)
    GB = S[g + rows * cols:g + rows * cols + rows]
    slot, where = o.get("qid", 0), b.where
    cfg = aap_timing(b.knobs, b.timing)
    gfmt = st.grad                              # the gradient memory's words
    fg = acc.frac_bits - gfmt.frac_bits         # the error's extra fraction over the gradient's
    one = replace(cfg, cores=1)
    cost = {h: _matrix_cost(b, [wg_cycles(rows, cols, v, one, h) for v in _split(B, cfg.cores)],
                            _macs(b, B * rows * cols, h)) for h in (False, True)}
    pc = b.pc

    shapes = (B, rows), (B, cols), (rows, cols)              # the buffers'

    def bwg():
        ef, xf, work = st.scratch(*shapes)
        half = st.half
        if not (st.raw_inputs and gradient_into(E, ef, X, xf, acc.frac_bits + fg, gfmt, GW,
                                                work, bias=GB, bias_shift=fg,
                                                counter=counter)):
            x, fx = _input(st, acc, slot, X, xf, False, where)
            e, _, _ = operand_into(E, ef)
            matmul_round(e.T, x, fx + fg, gfmt, counter=counter, into=GW, work=work)
            GB[...] = rescale(E.sum(axis=0), fg, gfmt, counter)
        st.written(g, g + rows * cols + rows)
        st.count(pc, half, cost[half].issue)
        return cost[half]
    return bwg


# ---- the Adam unit, soft update, weight loads ----------------------------------------------
def _adam(b: Binding):
    U, S, o = b.mem("unified"), b.mem("synapse"), b.ops
    w, g, m, n, hp = o["w"], o["g"], o["m"], o["n"], o["hp"]
    st, counter = state_of(b.agent), b.counter
    update = AdamWords(st.weight, S[w:w + n], S[g:g + n], S[m:m + n], S[m + n:m + 2 * n],
                       U[hp:hp + 7], gfmt=st.grad)

    def adam():
        top = update(counter, st.mirror_of(S)[w:w + n])
        if top is None:
            st.written(w, w + n)
        else:                       # the weights' float64 copies written with them
            st.updated(w, w + n, top)
    return adam


def _adam_cost(b: Binding) -> Cost:
    c = unit_cycles(b.ops["n"], b.timing["adam_lanes"], b.timing["adam_depth"])
    return Cost(c, 1, (("adam", c),))


def _soft(b: Binding):
    U, S, o = b.mem("unified"), b.mem("synapse"), b.ops
    dst, src, n = o["dst"], o["src"], o["n"]
    st, counter = state_of(b.agent), b.counter
    fmt = st.weight
    T, Sv, tau = S[dst:dst + n], S[src:src + n], U[o["tau"]:o["tau"] + 1]
    where = b.where

    def soft():
        traw = int(tau[0])
        try:
            top = soft_update_inplace(T, Sv, traw, fmt, counter=counter,
                                      mirror=st.mirror_of(S)[dst:dst + n])
        except Exception as exc:
            raise SimError(f"{where}: {exc}") from None
        if top is None:
            st.written(dst, dst + n)
        else:
            st.updated(dst, dst + n, top)
    return soft


def _soft_cost(b: Binding) -> Cost:
    return Cost(1, 1, (("adam", unit_cycles(b.ops["n"], b.timing["soft_lanes"])),))


def _ldw(b: Binding):
    U, S, o = b.mem("unified"), b.mem("synapse"), b.ops
    dst, n = o["dst"], o["n"]
    st = state_of(b.agent)
    T, L = S[dst:dst + n], U[o["ld"]:o["ld"] + n]

    def ldw():
        T[...] = L
        st.written(dst, dst + n)
    return ldw


def _ldw_cost(b: Binding) -> Cost:
    c = unit_cycles(b.ops["n"], b.timing["soft_lanes"])
    return Cost(c, 1, (("adam", c),))


def _word_actions(name: str):
    def actions(b: Binding) -> dict:
        o = b.ops
        return {name: o.get("n", o.get("cols", 1) * o.get("batch", 1))}
    return actions


# ---- the PRNG ------------------------------------------------------------------------------
def _noise(b: Binding):
    U, o = b.mem("unified"), b.ops
    n, s = o["n"], o.get("stream", 1)
    st, acc, counter = state_of(b.agent), b.dt, b.counter
    D, Sv, sig, where = U[o["dst"]:o["dst"] + n], U[o["src"]:o["src"] + n], \
        U[o["sigma"]:o["sigma"] + 1], b.where

    def noise():
        g = st.stream(s, where).gaussian_raw(n)
        if not noise_into(acc, Sv, int(sig[0]), g, D, counter=counter):
            D[...] = acc.add(Sv, acc.mul(sig[0], g), counter=counter)
    return noise


def _seed(b: Binding):
    U, o = b.mem("unified"), b.ops
    W, s, st = U[o["src"]:o["src"] + 2], o.get("stream", 1), state_of(b.agent)

    def seed():
        st.seed(s, (int(W[0]) & 0xFFFFFFFF) | ((int(W[1]) & 0xFFFFFFFF) << 32))
    return seed


def _prng_cost(b: Binding) -> Cost:
    c = unit_cycles(b.ops.get("n", 0), b.timing["prng_lanes"]) + 1
    return Cost(c, 1, (("prng", c),))


# ---- QAT -----------------------------------------------------------------------------------
def _freeze(b: Binding):
    st, bits, where = state_of(b.agent), b.ops.get("bits", 16), b.where

    def freeze():
        st.freeze(bits, where)
        return Cost(max(len(st.monitors), 1), 1)
    return freeze


# ---- the accumulator / activation unit -----------------------------------------------------
def _vector_cost(b: Binding) -> Cost:
    o = b.ops
    n = 3 * o["batch"] if b.mnemonic == "td" else o["cols"] * o.get("batch", 1)
    c = unit_cycles(n, b.timing["vector_lanes"])
    return Cost(c, b.timing["pipeline_depth"] if b.mnemonic == "td" else 1, (("vector", c),))


def _vector_actions(b: Binding) -> dict:
    o = b.ops
    return {"vec_op": 3 * o["batch"] if b.mnemonic == "td" else o["cols"] * o.get("batch", 1)}


def _vact(b: Binding):
    U, o = b.mem("unified"), b.ops
    B, cols = o["batch"], o["cols"]
    st, counter = state_of(b.agent), b.counter
    Z = batch_rows(U, o["src"], B, o["sstride"], cols)
    D = batch_rows(U, o["dst"], B, o["dstride"], cols)
    act = _act_name(o["act"])

    def vact():
        if not activate_into(st.acc, act, Z, D, segments=st.segments, counter=counter):
            D[...] = _activate(st, act, np.array(Z), counter)
    return vact


def _vdact(b: Binding):
    U, o = b.mem("unified"), b.ops
    B, cols = o["batch"], o["cols"]
    st, acc, counter = state_of(b.agent), b.dt, b.counter
    Sv = batch_rows(U, o["src"], B, o["sstride"], cols)
    D = batch_rows(U, o["dst"], B, o["dstride"], cols)
    Z = U[o["z"]:o["z"] + B * cols].reshape(B, cols)
    act, neg = _act_name(o["act"]), bool(o.get("neg", 0))
    lo, hi = int(acc.min_raw), int(acc.max_raw)

    def vdact():
        if derivative_mul_into(acc, act, Sv, Z, D, neg, segments=st.segments,
                               counter=counter):
            return
        d = saturate(-np.array(Sv), lo, hi, counter) if neg else np.array(Sv)
        deriv = activation.derivative(acc, act, Z, segments=st.segments)
        D[...] = acc.mul(d, acc.cast(deriv, acc, counter=counter), counter=counter)
    return vdact


def _vfill(b: Binding):
    U, o = b.mem("unified"), b.ops
    D, v = U[o["dst"]:o["dst"] + o["cols"]], o.get("value", 0)

    def vfill():
        D[...] = v
    return vfill


def _td(b: Binding):
    U, o = b.mem("unified"), b.ops
    B = o["batch"]
    acc, counter = b.dt, b.counter
    Q, Z = U[o["src"]:o["src"] + B], U[o["z"]:o["z"] + 3 * B]
    D, gamma = U[o["dst"]:o["dst"] + B], np.int64(o.get("value", 0))

    def td():
        if td_into(acc, int(gamma), Q, Z, D, counter=counter):
            return
        q2, rd = Z[:B], Z[B:].reshape(B, 2)
        discounted = acc.mul(gamma, q2, counter=counter)
        discounted = np.where(rd[:, 1] > 0, np.int64(0), discounted)
        y = acc.add(rd[:, 0], discounted, counter=counter)
        D[...] = acc.sub(Q, y, counter=counter)
    return td


_SPEC = {
    "bff": (_bff, DYNAMIC, _no_actions, "FF"),
    "bbp": (_bbp, DYNAMIC, _no_actions, "BP"),
    "bwg": (_bwg, DYNAMIC, _no_actions, "WG"),
    "adam": (_adam, _adam_cost, _word_actions("adam_word"), "ADAM"),
    "soft": (_soft, _soft_cost, _word_actions("soft_word"), "SOFT"),
    "ldw": (_ldw, _ldw_cost, _word_actions("soft_word"), "SOFT"),
    "noise": (_noise, _prng_cost, _word_actions("prng_sample"), "PRNG"),
    "rng.seed": (_seed, _prng_cost, _no_actions, "PRNG"),
    "qat.freeze": (_freeze, DYNAMIC, _no_actions, "QAT"),
    "vact": (_vact, _vector_cost, _vector_actions, "VECTOR"),
    "vdact": (_vdact, _vector_cost, _vector_actions, "VECTOR"),
    "vfill": (_vfill, _vector_cost, _vector_actions, "VECTOR"),
    "td": (_td, _vector_cost, _vector_actions, "VECTOR"),
}

MODELS = {m: InstructionModel(m, "exec", *_SPEC[m])
          for m, d in TABLE.items() if d.family == "ddpg"}

FAMILY = Family(name="ddpg", models=MODELS, actions=ACTIONS, categories=CATEGORIES,
                timing_keys=TIMING_KEYS, tables=("fixar",), checks=(_check,),
                doc="FIXAR (the FIXAR paper): batched DDPG on two AAP cores, Adam, soft updates, the "
                    "PRNG, quantisation-aware training")
