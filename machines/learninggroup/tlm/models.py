"""The sparse family's instruction models (LearningGroup): one entry per mnemonic of
``machines/learninggroup/isa.toml``, each built on the unit models of this package.

Semantics are bound once per instruction to the agent's memories (binary16 words) and read
the family's state (:mod:`.state`) when they run. Timing (:mod:`.timing`) follows the paper's
units; the units an instruction occupies are

* ``maxindex`` and ``encoder`` -- the sparse data encoder's max-index unit and OSEL loop
  (issue one cycle and work on: the encoder overlaps the cores, section III-B; a consumer of
  their results waits for them through the extents of the ISA table);
* ``lau`` -- the load allocation unit (weight compression, issued the same way; the cores'
  operations wait for it, naming it with no busy cycles);
* ``core0`` .. ``core{C-1}`` -- the cores' VPUs (matrix operations: each core its own rows;
  vector operations: all of them), which hold the controller for their cycles;
* ``actmem`` -- the activation memory's frame moves.

Energy: every VPU operation (a multiply-accumulate or an element operation on one VPU) is one
``vpu_op``; the rest of the machine is priced per clock cycle (the architecture's
``[energy]`` says how both come from the paper's Fig. 8 and 36.3 W).
"""

from __future__ import annotations

from math import ceil

import numpy as np

from rlaccel.util.errors import SimError
from rlaccel.isa.table import TABLE

from rlaccel.tlm.model import DYNAMIC, Binding, Cost, InstructionModel
from rlaccel.machines.learninggroup.tlm import grouping, kernels, osel, timing, vector, vpu
from rlaccel.machines.learninggroup.tlm.layer import PackedLayer
from rlaccel.machines.learninggroup.tlm.state import state_of

__all__ = ["MODELS", "CATEGORIES", "ACTIONS", "TIMING_KEYS", "NACTIONS"]

#: result categories, in report order (the stages of the paper's instruction scheduler and
#: where their cycles go)
CATEGORIES = ("GROUPING", "COMPRESSION", "MATRIX", "VECTOR", "FRAMES", "UPDATE")
#: energy action -> energy unit
ACTIONS = {"vpu_op": "vpu"}
#: the [timing] constants the family reads (machines/learninggroup/README.md, section 3)
TIMING_KEYS = {
    "rows_per_pass": "sparse rows a core's VPUs take at once (the LearningGroup paper's Fig. 7: four "
                     "activations broadcast, four accumulation registers)",
    "row_packing": "1: a core takes its rows rows_per_pass at a time, each pass padded to "
                   "whole cycles (Fig. 7's time stamps); 2: one flattened stream, at most "
                   "rows_per_pass rows a cycle (timing.core_stream_cycles)",
    "grouping_words_per_cycle": "grouping-matrix words the max-index unit reads per cycle "
                                "(assumed; a 512-bit port is 32)",
    "bitvector_bits": "bits of a bitvector, the widest encodable row (seed Fig. 5: 512)",
    "workload_bits": "bits of a tuple's workload (seed section IV-C: 9)",
    "srm_port_bits": "bits written into the sparse row memory per cycle (assumed 512)",
    "weight_words_per_cycle": "unmasked FP16 weights the load allocation unit reads per "
                              "cycle (assumed 32)",
    "aggregator_latency": "cycles the aggregator adds after the slowest core (the cores' "
                          "sums and the bias: three FP16 adds)",
    "act_words_per_cycle": "activation-memory words ld.x/st.x move per cycle",
}
#: IC3Net's environment actions (predator-prey: up, right, down, left, stay); the heads
#: block of an agent is these, the two talk probabilities and the value
NACTIONS = 5

_ENC, _T = ("osel", "baseline"), (False, True)


def _vpus(b: Binding) -> int:
    return b.knobs.cores * b.knobs.lanes


def _cores(b: Binding, cycles: int) -> tuple:
    return tuple((f"core{c}", cycles) for c in range(b.knobs.cores))


def _words(U: np.ndarray, a: int, n: int) -> np.ndarray:
    return U[a:a + n]


