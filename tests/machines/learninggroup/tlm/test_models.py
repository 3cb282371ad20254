"""The sparse family's instructions on the simulated LearningGroup machine: what each writes
(against the unit models and direct computations), what each costs (hand-computed from the
paper's structure), and the clear errors of programs the hardware cannot run."""

from __future__ import annotations

import numpy as np
import pytest

from rlaccel.assembler.assemble import assemble
from rlaccel.isa.arch import load_arch
from rlaccel.util.errors import AsmError, SimError
from rlaccel.machines.learninggroup.tlm import core, grouping, osel, vector, vpu
from rlaccel.machines.learninggroup.tlm.load_allocation import row_based
from rlaccel.machines.learninggroup.tlm.state import state_of
from rlaccel.tlm.platform import Platform

F16 = np.float16
ARCH = load_arch("learninggroup")


def _values(a) -> str:
    return ", ".join(repr(float(v)) for v in np.asarray(a, np.float64).ravel())


def _run(text: str) -> Platform:
    p = Platform(ARCH, assemble(".arch learninggroup\n" + text, "t.s").binary,
                 kernels="reference")
    p.run()
    return p


def _layer(seed, M, N, G):
    rng = np.random.default_rng(seed)
    return (rng, (rng.standard_normal((M, N)) * 0.5).astype(F16),
            rng.standard_normal(N).astype(F16), rng.standard_normal((M, G)).astype(F16),
            rng.standard_normal((G, N)).astype(F16))


GROUPING = """.data
RIDX: .zero {M}
CIDX: .zero {N}
.synapse
IG: .values {ig}
OG: .values {og}
W:  .values {w}
.text
        gmax.row RIDX, IG, {M}, {G}
        gmax.col CIDX, OG, {N}, {G}
        osel    {sf}, RIDX, CIDX, {M}, {N}, {G}, {enc}, 0
        osel    {st}, RIDX, CIDX, {M}, {N}, {G}, {enc}, 1
        cc.halt
"""


@pytest.mark.parametrize("enc", [0, 1])
def test_gmax_and_osel_encode_is_times_os(enc):
    """The max-index unit writes each row's and column's group; osel leaves tuples whose
    mask is IS @ OS (forward) and its transpose (t=1), and writes the tuples' workloads and
    the index list into the sparse row memory's entries."""
    rng, W, b, IG, OG = _layer(3, 9, 14, 4)
    p = _run(GROUPING.format(M=9, N=14, G=4, ig=_values(IG), og=_values(OG), w=_values(W),
                             sf=0, st=100, enc=enc))
    IS = np.eye(4)[np.argmax(IG, axis=1)]
    OS = np.eye(4)[np.argmax(OG, axis=0)].T
    mask = (IS @ OS).astype(bool)
    U = p.agent.memory("unified")
    assert U[:9].tolist() == np.argmax(IG, axis=1).tolist()
    assert U[9:23].tolist() == np.argmax(OG, axis=0).tolist()
    st = state_of(p.agent)
    assert np.array_equal(st.srm[0].mask(), mask)
    assert np.array_equal(st.srm[100].mask(), mask.T)
    R = p.agent.memory("sparse_row")
    if enc == 0:                                      # OSEL: G slots, then the index list
        assert R[4:13].tolist() == np.argmax(IG, axis=1).tolist()
        for g, t in st.srm[0].tuples.items():
            assert R[g] == t.workload == mask[np.argmax(IG, axis=1) == g][0].sum()
    else:                                             # the baseline: a workload per row
        assert R[:9].tolist() == mask.sum(axis=1).tolist()
    c = st.counters.encoder
    rows = [r for r in c.values()]
    assert rows[0]["misses"] + rows[0]["hits"] == 9 and rows[1]["misses"] + rows[1]["hits"] == 14
    if enc == 1:
        assert rows[0]["hits"] == 0


