"""Each base instruction computes its defining equation (seed 001, eqs. 5-13 and 20-24)."""

import numpy as np
import pytest

from rlaccel.isa.dtypes import get_dtype
from rlaccel.isa.encoding import Instruction
from rlaccel.tlm.families.base.semantics import bind, vu_block

F64 = get_dtype("float64")
Q = get_dtype("q6.18").trusted()
RNG = np.random.default_rng(3)


def _mem(n=64):
    return RNG.uniform(-1, 1, n), RNG.uniform(-1, 1, 256)


def _act(v):
    return np.tanh(v / 2.0)


def test_ff_is_row_wise_matvec_with_activation():
    U, S = _mem()
    W = S[10:10 + 12].reshape(3, 4)
    bind(Instruction("ff", dict(src=0, syn=10, dst=20, rows=3, cols=4, off=1, act=4)), U, S,
         F64)()
    assert np.array_equal(U[20:23], _act(W[:, 1:] @ U[0:3]))


def test_bp_overwrites_x_with_the_error():
    U, S = _mem()
    W = S[0:8].reshape(2, 4).copy()
    g, x = U[0:2].copy(), U[10:14].copy()
    bind(Instruction("bp", dict(src=0, syn=0, dst=10, rows=2, cols=4, off=0, act=4)), U, S,
         F64)()
    assert np.array_equal(U[10:14], (1 - x * x) / 2 * (W.T @ g))
    assert np.array_equal(S[0:8].reshape(2, 4), W)           # bp does not write W


def test_bp_wu_uses_the_old_weights_and_updates():
    U, S = _mem()
    W = S[0:8].reshape(2, 4).copy()
    g, x = U[0:2].copy(), U[10:14].copy()
    bind(Instruction("bp_wu", dict(src=0, syn=0, dst=10, rows=2, cols=4, off=0, act=0)), U,
         S, F64)()
    assert np.array_equal(U[10:14], W.T @ g)
    assert np.array_equal(S[0:8].reshape(2, 4), W - np.outer(g, x))


def test_wu_window():
    U, S = _mem()
    W = S[0:15].reshape(3, 5).copy()
    g, x = U[0:3].copy(), U[10:13].copy()
    bind(Instruction("wu", dict(src=0, syn=0, dst=10, rows=3, cols=5, off=2)), U, S, F64)()
    new = W.copy()
    new[:, 2:] -= np.outer(g, x)
    assert np.array_equal(S[0:15].reshape(3, 5), new)


def test_virtual_update_equals_regular_update():
    """vu.init + L x (bp_wu.vu on the layer above, vu.step) + vu.commit gives the hidden layer
    and weights the regular updates give (eqs. 21-24), to rounding: bp_wu.vu accumulates
    E -= eps (eq. 23) in the pass that computes eps."""
    U, S = _mem()
    rows, cols = 4, 3
    p = U[0:3].copy()
    W0 = S[0:12].reshape(rows, cols).copy()
    lam, o0, e = vu_block(0, rows, cols)
    w2 = e + rows                                   # the layer above: 1 x rows after E
    ins = lambda mn, **o: bind(Instruction(mn, dict(syn=0, rows=rows, cols=cols, **o)),  # noqa
                               U, S, F64)
    ins("vu.init", src=0, dst=20, act=4)()
    assert S[lam] == p @ p and np.array_equal(S[o0:o0 + rows], W0 @ p)
    W, W2 = W0.copy(), S[w2:w2 + rows].copy()
    for k in range(3):
        g2 = RNG.uniform(-0.1, 0.1)
        U[40] = g2
        h = U[20:24].copy()
        eps = W2 * g2 * (1 - h * h) / 2             # bsig' from the output, times W2^T g2
        bind(Instruction("bp_wu.vu", dict(src=40, syn=e, dst=20, rows=1, cols=rows, act=4)),
             U, S, F64)()
        W2 = W2 - g2 * h
        np.testing.assert_allclose(U[20:24], eps, rtol=0, atol=1e-15)
        np.testing.assert_allclose(S[w2:w2 + rows], W2, rtol=0, atol=1e-15)
        ins("vu.step", dst=20, act=4)()
        W = W - np.outer(eps, p)
        np.testing.assert_allclose(U[20:24], _act(W @ p), rtol=0, atol=1e-14)
    ins("vu.commit", src=0)()
    np.testing.assert_allclose(S[0:12].reshape(rows, cols), W, rtol=0, atol=1e-14)


@pytest.mark.parametrize("mn", ["bp", "bp_wu"])
def test_merged_e_accumulation_is_the_plain_pass_plus_eq23(mn):
    """bp.vu / bp_wu.vu = bp / bp_wu on the W after E (syn + cols - off), and E -= result."""
    U1, S1 = _mem()
    U2, S2 = U1.copy(), S1.copy()
    o = dict(src=40, dst=20, rows=2, cols=5, off=1, act=4)
    bind(Instruction(mn, dict(o, syn=104)), U1, S1, F64)()
    bind(Instruction(mn + ".vu", dict(o, syn=100)), U2, S2, F64)()
    np.testing.assert_array_equal(U2, U1)
    np.testing.assert_array_equal(S2[104:], S1[104:])
    np.testing.assert_array_equal(S2[100:104], S1[100:104] - U1[20:24])


def test_vector_move():
    U, S = _mem()
    src = U[3:9].copy()
    bind(Instruction("ff.mov", dict(src=3, dst=30, cols=6)), U, S, F64)()
    assert np.array_equal(U[30:36], src)


@pytest.mark.parametrize("mn,expect", [
    ("sca.add", lambda a, b, c, d: a + b), ("sca.sub", lambda a, b, c, d: a - b),
    ("sca.mul", lambda a, b, c, d: a * b), ("sca.mac", lambda a, b, c, d: c + a * b),
    ("sca.td", lambda a, b, c, d: d * a - b + c), ("sca.max", lambda a, b, c, d: max(a, b)),
    ("sca.min", lambda a, b, c, d: min(a, b)), ("sca.mov", lambda a, b, c, d: a),
    ("sca.sqh", lambda a, b, c, d: a * a * 0.5),
    ("sca.cmp", lambda a, b, c, d: float(np.sign(a - b)))])
def test_scalar_functions(mn, expect):
    U, S = _mem()
    from rlaccel.isa.table import TABLE
    ops = {k: v for k, v in dict(dst=9, a=1, b=2, c=3, d=4).items() if k in TABLE[mn].operands}
    bind(Instruction(mn, ops), U, S, F64)()
    assert U[9] == expect(*U[1:5])


def test_fixed_point_uses_the_dtype_rules():
    """In Q6.18 an FF is the dtype's matvec then the PWL activation: one rounding."""
    U = Q.quantize(RNG.uniform(-1, 1, 32))
    S = Q.quantize(RNG.uniform(-1, 1, 64))
    bind(Instruction("ff", dict(src=0, syn=0, dst=10, rows=4, cols=5, act=4)), U, S, Q)()
    W = S[0:20].reshape(4, 5)
    assert np.array_equal(U[10:14], Q.activate("bsig", Q.matvec(W, U[0:5])))