def _apart(outs: list, ins: list) -> bool:
    """Whether the word ranges ``(address, length)`` an instruction writes overlap neither
    each other nor those it reads."""
    spans = outs + ins
    return not any(a < c + m and c < a + n for i, (a, n) in enumerate(outs)
                   for j, (c, m) in enumerate(spans) if j != i)


def _index(U: np.ndarray, s: int, limit: int, what: str) -> int:
    v = float(U[s])
    if not (v == int(v) and 0 <= v < limit):
        raise SimError(f"{what}: index word {s} holds {v!r}, not a whole number 0..{limit - 1}")
    return int(v)


def _mode(b: Binding, name: str, n: int = 2) -> int:
    v = b.ops.get(name, 0)
    if not 0 <= v < n:
        raise SimError(f"{b.where}: {name}={v} must be 0..{n - 1}")
    return v


# ---- SGRP: max index, OSEL, grouping update, RMSprop -----------------------------------------
def _gmax(b: Binding):
    U, S, o = b.mem("unified"), b.mem("synapse"), b.ops
    n, G = o["n"], o["groups"]
    grouping.check_groups(G, b.knobs.max_groups)
    Z = S[o["syn"]:o["syn"] + n * G]
    dst = _words(U, o["dst"], n)
    row = b.mnemonic == "gmax.row"
    stats, pc = state_of(b.agent).counters, b.pc
    cyc = _gmax_cycles(b)

    def gmax():
        m = Z.reshape(n, G) if row else Z.reshape(G, n)
        dst[:] = grouping.max_index(m, axis=1 if row else 0).astype(np.float16)
        stats.add(stats.max_index, pc, count=1, cycles=cyc)
    return gmax


def _gmax_cycles(b: Binding) -> int:
    return ceil(b.ops["n"] * b.ops["groups"] / b.timing["grouping_words_per_cycle"])


def _gmax_cost(b: Binding) -> Cost:
    return Cost(1, 2, (("maxindex", _gmax_cycles(b)),))


def _osel(b: Binding):
    U, R, o = b.mem("unified"), b.mem("sparse_row"), b.ops
    rows, cols, G = o["rows"], o["cols"], o["groups"]
    method, t = _ENC[_mode(b, "enc")], _T[_mode(b, "t")]
    p = timing.encoder_params(b.timing, b.knobs.max_groups)
    grouping.check_groups(G, p.max_groups)
    width = rows if t else cols
    if width > p.bitvector_bits:
        raise SimError(f"{b.where}: a layer with {width} columns is wider than the "
                       f"{p.bitvector_bits}-bit bitvector of the sparse row memory")
    ridx, cidx = _words(U, o["ridx"], rows), _words(U, o["cidx"], cols)
    base, st, pc = o["srm"], state_of(b.agent), b.pc
    encode = osel.encode_osel if method == "osel" else osel.encode_baseline

    def run():
        r = _idx(ridx, G, "ridx")
        c = _idx(cidx, G, "cidx")
        if t:
            r, c = c, r
        enc = encode(r, c, G, p)
        st.srm[base] = enc.srm
        # the words: each tuple slot's workload, then the index list (OSEL) -- entries
        n = len(r)
        R[base:base + G + n] = 0
        for slot, tup in enc.srm.tuples.items():
            if method == "osel":
                R[base + slot] = tup.workload
        if method == "osel":
            R[base + G:base + G + n] = enc.srm.index_list.astype(np.float16)
        else:
            R[base:base + n] = enc.srm.workloads().astype(np.float16)
        cy = enc.cycles
        busy = cy.index_miss + cy.index_hit
        st.counters.add(st.counters.encoder, pc, count=1, misses=cy.misses, hits=cy.hits,
                        miss_cycles=cy.index_miss, hit_cycles=cy.index_hit,
                        tuples=len(enc.srm.tuples))
        return Cost(1, 2, (("encoder", busy),), {"vpu_op": 0})

    def _idx(words, G, name):
        v = words.astype(np.float64)
        if v.size and not (np.all(v == np.floor(v)) and v.min() >= 0 and v.max() < G):
            raise SimError(f"{b.where}: {name} must hold max indexes 0..{G - 1}")
        return v.astype(np.int64)
    return run