def test_osel_cycles_are_the_encoders_and_overlap_the_controller():
    """osel issues in one cycle and keeps the encoder busy for its misses and hits (Fig. 5:
    a miss is a compare and a tuple write of ceil((525 + 9 WL) / 512) cycles, a hit one
    cycle); the max-index unit reads 32 grouping words per cycle."""
    rng, W, b, IG, OG = _layer(4, 9, 14, 4)
    p = _run(GROUPING.format(M=9, N=14, G=4, ig=_values(IG), og=_values(OG), w=_values(W),
                             sf=0, st=100, enc=0))
    rows = list(state_of(p.agent).counters.encoder.values())
    enc = osel.encode_osel(np.argmax(IG, axis=1), np.argmax(OG, axis=0), 4)
    assert rows[0]["miss_cycles"] == enc.cycles.index_miss
    assert rows[0]["hit_cycles"] == enc.cycles.index_hit
    res_units = {u: p.agent.controller.dynamic_busy.get(u, 0) for u in ("encoder",)}
    first = rows[0]["miss_cycles"] + rows[0]["hit_cycles"]
    second = rows[1]["miss_cycles"] + rows[1]["hit_cycles"]
    assert res_units["encoder"] == first + second
    assert -(-9 * 4 // 32) == 2 and -(-4 * 14 // 32) == 2


LAYER = """.data
X:  .values {x}
Y:  .zero {ny}
D:  .values {d}
E:  .zero {ne}
RIDX: .zero {M}
CIDX: .zero {N}
.synapse
W:  .values {w}
    .values {b}
GW: .values {g}
IG: .values {ig}
OG: .values {og}
.text
        gmax.row RIDX, IG, {M}, {G}
        gmax.col CIDX, OG, {N}, {G}
        osel    0, RIDX, CIDX, {M}, {N}, {G}
        osel    100, RIDX, CIDX, {M}, {N}, {G}, 0, 1
        wcomp   W, 0, {M}, {N}, {G}, 0
        wcomp   W, 100, {M}, {N}, {G}, 1
        sff     Y, X, W, {M}, {N}, {B}
        sbp     E, D, W, {M}, {N}, {B}
        sgrad   X, D, W, GW, {M}, {N}, {B}
        cc.halt
"""


def _layer_program(seed=8, M=11, N=16, G=3, B=2):
    rng, W, bias, IG, OG = _layer(seed, M, N, G)
    X = rng.standard_normal((B, M)).astype(F16)
    D = rng.standard_normal((B, N)).astype(F16)
    Gw = rng.standard_normal((M + 1, N)).astype(F16)
    text = LAYER.format(x=_values(X), d=_values(D), w=_values(W), b=_values(bias),
                        g=_values(Gw), ig=_values(IG), og=_values(OG), M=M, N=N, G=G, B=B,
                        ny=B * N, ne=B * M)
    return text, W, bias, IG, OG, X, D, Gw


def test_the_cores_compute_the_unit_models_products():
    """sff = x (W * mask) + bias, sbp = g (W * mask)^T, sgrad adds x^T d on the kept weights
    and d on the bias row, each as core.py and vpu.py compute them, row-based over three
    cores; a masked gradient entry stays as it was."""
    text, W, bias, IG, OG, X, D, Gw = _layer_program()
    p = _run(text)
    sym = p.agent.binary.symbol
    U, S = p.agent.memory("unified"), p.agent.memory("synapse")
    fwd = osel.sparse_generation(IG, OG).srm
    bwd = osel.sparse_generation(IG, OG, transposed=True).srm
    alloc = row_based(fwd.workloads(), 3)
    alloc_t = row_based(bwd.workloads(), 3)
    y = U[sym("Y").address:sym("Y").address + 32].reshape(2, 16)
    e = U[sym("E").address:sym("E").address + 22].reshape(2, 11)
    for b in range(2):
        assert np.array_equal(y[b], vpu.add(core.sparse_forward(W, X[b], fwd, alloc), bias))
        assert np.array_equal(e[b], core.sparse_transposed(W, D[b], bwd, alloc_t))
    keep = fwd.mask()
    want = Gw.copy()
    for b in range(2):
        want[:11] = np.where(keep, vpu.mac(want[:11], X[b][:, None], D[b][None, :]), want[:11])
        want[11] = vpu.add(want[11], D[b])
    g = S[sym("GW").address:sym("GW").address + 12 * 16].reshape(12, 16)
    assert np.array_equal(g, want)


def test_matrix_cycles_are_the_cores_passes():
    """A core takes its rows four at a time and streams their unmasked weights through its
    264 VPUs (Fig. 7): per vector the slowest core's passes, then the aggregator's three
    cycles (sff, sbp); sgrad has no aggregator. Every multiply-accumulate is a VPU op."""
    text, W, bias, IG, OG, X, D, Gw = _layer_program()
    p = _run(text)
    fwd = osel.sparse_generation(IG, OG).srm
    wl = fwd.workloads()
    per = [sum(-(-int(sum(c[i:i + 4])) // 264) for i in range(0, len(c), 4) if sum(c[i:i + 4]))
           for c in (wl[a] for a in row_based(wl, 3))]
    mx = state_of(p.agent).counters.matrix
    assert mx["sff"]["cycles"] == 2 * max(per) + 3
    assert mx["sgrad"]["cycles"] == 2 * max(per)
    assert mx["sff"]["macs"] == 2 * int(wl.sum()) and mx["sff"]["dense_macs"] == 2 * 11 * 16


def test_stream_packing_times_the_cores_as_one_stream():
    """``[timing] row_packing = 2``: per vector the slowest core's stream cycles
    (timing.core_stream_cycles, at most four rows a cycle), the same products; a packing
    other than 1 or 2 is refused with the instruction's place."""
    from rlaccel.programs.arch_variant import arch_variant
    from rlaccel.machines.learninggroup.tlm.timing import core_stream_cycles
    text, W, bias, IG, OG, X, D, Gw = _layer_program()
    arch = load_arch(arch_variant("learninggroup", {"timing.row_packing": 2}))
    p = Platform(arch, assemble(text, "t.s", arch=arch).binary, kernels="reference")
    p.run()
    wl = osel.sparse_generation(IG, OG).srm.workloads()
    per = [core_stream_cycles(wl[a]) for a in row_based(wl, 3)]
    mx = state_of(p.agent).counters.matrix
    assert mx["sff"]["cycles"] == 2 * max(per) + 3
    bad = load_arch(arch_variant("learninggroup", {"timing.row_packing": 3}))
    with pytest.raises(SimError, match=r"at PC \d+: \[timing\] row_packing must be 1"):
        Platform(bad, assemble(text, "t.s", arch=bad).binary, kernels="reference").run()


def test_vector_operation_cycles():
    """A vector operation passes once per FP16 operation over its elements spread on the
    792 VPUs: v.add of 1000 words is 2 cycles, lstm.fw of 4 x 128 units 9 cycles (gate
    activations, cell, tanh, output), lstm.bw 23; ld.x moves 792 words per cycle."""
    text = """.data
A: .zero 4096
T: .zero 1
.text
        v.add   A, A, A, 1000
        lstm.fw A, A, A, 128, 4
        lstm.bw A, A, A, A, A, T, 128, 4
        ld.x    A, A, T, 800, 2
        cc.halt
"""
    p = _run(text)
    cyc = [row["cycles"] for row in _per_pc(p)[:4]]
    assert cyc == [2, 9, 23, 2]


def _per_pc(p):
    from rlaccel.tlm.results import Results
    return Results.collect(p, 0.0).per_pc


def test_rms_is_torchs_rule_in_fp16_and_clears_the_gradient():
    rng = np.random.default_rng(2)
    w = rng.standard_normal(10).astype(F16)
    g = (rng.standard_normal(10) * 3).astype(F16)
    v = np.abs(rng.standard_normal(10)).astype(F16)
    text = f""".data
HP: .values 0.001, 0.97, 0.03, 0.000001, 0.5
.synapse
W: .values {_values(w)}
G: .values {_values(g)}
V: .values {_values(v)}
.text
        rms W, G, V, 10, HP
        cc.halt
"""
    p = _run(text)
    S = p.agent.memory("synapse")
    gs = (g * F16(0.5)).astype(F16)
    want_w, want_v = vector.rmsprop(w, gs, v, F16(0.001), F16(0.97), F16(0.03), F16(1e-6))
    assert np.array_equal(S[:10], want_w) and np.array_equal(S[20:30], want_v)
    assert not S[10:20].any()
    w64 = w.astype(np.float64)
    v64 = 0.97 * v.astype(np.float64) + 0.03 * gs.astype(np.float64) ** 2
    ref = w64 - 0.001 * gs / (np.sqrt(v64) + 1e-6)
    assert np.allclose(S[:10].astype(np.float64), ref, atol=2e-3)


def test_grouping_update_is_flgws_straight_through_gradient():
    """gupd.row/col: r = sum over kept of G*W per row (column), dZ = P (onehot r - r P_sel)
    with P the softmax over the groups, then RMSprop -- against FLGW's float64 gradient."""
    from rlaccel.machines.learninggroup import flgw
    rng, W, bias, IG, OG = _layer(11, 6, 10, 3)
    Gw = (rng.standard_normal((6, 10)) * 64).astype(F16)     # gradients well above FP16's
                                                             # underflow of g*g (see below)
    text = f""".data
RIDX: .zero 6
CIDX: .zero 10
HP: .values 0.01, 0.97, 0.03, 0.000001, 1.0
.synapse
W: .values {_values(W)}
GW: .values {_values(Gw)}
IG: .values {_values(IG)}
OG: .values {_values(OG)}
VI: .zero 18
VO: .zero 30
.text
        gmax.row RIDX, IG, 6, 3
        gmax.col CIDX, OG, 10, 3
        osel    0, RIDX, CIDX, 6, 10, 3
        gupd.row IG, VI, W, GW, 0, 6, 10, 3, HP
        gupd.col OG, VO, W, GW, 0, 6, 10, 3, HP
        cc.halt
"""
    p = _run(text)
    S = p.agent.memory("synapse")
    sym = p.agent.binary.symbol
    mask = grouping.mask(np.argmax(IG, axis=1), np.argmax(OG, axis=0))
    dIG, dOG = flgw.grouping_grads(IG.astype(np.float64), OG.astype(np.float64),
                                   (Gw * mask).astype(np.float64) * W.astype(np.float64))
    for name, Z, dZ, shape in (("IG", IG, dIG, (6, 3)), ("OG", OG, dOG, (3, 10))):
        a = sym(name).address
        got = S[a:a + Z.size].reshape(shape).astype(np.float64)
        v = 0.03 * dZ ** 2
        want = Z.astype(np.float64) - 0.01 * dZ / (np.sqrt(v) + 1e-6)
        assert np.allclose(got, want, atol=0.02), name
        assert (got != Z).any()


# ---- errors ----------------------------------------------------------------------------
def test_groups_beyond_the_hardware_do_not_assemble():
    with pytest.raises(AsmError, match=r"t.s:4:29: osel: groups=17 does not fit: a group "
                                       r"count on 'learninggroup' must be 1..16 \(4-bit "
                                       r"field\)"):
        assemble(".arch learninggroup\n.text\n        osel 0, 0, 0, 8, 8, 16\n"
                 "        osel 0, 0, 0, 8, 8, 17\n", "t.s")


def test_a_layer_wider_than_the_bitvector_is_refused_at_load():
    text = ".text\n        osel 0, 0, 600, 8, 600, 4\n        cc.halt\n"
    with pytest.raises(SimError, match=r"^osel at PC 0: a layer with 600 columns is wider than "
                                       r"the 512-bit bitvector of the sparse row memory$"):
        _run(text)
    text = ".text\n        osel 0, 0, 600, 600, 8, 4, 0, 1\n        cc.halt\n"
    with pytest.raises(SimError, match="a layer with 600 columns is wider than the 512-bit"):
        _run(text)


def test_products_need_compressed_weights_and_frames_a_valid_index():
    with pytest.raises(SimError, match=r"^sff at PC 0: the cores hold no weights of the layer "
                                       r"at synapse word 0 \(run wcomp first\)$"):
        _run(".text\n        sff 0, 0, 0, 4, 4, 1\n        cc.halt\n")
    with pytest.raises(SimError, match=r"^sbp at PC 0: the cores hold no transposed weights "
                                       r"of the layer at synapse word 0 \(run wcomp with t=1 "
                                       r"first\)$"):
        _run(".text\n        sbp 0, 0, 0, 4, 4, 1\n        cc.halt\n")
    with pytest.raises(SimError, match=r"^ld.x at PC 0: index word 100 holds 3.0, not a whole "
                                       r"number 0..1$"):
        _run(".data\n.org 100\nT: .values 3.0\n.text\n        ld.x 0, 10, T, 4, 2\n"
             "        cc.halt\n")


def test_pgrad_and_vmean_refuse_invalid_actions():
    """The compiled pgrad and v.mean refuse what the vector models refuse, with their
    messages."""
    pgrad = """.data
OUT: .zero 16
TD:  .values {act}, 1, 0, 1, 0.5, -0.5, 1, 2
C:   .values 0.01
D:   .zero 16
.text
        pgrad D, OUT, TD, C, 5, 2
        cc.halt
"""
    _run(pgrad.format(act="4, 0"))
    with pytest.raises(SimError, match=r"^agent 1: actions 2\.5, 0\.0 are not valid "
                                       r"\(0\.\.4 and 0\.\.1\)$"):
        _run(pgrad.format(act="4, 2.5"))
    with pytest.raises(SimError, match=r"^v\.mean at PC 0: talk actions must be 0 or 1$"):
        _run(".data\nA: .zero 8\nG: .values 1, 0.5\n.text\n        v.mean A, A, G, 4, 2\n"
             "        cc.halt\n")
