"""The compiled FP16 kernels (machines/learninggroup/tlm/kernels.py) compute exactly what the
numpy unit models compute: the binary16 rounding of every float32 and float64, the packed
layer's forward, transposed and gradient products against core.py and vpu.py, and the
vector operations against vector.py, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from rlaccel.machines.learninggroup.tlm import core, kernels as K, osel, vector, vpu
from rlaccel.machines.learninggroup.tlm.layer import PackedLayer
from rlaccel.machines.learninggroup.tlm.load_allocation import row_based

F16 = np.float16


def _elementwise(fn, dtype):
    """A compiled map of the scalar kernel ``fn`` over an array (the kernels are njit
    functions, called from compiled code as the machine's kernels call them)."""
    @njit
    def apply(x):
        out = np.empty(x.size, dtype)
        for i in range(x.size):
            out[i] = fn(x[i])
        return out
    return apply


_map32, _map32_bits, _map64 = (_elementwise(f, np.float32) for f in (K.r16, K.r16_bits, K.r16d))
_h2f, _h2f_bits = (_elementwise(f, np.float32) for f in (K.h2f, K.h2f_bits))
_f2h, _f2h_bits = (_elementwise(f, np.uint16) for f in (K.f2h, K.f2h_bits))


def _same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    return np.all((a.view(np.uint32) == b.view(np.uint32)) | (np.isnan(a) & np.isnan(b)))


EDGES = [65504.0, 65519.99, 65520.0, 2.0 ** -14, 2.0 ** -24, 2.0 ** -25, 3 * 2.0 ** -26,
         1.5 * 2.0 ** -24, 2.5 * 2.0 ** -24, 1 + 2.0 ** -11, 1 + 3 * 2.0 ** -11, 0.0, 1e-9,
         np.inf, np.nan]


@pytest.mark.parametrize("rounding", [_map32, _map32_bits], ids=["r16", "r16_bits"])
def test_r16_is_numpys_float32_to_float16_rounding(rounding):
    """Ties to even, overflow from 65520 on, the 2^-24 grid below 2^-14, signed zeros, NaN
    (its sign kept): on a million random float32 bit patterns and the edge values, for the
    rounding the kernels use (the CPU's conversions where it has them) and the one on the
    bits."""
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2 ** 32, 1_000_000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    x = np.concatenate([x, np.float32(EDGES), -np.float32(EDGES)])
    with np.errstate(over="ignore", invalid="ignore"):
        got, want = rounding(x), x.astype(F16).astype(np.float32)
    assert _same(got, want)
    assert np.array_equal(np.signbit(got), np.signbit(want))


def test_r16d_rounds_float64_once():
    """A float64 straight to binary16 (no double rounding through float32)."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal(500_000) * np.exp(rng.uniform(-25, 12, 500_000))
    x = np.concatenate([x, EDGES, -np.asarray(EDGES), [1 + 2.0 ** -11 + 2.0 ** -40]])
    with np.errstate(over="ignore", invalid="ignore"):
        assert _same(_map64(x), x.astype(F16).astype(np.float32))


@pytest.mark.parametrize("h2f, f2h", [(_h2f, _f2h), (_h2f_bits, _f2h_bits)],
                         ids=["kernels", "bits"])
def test_bits_convert_both_ways_for_every_binary16(h2f, f2h):
    """Every binary16 to float32 and back; a NaN comes back as its sign and 0x7E00 (the
    conversions the kernels use, the CPU's where it has them, and the ones on the bits)."""
    h = np.arange(65536, dtype=np.uint16)
    v = h.view(F16).astype(np.float32)
    got = h2f(h)
    assert _same(got, v) and np.array_equal(np.signbit(got), np.signbit(v))
    back = f2h(got)
    nan = np.isnan(v)
    assert np.array_equal(back[~nan], h[~nan])
    assert np.array_equal(back[nan], (h[nan] & 0x8000) | 0x7E00)


def _layer(seed, M, N, G):
    rng = np.random.default_rng(seed)
    W = (rng.standard_normal((M, N)) * 0.5).astype(F16)
    bias = rng.standard_normal(N).astype(F16)
    IG = rng.standard_normal((M, G)).astype(F16)
    OG = rng.standard_normal((G, N)).astype(F16)
    return rng, W, bias, IG, OG


@pytest.mark.parametrize("method", osel.METHODS)
@pytest.mark.parametrize("G", [1, 3, 8])
def test_packed_products_equal_the_cores_dataflow(method, G):
    """forward (with the bias added by the aggregator), transposed and the weight-gradient
    accumulation over a batch equal core.sparse_forward / sparse_transposed and the VPU MAC
    chain of vpu.py, bit for bit, over three cores."""
    rng, W, bias, IG, OG = _layer(G, 23, 37, G)
    fwd = osel.sparse_generation(IG, OG, method).srm
    bwd = osel.sparse_generation(IG, OG, method, transposed=True).srm
    L = PackedLayer.build(W, bias, fwd, 3)
    LT = PackedLayer.build(W, None, bwd, 3, transposed=True)
    X = rng.standard_normal((4, 23)).astype(F16)
    X[0, 0] = F16(-0.0)
    D = rng.standard_normal((4, 37)).astype(F16)
    alloc, alloc_t = row_based(L.workloads, 3), row_based(LT.workloads, 3)
    want = np.stack([vpu.add(core.sparse_forward(W, x, fwd, alloc), bias) for x in X])
    assert np.array_equal(L.forward(X).view(np.uint16), want.view(np.uint16))
    want_t = np.stack([core.sparse_transposed(W, d, bwd, alloc_t) for d in D])
    assert np.array_equal(LT.forward(D).view(np.uint16), want_t.view(np.uint16))
    G_acc = rng.standard_normal((24, 37)).astype(F16)
    keep = fwd.mask()
    G_acc[:23][~keep] = 0
    want_g = G_acc.copy()
    for x, d in zip(X, D):
        want_g[:23] = np.where(keep, vpu.mac(want_g[:23], x[:, None], d[None, :]), F16(0))
        want_g[23] = vpu.add(want_g[23], d)
    L.accumulate(X, D, G_acc)
    assert np.array_equal(G_acc.view(np.uint16), want_g.view(np.uint16))


@pytest.mark.parametrize("cols", [8, 40])
def test_dense_weight_gradients_equal_the_vpu_chains(cols):
    """A dense layer's gradient accumulation (a narrow one column by column, K.NARROW) is
    the VPU's MAC chain over the batch, bit for bit, NaNs of both signs among the inputs."""
    rng = np.random.default_rng(cols)
    W = rng.standard_normal((23, cols)).astype(F16)
    L = PackedLayer.build(W, rng.standard_normal(cols).astype(F16), None, 3)
    X = rng.standard_normal((4, 23)).astype(F16)
    D = rng.standard_normal((4, cols)).astype(F16)
    G_acc = rng.standard_normal((24, cols)).astype(F16)
    X[1, 2], D[2, 3], G_acc[5, 3] = F16(np.inf), -F16(np.nan), F16(np.nan)
    want_g = G_acc.copy()
    with np.errstate(invalid="ignore"):
        for x, d in zip(X, D):
            want_g[:23] = vpu.mac(want_g[:23], x[:, None], d[None, :])
            want_g[23] = vpu.add(want_g[23], d)
    L.accumulate(X, D, G_acc)
    nan = np.isnan(want_g)
    assert np.array_equal(np.isnan(G_acc), nan)
    assert np.array_equal(G_acc[~nan].view(np.uint16), want_g[~nan].view(np.uint16))


def test_a_layer_with_rows_and_columns_left_out():
    """Rows whose group has no column contribute nothing, columns no row keeps get the bias
    alone; a forward layer of fewer rows than cores still runs."""
    W = np.arange(12, dtype=F16).reshape(2, 6)
    bias = np.full(6, 0.5, F16)
    IG = np.array([[1, 0, 0], [1, 0, 0]], F16)              # both rows in group 0
    OG = np.array([[0, 0, 0, 0, 1, 1], [0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 0, 0]], F16)
    srm = osel.sparse_generation(IG, OG, "osel").srm           # group 0 keeps columns 4, 5
    L = PackedLayer.build(W, bias, srm, 3)
    assert L.workloads.tolist() == [2, 2] and L.nnz == 4
    y = L.forward(np.array([[1.0, 2.0]], F16))
    assert y.tolist() == [[0.5, 0.5, 0.5, 0.5, 0.5 + 4 + 20, 0.5 + 5 + 22]]
    IG2 = np.array([[0, 1, 0], [1, 0, 0]], F16)                # row 0 in group 1: no column
    L2 = PackedLayer.build(W, None, osel.sparse_generation(IG2, OG, "osel").srm, 3)
    assert L2.row_group[0] == -1 and L2.forward(np.array([[1.0, 2.0]], F16)).tolist() == \
        [[0, 0, 0, 0, 20, 22]]
    assert np.array_equal(L2.mask(), osel.sparse_generation(IG2, OG, "osel").srm.mask())


def _bits(a):
    return np.ascontiguousarray(a, F16).view(np.uint16).ravel()


def test_vector_kernels_equal_the_vector_models():
    """lstm.fw (exhaustively over every finite binary16 gate input), lstm.bw with and
    without the BPTT cut, the communication mean, add and scale."""
    rng = np.random.default_rng(5)
    A, H = 3, 8
    z = (rng.standard_normal((A, 4 * H)) * 3).astype(F16)
    sp = rng.standard_normal((A, H)).astype(F16)
    gates, s, ts, h = vector.lstm_forward(z, sp)
    for passes in (False, True):
        out = np.zeros(7 * A * H, np.uint16)
        K.lstm_fw(_bits(z), _bits(sp), out, A, H, passes)
        assert np.array_equal(out, np.concatenate([_bits(gates), _bits(s), _bits(ts),
                                                   _bits(h)]))
    allv = np.arange(65536, dtype=np.uint16).view(F16)
    allv = allv[np.isfinite(allv)]
    allv = allv[:allv.size // 32 * 32].reshape(-1, 32)
    zero = np.zeros((allv.shape[0], 8), F16)
    g2 = vector.lstm_forward(allv, zero)
    for passes in (False, True):
        out2 = np.zeros(7 * allv.size // 4, np.uint16)
        K.lstm_fw(_bits(allv), _bits(zero), out2, allv.shape[0], 8, passes)
        assert np.array_equal(out2, np.concatenate([_bits(x) for x in g2]))
    dh, dsn = rng.standard_normal((A, H)).astype(F16), rng.standard_normal((A, H)).astype(F16)
    for keep in (0.0, 1.0):
        dz, nxt = vector.lstm_backward(dh, dsn, gates, ts, sp, keep)
        for bw in (K.lstm_bw, K.lstm_bw_passes):
            got_dz, got_n = np.zeros(4 * A * H, np.uint16), _bits(dsn).copy()
            bw(_bits(dh), got_n, out, _bits(sp), np.float16(keep).view(np.uint16), got_dz, A, H)
            assert np.array_equal(got_dz, _bits(dz)) and np.array_equal(got_n, _bits(nxt))
    talk = np.array([1, 0, 1], F16)
    got = np.zeros(A * H, np.uint16)
    K.comm_mean(_bits(h), _bits(talk), got, A, H)
    assert np.array_equal(got, _bits(vector.comm_mean(h, talk)))
    a, b = rng.standard_normal(50).astype(F16), rng.standard_normal(50).astype(F16)
    r = np.zeros(50, np.uint16)
    K.vec_add(_bits(a), _bits(b), r)
    assert np.array_equal(r, _bits(a + b))
    K.vec_muls(_bits(a), _bits(b)[0], r)
    assert np.array_equal(r, _bits(a * b[0]))
    for into_a in (True, False):                   # in place, over either input
        x, y = _bits(a).copy(), _bits(b).copy()
        K.vec_add_into(x, y, into_a)
        assert np.array_equal(x if into_a else y, _bits(a + b))
    x = _bits(a).copy()
    K.vec_muls_into(x, _bits(b)[0])
    assert np.array_equal(x, _bits(a * b[0]))


def test_lstm_bw_passes_equal_the_single_loop_with_nans():
    """lstm.bw's passes give the single loop's bits with NaNs of both signs and several
    payloads in every operand (two NaNs meeting: the same one wins), every binary16 among
    the frame's words."""
    rng = np.random.default_rng(4)
    nans = np.array([0x7E00, 0xFE00, 0x7C01, 0xFD01, 0x7C00, 0xFC00, 0x8000], np.uint16)
    B, n = 4, 96
    for trial in range(8):
        def words(k):
            a = rng.standard_normal(k).astype(F16).view(np.uint16)
            a[rng.integers(0, k, k // 2)] = rng.choice(nans, k // 2)
            return a
        dh, dsn, sp = words(B * n), words(B * n), words(B * n)
        fr = rng.permutation(np.arange(65536, dtype=np.uint16))[:7 * B * n]
        keep = nans[trial % 2] if trial < 2 else np.uint16(0x3C00)
        one, passes = (dsn.copy(), np.zeros(4 * B * n, np.uint16)), \
            (dsn.copy(), np.ones(4 * B * n, np.uint16))
        K.lstm_bw(dh, one[0], fr, sp, keep, one[1], B, n)
        K.lstm_bw_passes(dh, passes[0], fr, sp, keep, passes[1], B, n)
        assert np.array_equal(one[0], passes[0]) and np.array_equal(one[1], passes[1])


def test_lstm_fw_passes_equal_the_single_loop_on_every_input():
    """The passes of lstm.fw give the single loop's bits for every binary16 gate input, NaNs
    of both signs in the gates and the cell state included (two NaNs meeting in an add: the
    same one wins)."""
    rng = np.random.default_rng(2)
    z = rng.permutation(np.arange(65536, dtype=np.uint16))
    n = 64
    B = z.size // (4 * n)
    sp = rng.standard_normal(B * n).astype(F16).view(np.uint16)
    sp[rng.integers(0, sp.size, sp.size // 3)] = rng.choice(
        np.array([0x7E00, 0xFE00, 0x7C01, 0xFD01], np.uint16), sp.size // 3)
    one, passes = np.zeros(7 * B * n, np.uint16), np.ones(7 * B * n, np.uint16)
    K.lstm_fw(z, sp, one, B, n)
    K.lstm_fw(z, sp, passes, B, n, True)
    assert np.array_equal(one, passes)


def test_softmax_kernel_equals_the_vector_model():
    """v.smax's kernel against vector.softmax: the exponential of every binary16 at or below
    zero (every x - max there is), segments of random and of large, tied, infinite and
    signed-zero values, a segment of one word, segments m words apart written in place."""
    neg = np.arange(65536, dtype=np.uint16).view(F16)
    neg = neg[~np.isnan(neg) & (neg <= 0)]
    x = np.stack([neg, np.zeros_like(neg)], axis=1)       # max 0: x - max is every v <= 0
    got = np.zeros(x.size, np.uint16)
    K.softmax_rows(_bits(x), got, x.shape[0], 2, 2)
    assert np.array_equal(got, _bits(vector.softmax(x)))
    rng = np.random.default_rng(7)
    seg = np.concatenate([(rng.standard_normal((40, 5)) * 4).astype(F16),
                          np.array([[65504, 65504, 1, -65504, 0], [-0.0, 0.0, -0.0, 0.0, 0.0],
                                    [np.inf, 1, 2, 3, 4], [-np.inf, 1, 1, 1, 1]], F16)])
    got = np.zeros(seg.size, np.uint16)
    K.softmax_rows(_bits(seg), got, seg.shape[0], 5, 5)
    with np.errstate(invalid="ignore", over="ignore"):
        want = _bits(vector.softmax(seg))
    same = (got == want) | (np.isnan(got.view(F16)) & np.isnan(want.view(F16)))
    assert same.all()
    one = np.zeros(3, np.uint16)
    K.softmax_rows(_bits(seg[:3, :1]), one, 3, 1, 1)
    assert np.array_equal(one, _bits(np.ones(3, F16)))
    mem = _bits(np.concatenate([seg[:3], np.zeros((3, 2), F16)], axis=1))   # m = 7
    want = mem.copy().view(F16).reshape(3, 7)
    want[:, :5] = vector.softmax(want[:, :5])
    K.softmax_rows(mem, mem, 3, 5, 7)
    assert np.array_equal(mem, _bits(want))


def test_comm_mean_refuses_talk_actions_other_than_0_and_1():
    h = np.ones((3, 2), F16)
    out = np.full(6, 7, np.uint16)
    assert K.comm_mean(_bits(h), _bits(np.array([1, -0.0, 1], F16)), out, 3, 2)
    rng = np.random.default_rng(17)
    x = rng.standard_normal((4, 6)).astype(F16)
    talk = np.array([1, 1, 0, 1], F16)
    inplace = _bits(x).copy()
    assert K.comm_mean(inplace, _bits(talk), inplace, 4, 6)     # the result over its input
    assert np.array_equal(inplace, _bits(vector.comm_mean(x, talk)))
    for bad in (0.5, np.nan, -1.0):
        out[:] = 7
        assert not K.comm_mean(_bits(h), _bits(np.array([1, bad, 0], F16)), out, 3, 2)
        assert np.all(out == 7)


@pytest.mark.parametrize("scale", [1.0, 0.0078125, 300.0])
def test_rms_kernel_equals_the_vector_model(scale):
    """rms: the gradients scaled, vector.rmsprop, the gradients cleared; random words and
    zeros, subnormals, the largest binary16 and infinities among them."""
    rng = np.random.default_rng(11)
    n = 4000
    w = (rng.standard_normal(n) * 2).astype(F16)
    g = (rng.standard_normal(n) * np.exp(rng.uniform(-12, 6, n))).astype(F16)
    v = np.abs(rng.standard_normal(n) * np.exp(rng.uniform(-14, 4, n))).astype(F16)
    edge = np.array([0.0, -0.0, 2.0 ** -24, -2.0 ** -24, 65504.0, -65504.0, np.inf, -np.inf],
                    F16)
    g[:edge.size], v[edge.size:2 * edge.size] = edge, np.abs(edge)
    hp = np.array([0.001, 0.97, 0.03, 2.0 ** -12, scale], F16)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        gs = (g * hp[4]).astype(F16)
        want_w, want_v = vector.rmsprop(w, gs, v, *hp[:4])
    bw, bg, bv = _bits(w).copy(), _bits(g).copy(), _bits(v).copy()
    K.rms(bw, bg, bv, _bits(hp))
    for got, want in ((bw, _bits(want_w)), (bv, _bits(want_v))):
        nan = np.isnan(want.view(F16))
        assert np.array_equal(got[~nan], want[~nan])
        assert np.array_equal(got[nan], (want[nan] & 0x8000) | 0x7E00)
    assert not bg.any()


def test_grouping_rms_kernel_gives_numpys_bits():
    """The grouping matrices' RMSprop compiled gives vector.rmsprop's (numpy's) bits: every
    binary16 as w, g and v, and NaNs of both signs and several payloads among random words
    and the hyper-parameters."""
    rng = np.random.default_rng(6)
    every = np.arange(65536, dtype=np.uint16)
    nans = np.array([0x7E00, 0xFE00, 0x7C01, 0xFD01, 0xFF01, 0x7C00, 0xFC00, 0x8000],
                    np.uint16)
    cases = [(np.roll(every, 3 * k), np.roll(every, k), np.roll(every, 2 * k),
              np.array([0.001, 0.97, 0.03, 2.0 ** -12], F16)) for k in (1, 4099, 20011)]
    for trial in range(6):
        words = (rng.standard_normal((3, 2000)) * [[2], [1], [1]]).astype(F16).view(np.uint16)
        words[:, rng.integers(0, 2000, 700)] = rng.choice(nans, (3, 700))
        hp = np.array([0.001, 0.97, 0.03, 2.0 ** -12], F16)
        if trial < 3:
            hp.view(np.uint16)[trial] = nans[trial]
        cases.append((words[0], words[1], words[2], hp))
    for w, g, v, hp in cases:
        with np.errstate(all="ignore"):
            want_w, want_v = vector.rmsprop(w.view(F16), g.view(F16), v.view(F16), *hp)
        got_w, got_v = w.copy(), v.copy()
        K.grouping_rms(got_w, g, got_v, hp.view(np.uint16))
        assert np.array_equal(got_w, want_w.view(np.uint16))
        assert np.array_equal(got_v, want_v.view(np.uint16))


def test_head_grads_kernel_equals_the_vector_model():
    """pgrad: every action of every agent once, random heads, advantages and returns; an
    action out of range, not whole or NaN is refused with nothing written."""
    rng = np.random.default_rng(13)
    A, n = 10, 5
    out = rng.uniform(0, 1, (A, n + 3)).astype(F16)
    act = np.arange(A) % n
    talk = np.arange(A) % 2
    adv, ret = rng.standard_normal(A).astype(F16), rng.standard_normal(A).astype(F16)
    td = np.concatenate([act, talk, adv, ret]).astype(F16)
    coef = np.array([0.01], F16)
    want = vector.head_grads(out, td[:A], td[A:2 * A], adv, ret, coef[0], n)
    got = np.zeros(A * (n + 3), np.uint16)
    assert K.head_grads(_bits(out), _bits(td), _bits(coef), got, A, n)
    assert np.array_equal(got, _bits(want))
    for i, bad in ((0, n), (3, 1.5), (A + 2, 2), (1, np.nan), (A, -1)):
        wrong = td.copy()
        wrong[i] = bad
        got[:] = 7
        assert not K.head_grads(_bits(out), _bits(wrong), _bits(coef), got, A, n)
        assert np.all(got == 7)


@pytest.mark.parametrize("by_column", [False, True])
def test_kept_dot_equals_vpu_dot_of_the_kept_products(by_column):
    """gupd's sums: vpu.dot of the kept gradient words and the weights along rows or
    columns, signed zeros, overflows to infinity and NaN among them; the same count of
    overflows."""
    rng = np.random.default_rng(19)
    R, C = 37, 23
    G = (rng.standard_normal((R, C)) * np.exp(rng.uniform(-8, 9, (R, C)))).astype(F16)
    W = (rng.standard_normal((R, C)) * np.exp(rng.uniform(-8, 9, (R, C)))).astype(F16)
    W[0, :4] = [-1.0, -0.0, np.inf, np.nan]
    G[1, :3] = [-0.0, 65504, 65504]
    W[1, :3] = [2.0, 65504, -65504]
    keep = rng.random((R, C)) < 0.6
    keep[:2] = True
    with np.errstate(over="ignore", invalid="ignore"):
        g = np.where(keep, G, F16(0.0))
        before = vpu.FP16.saturations
        want = vpu.dot(g.T, W.T) if by_column else vpu.dot(g, W)
        counted = vpu.FP16.saturations - before
    got = np.zeros(C if by_column else R, np.uint16)
    n = K.kept_dot(_bits(G).reshape(R, C), _bits(W).reshape(R, C), keep, by_column, got)
    nan = np.isnan(want)
    assert np.array_equal(got[~nan], _bits(want)[~nan]) and np.isnan(got[nan].view(F16)).all()
    assert n == counted and counted > 0