def _hp(U: np.ndarray, a: int) -> tuple:
    """The hyper-parameter block: lr, alpha, 1 - alpha, eps, gradient scale."""
    return tuple(U[a:a + 5])


def _gupd(b: Binding):
    U, S, o = b.mem("unified"), b.mem("synapse"), b.ops
    rows, cols, G = o["rows"], o["cols"], o["groups"]
    grouping.check_groups(G, b.knobs.max_groups)
    row = b.mnemonic == "gupd.row"
    nz = rows * G if row else G * cols
    Z, V = S[o["syn"]:o["syn"] + nz], S[o["v"]:o["v"] + nz]
    W = S[o["w"]:o["w"] + rows * cols]
    Gacc = S[o["g"]:o["g"] + rows * cols]
    st, addr, hp, vpus = state_of(b.agent), o["srm"], o["hp"], _vpus(b)
    ops_per = vector.SOFTMAX_OPS + 4 + vector.RMS_OPS
    # RMSprop compiled (numpy's operations and bits, kernels.grouping_rms) for Z and V
    # apart and eps > 0 (no division by zero), else in numpy
    compiled, hp_bits = _apart([(o["syn"], nz), (o["v"], nz)], []), U[hp:hp + 4].view(np.uint16)

    def run():
        mem = st.tuples(addr, b.where)
        if mem.rows != rows or mem.width != cols:
            raise SimError(f"{b.where}: the sparse row memory at {addr} encodes "
                           f"{mem.rows} x {mem.width}, not {rows} x {cols}")
        keep = mem.mask()
        lr, alpha, oma, eps, scale = _hp(U, hp)
        sums = np.empty(rows if row else cols, np.float16)   # kept G*W per row / column
        vpu.count_overflows(kernels.kept_dot(Gacc.reshape(rows, cols).view(np.uint16),
                                             W.reshape(rows, cols).view(np.uint16), keep,
                                             not row, sums.view(np.uint16)))
        with np.errstate(over="ignore", invalid="ignore"):
            r = (sums * scale).astype(np.float16)
        shape = (rows, G) if row else (G, cols)
        dZ = vector.grouping_grad(Z.reshape(shape), r, axis=1 if row else 0)
        if compiled and eps > 0:
            kernels.grouping_rms(Z.view(np.uint16), np.ascontiguousarray(dZ).view(
                np.uint16).reshape(-1), V.view(np.uint16), hp_bits)
        else:
            z, v = vector.rmsprop(Z.reshape(shape), dZ, V.reshape(shape), lr, alpha, oma, eps)
            Z[:], V[:] = z.ravel(), v.ravel()
        nnz = int(keep.sum())
        cycles = timing.vector_cycles(nnz, 1, vpus) + timing.vector_cycles(nz, ops_per, vpus)
        return Cost(cycles, 1, _cores(b, cycles), {"vpu_op": nnz + nz * ops_per})
    return run


def _rms(b: Binding):
    U, S, o = b.mem("unified"), b.mem("synapse"), b.ops
    n, hp = o["n"], o["hp"]
    w, g, v = S[o["w"]:o["w"] + n], S[o["g"]:o["g"] + n], S[o["v"]:o["v"] + n]
    starts = sorted((o["w"], o["g"], o["v"]))
    if n and starts[1] - starts[0] >= n and starts[2] - starts[1] >= n:
        bits = (w.view(np.uint16), g.view(np.uint16), v.view(np.uint16),
                U[hp:hp + 5].view(np.uint16))

        def rms_kernel():                # the same arithmetic, compiled (:mod:`.kernels`)
            kernels.rms(*bits)
        return rms_kernel

    def rms():
        lr, alpha, oma, eps, scale = _hp(U, hp)
        with np.errstate(over="ignore", invalid="ignore"):
            gs = (g * scale).astype(np.float16)
        w[:], v[:] = vector.rmsprop(w, gs, v, lr, alpha, oma, eps)
        g[:] = 0
    return rms


def _rms_cost(b: Binding) -> Cost:
    c = timing.vector_cycles(b.ops["n"], vector.RMS_OPS, _vpus(b))
    return Cost(c, 1, _cores(b, c))


def _rms_actions(b: Binding) -> dict:
    return {"vpu_op": b.ops["n"] * vector.RMS_OPS}


# ---- SMM: weight compression and the cores -----------------------------------------------
def _wcomp(b: Binding):
    S, o = b.mem("synapse"), b.ops
    rows, cols = o["rows"], o["cols"]
    t = _T[_mode(b, "t")]
    sparse = b.mnemonic == "wcomp"
    syn = o["syn"]
    W, bias = S[syn:syn + rows * cols], S[syn + rows * cols:syn + (rows + 1) * cols]
    st, cores, pc = state_of(b.agent), b.knobs.cores, b.pc
    p = timing.encoder_params(b.timing, b.knobs.max_groups)
    if sparse:
        grouping.check_groups(o["groups"], p.max_groups)
    addr = o.get("srm", 0)

    def run():
        mem = st.tuples(addr, b.where) if sparse else None
        lay = PackedLayer.build(W.reshape(rows, cols), bias, mem, cores, transposed=t)
        st.layers[(syn, int(t))] = lay
        cycles = timing.compression_cycles(lay.workloads, p)
        st.counters.add(st.counters.compression, pc, count=1, cycles=cycles, weights=lay.nnz)
        if sparse and not t:
            st.counters.track_balance(syn, lay.workloads, cores)
        return Cost(1, 2, (("lau", cycles),), {"vpu_op": 0})
    return run


def _matrix(b: Binding):
    U, S, o = b.mem("unified"), b.mem("synapse"), b.ops
    rows, cols, B = o["rows"], o["cols"], o["batch"]
    mn, syn = b.mnemonic, o["syn"]
    st, lanes, rpp = state_of(b.agent), b.knobs.lanes, b.timing["rows_per_pass"]
    packing = b.timing["row_packing"]
    agg = b.timing["aggregator_latency"]
    where = b.where
    stats = st.counters
    if packing not in (1, 2):
        raise SimError(f"{where}: [timing] row_packing must be 1 (passes) or 2 (stream), "
                       f"not {packing}")

    def check(lay):
        if (lay.rows, lay.cols) != ((cols, rows) if lay.transposed else (rows, cols)):
            raise SimError(f"{where}: the cores hold the layer at {syn} as "
                           f"{lay.rows} x {lay.cols}, not {rows} x {cols}")

    dense = B * rows * cols
    # the layer the cores held last time and its Cost and counts (a layer lasts a grouping:
    # the cores' cycles are counted once per layer, :meth:`.layer.PackedLayer.core_cycles`)
    memo: list = [None]
    mx, layers = stats.matrix, st.layers          # (a restored checkpoint fills them in place)

    def cost(lay, extra_ops: int, add_agg: bool) -> Cost:
        hit = memo[0]
        if hit is None or hit[0] is not lay:
            check(lay)
            per = lay.core_cycles(lanes, rpp, stream=packing == 2)
            issue = B * max(per) + (agg if add_agg else 0)
            busy = tuple((f"core{c}", B * n) for c, n in enumerate(per)) + (("lau", 0),)
            macs = B * lay.nnz
            hit = memo[0] = (lay, Cost(issue, 1, busy, {"vpu_op": macs + extra_ops}),
                             {"count": 1, "macs": macs, "dense_macs": dense, "cycles": issue,
                              "core_cycles": B * max(per)})
        row = mx.get(mn)
        if row is None:
            stats.add_row(mx, mn, hit[2])
        else:                                     # add_row's sums, written out
            v = hit[2]
            row["count"] = row.get("count", 0) + 1
            row["macs"] = row.get("macs", 0) + v["macs"]
            row["dense_macs"] = row.get("dense_macs", 0) + dense
            row["cycles"] = row.get("cycles", 0) + v["cycles"]
            row["core_cycles"] = row.get("core_cycles", 0) + v["core_cycles"]
        return hit[1]

    if mn in ("sff", "sbp"):                  # sbp: the forward pass of the transposed layer
        back = mn == "sbp"
        n_in, n_out = (cols, rows) if back else (rows, cols)
        X = _words(U, o["src"], B * n_in).reshape(B, n_in).view(np.uint16)
        Y = _words(U, o["dst"], B * n_out).reshape(B, n_out).view(np.uint16)
        extra = 0 if back else B * cols

        key = (syn, int(back))

        def forward():
            lay = layers.get(key) or st.layer(syn, back, where)
            c = cost(lay, extra, True)
            lay.forward_bits(X, Y)
            return c
        return forward
    X = _words(U, o["src"], B * rows).reshape(B, rows).view(np.uint16)
    Dd = _words(U, o["src2"], B * cols).reshape(B, cols).view(np.uint16)
    Gacc = S[o["syn2"]:o["syn2"] + (rows + 1) * cols].reshape(rows + 1, cols).view(np.uint16)

    key = (syn, 0)

    def sgrad():
        lay = layers.get(key) or st.layer(syn, False, where)
        c = cost(lay, B * cols, False)
        lay.accumulate_bits(X, Dd, Gacc)
        return c
    return sgrad


# ---- SVEC: vector operations and frames ----------------------------------------------------
def _vec(b: Binding):
    U, o, mn = b.mem("unified"), b.ops, b.mnemonic
    n, B = o.get("n", 1), o.get("batch", 1)
    w = lambda name, k: _words(U, o[name], k)              # noqa: E731
    bits = lambda name, k: _words(U, o[name], k).view(np.uint16)   # noqa: E731
    where = b.where
    # the compiled kernels (:mod:`.kernels`) compute :mod:`.vector`'s expressions bit for bit
    if mn == "v.add":
        a, c, d = bits("a", n), bits("b", n), bits("dst", n)
        if (o["dst"] == o["a"]) != (o["dst"] == o["b"]):      # in place on one input
            into_a = o["dst"] == o["a"]

            def vadd_into():
                kernels.vec_add_into(a, c, into_a)
            return vadd_into

        def vadd():
            kernels.vec_add(a, c, d)
        return vadd
    if mn == "v.muls":
        a, s, d = bits("a", n), bits("s", 1), bits("dst", n)
        if o["dst"] == o["a"]:

            def vmuls_into():
                kernels.vec_muls_into(a, s[0])
            return vmuls_into

        def vmuls():
            kernels.vec_muls(a, s[0], d)
        return vmuls
    if mn == "v.set":
        s, d = w("s", 1), w("dst", n)

        def vset():
            d[:] = s[0]
        return vset
    if mn == "v.smax":
        m = o["m"]
        if B > 1 and m < n:
            raise SimError(f"{where}: segments of n={n} words m={m} apart overlap")
        span = (B - 1) * m + n
        a, d = bits("a", span), bits("dst", span)

        def vsmax():
            kernels.softmax_rows(a, d, B, n, m)
        return vsmax
    if mn == "v.mean":
        a, g, d = bits("a", B * n), bits("b", B), bits("dst", B * n)

        def vmean():
            if not kernels.comm_mean(a, g, d, B, n):
                raise SimError(f"{where}: talk actions must be 0 or 1")
        return vmean
    if mn == "lstm.fw":
        z, sp, out = bits("a", 4 * B * n), bits("b", B * n), bits("dst", 7 * B * n)
        passes = _apart([(o["dst"], 7 * B * n)], [(o["a"], 4 * B * n), (o["b"], B * n)])

        def lstm_fw():
            kernels.lstm_fw(z, sp, out, B, n, passes)
        return lstm_fw
    if mn == "lstm.bw":
        dh, dsn, fr = bits("a", B * n), bits("b", B * n), bits("c", 7 * B * n)
        sp, keep, dz = bits("d", B * n), bits("s", 1), bits("dst", 4 * B * n)
        ins = [(o[k], m) for k, m in (("a", B * n), ("c", 7 * B * n), ("d", B * n), ("s", 1))]
        bw = (kernels.lstm_bw_passes
              if _apart([(o["dst"], 4 * B * n), (o["b"], B * n)], ins) else kernels.lstm_bw)

        def lstm_bw():
            bw(dh, dsn, fr, sp, keep[0], dz, B, n)
        return lstm_bw
    if mn == "pgrad":
        k = n + 3
        out, td, coef, d = w("a", B * k), w("b", 4 * B), w("s", 1), w("dst", B * k)
        raw = (out.view(np.uint16), td.view(np.uint16), coef.view(np.uint16),
               d.view(np.uint16), B, n)

        def pgrad():
            if kernels.head_grads(*raw):
                return
            t = td.reshape(4, B)                # refused: vector.head_grads says why
            d[:] = vector.head_grads(out.reshape(B, k), t[0], t[1], t[2], t[3], coef[0],
                                     n).ravel()
        return pgrad
    m = o["m"]
    s = o["s"]
    if mn == "ld.x":
        frames, d = w("a", n * m), w("dst", n)

        def ldx():
            k = _index(U, s, m, where)
            d[:] = frames[k * n:(k + 1) * n]
        return ldx
    src, frames = w("a", n), w("dst", n * m)

    def stx():
        k = _index(U, s, m, where)
        frames[k * n:(k + 1) * n] = src
    return stx


#: VPU operations per element of each vector operation, and the elements it works on
def _vec_work(b: Binding) -> tuple[int, int]:
    o, mn = b.ops, b.mnemonic
    n, B = o.get("n", 1), o.get("batch", 1)
    if mn in ("v.add", "v.muls", "v.set"):
        return n, 1
    if mn == "v.smax":
        return B * n, vector.SOFTMAX_OPS
    if mn == "v.mean":
        return B * n, max(B - 1, 1)
    if mn == "lstm.fw":
        return B * n, vector.LSTM_FW_OPS
    if mn == "lstm.bw":
        return B * n, vector.LSTM_OPS
    if mn == "pgrad":
        return B, 2 * (n + 2) + 2
    raise KeyError(mn)  # pragma: no cover - _VECTOR lists the cases above


def _vec_cost(b: Binding) -> Cost:
    if b.mnemonic in ("ld.x", "st.x"):
        c = timing.frame_cycles(b.ops["n"], b.timing["act_words_per_cycle"])
        return Cost(c, 1, (("actmem", c),))
    elements, ops = _vec_work(b)
    c = timing.vector_cycles(elements, ops, _vpus(b))
    return Cost(c, 1, _cores(b, c))


def _vec_actions(b: Binding) -> dict:
    if b.mnemonic in ("ld.x", "st.x"):
        return {"vpu_op": 0}
    elements, ops = _vec_work(b)
    return {"vpu_op": elements * ops}


def _none(b: Binding) -> dict:
    return {"vpu_op": 0}


_VECTOR = ("v.add", "v.muls", "v.set", "v.smax", "v.mean", "lstm.fw", "lstm.bw", "pgrad",
           "ld.x", "st.x")

_SPEC = {
    "gmax.row": (_gmax, _gmax_cost, _none, "GROUPING"),
    "gmax.col": (_gmax, _gmax_cost, _none, "GROUPING"),
    "osel": (_osel, DYNAMIC, _none, "GROUPING"),
    "gupd.row": (_gupd, DYNAMIC, _none, "UPDATE"),
    "gupd.col": (_gupd, DYNAMIC, _none, "UPDATE"),
    "rms": (_rms, _rms_cost, _rms_actions, "UPDATE"),
    "wcomp": (_wcomp, DYNAMIC, _none, "COMPRESSION"),
    "wcomp.d": (_wcomp, DYNAMIC, _none, "COMPRESSION"),
    "sff": (_matrix, DYNAMIC, _none, "MATRIX"),
    "sbp": (_matrix, DYNAMIC, _none, "MATRIX"),
    "sgrad": (_matrix, DYNAMIC, _none, "MATRIX"),
    **{m: (_vec, _vec_cost, _vec_actions, "FRAMES" if m in ("ld.x", "st.x") else "VECTOR")
       for m in _VECTOR},
}

MODELS = {m: InstructionModel(m, "exec", *_SPEC[m])
          for m, d in TABLE.items() if d.family == "sparse"}
